"""CLI output reaches response templates (`{Response.body.x}` from JSON stdout,
`{Response.stdout}`, `{Response.stderr}`, `{Response.exit_code}`), and an unknown `{Response.…}` stays literal with
String's `Unresolved template reference` warning. Through the real program (`stringsh run`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

CLI_FIELDS = "Response.status, Response.body, Response.stdout, Response.stderr, Response.exit_code"

PAGE = """# CLI Response

```act.run
CLI printf 'OUT_LINE'; printf 'ERR_LINE' >&2
```

```act.run.response
STDOUT: {Response.stdout}
STDERR: {Response.stderr}
EXITCODE: {Response.exit_code}
BOGUS: {Response.stdoutt}
```

```act.js
CLI printf '{"name": "Ana", "present": null, "list": [1, 2]}'
```

```act.js.response
{who} = {Response.body.name}
NAME: {Response.body.name} ({who})
PRESENT:[{Response.body.present}]
MISSING:[{Response.body.absent}] [{Response.body.absent}]
for: n in Response.body.list
- {n}
end:
```

```act.text
CLI echo plain words
```

```act.text.response
{Response.body}|{Response.stdout}|{Response.stderr}|
```
"""


def replies(ws: Path, script: str) -> list[str]:
    (ws / "app.md").write_text(PAGE)
    proc = run_stringsh(["run", "-"], ws, stdin=f"/open app.md\n{script}")
    assert proc.returncode == 0, proc.stdout
    return split_replies(proc.stdout.decode())[1:]


def test_stdout_stderr_exit_code_reach_the_template_and_a_typo_is_loud(ws: Path) -> None:
    assert replies(ws, "/act.run --\n") == [
        "re: /act.run --\nSTDOUT: OUT_LINE\nSTDERR: ERR_LINE\nEXITCODE: 0\nBOGUS: {Response.stdoutt}\n\n"
        f"Warning: Unresolved template reference {{Response.stdoutt}} (available: {CLI_FIELDS})"
    ]


def test_json_stdout_is_the_body_null_is_blank_and_only_missing_paths_warn(ws: Path) -> None:
    assert replies(ws, "/act.js\n/set\n") == [
        "re: /act.js\nNAME: Ana (Ana)\nPRESENT:[]\nMISSING:[{Response.body.absent}] [{Response.body.absent}]\n"
        f"- 1\n- 2\n\nWarning: Unresolved template reference {{Response.body.absent}} (available: {CLI_FIELDS})",
        're: /set\nVariables\n---\n{who} = "Ana"',
    ]


def test_text_stdout_is_the_body(ws: Path) -> None:
    assert replies(ws, "/act.text\n") == ["re: /act.text\nplain words|plain words||"]


def test_http_has_no_stdout_so_referencing_it_is_loud(ws: Path, server: str) -> None:
    (ws / "web.md").write_text(
        f"```act.items\nGET {server}/items\n```\n\n```act.items.response\n"
        "TOTAL: {Response.body.total}\nSTDOUT: {Response.stdout}\n```\n"
    )
    proc = run_stringsh(["run", "-"], ws, stdin="/open web.md\n/act.items\n")
    assert split_replies(proc.stdout.decode())[1] == (
        "re: /act.items\nTOTAL: 2\nSTDOUT: {Response.stdout}\n\n"
        "Warning: Unresolved template reference {Response.stdout} (available: Response.status, Response.body)"
    )
