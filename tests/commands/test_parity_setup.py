"""String's setup hints. A page's setup document is its `[!requirements](path)` line or a
`requirements.md` beside it; missing `requires:` variables and a failing action point there."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import script_replies

PAGE = """---
requires: [PARITY_SETUP_TOKEN_FOR_TESTS]
---
# Tool

```act.fail
CLI echo broken; exit 3
```

```act.call
GET https://example.invalid/v1?key=$PARITY_SETUP_UNSET_FOR_TESTS
```
"""


def test_missing_env_and_failing_actions_point_at_the_requirements_beside_the_page(ws: Path) -> None:
    (ws / "tool").mkdir()
    (ws / "tool" / "string.md").write_text(PAGE)
    (ws / "tool" / "requirements.md").write_text("# Setup\n\nInstall it.\n")
    opened, failed, refused, setup = script_replies(
        ws, "/open tool/string.md\n/act.fail\n/act.call\n/open requirements.md\n"
    )
    assert opened == (
        "re: /open tool/string.md\nOpened tool/string.md\n---\n"
        "[actions] fail, call  ·  /act --help (all)  ·  /act.<name> --help\n"
        "[!] Missing required env: $PARITY_SETUP_TOKEN_FOR_TESTS\n"
        '    Set: /set $PARITY_SETUP_TOKEN_FOR_TESTS="..."\n'
        "    Setup: /open requirements.md\n\n"
        "# Tool"
    )
    assert failed == f"re: /act.fail\nexit: 3 | cwd: {ws / 'tool'}\n---\nbroken\n\nSetup info: /open requirements.md"
    assert refused.startswith("re: /act.call\nERROR(INVALID_PAYLOAD): ")
    assert refused.endswith("\n\nSetup info: /open requirements.md")
    assert setup == "re: /open requirements.md\nOpened tool/requirements.md\n---\n# Setup\n\nInstall it."


def test_no_setup_hint_without_a_requirements_file(ws: Path) -> None:
    (ws / "string.md").write_text(PAGE)
    opened, failed = script_replies(ws, "/open string.md\n/act.fail\n")
    assert "Setup" not in opened
    assert failed == f"re: /act.fail\nexit: 3 | cwd: {ws}\n---\nbroken"
