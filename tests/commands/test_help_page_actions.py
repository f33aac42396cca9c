"""/help ends with String's "Actions on this page", each action with its required flags."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import script_replies

ACTS = """# Acts

```act.search
GET https://example.com/search?q={query}
  query, -q: string (required) "what to look for"
  limit: number (optional) = "10"
  lang, -l: string (required) = "en"
```

```act.ping
CLI echo pong
```
"""


def test_help_lists_the_open_pages_actions_with_required_flags(ws: Path) -> None:
    (ws / "acts.md").write_text(ACTS)
    (ws / "plain.md").write_text("# Plain\n")
    before, _opened, after, _plain, without = script_replies(ws, "/help\n/open acts.md\n/help\n/open plain.md\n/help\n")
    assert "Actions on this page" not in before
    section = "## Actions on this page\n/act.search -q/--query <string> -l/--lang <string>\n/act.ping"
    assert after == f"{before}\n\n{section}"
    assert without == before  # a page without actions adds nothing
