"""A response template's `to: path` under the stale-write guard (`require_seen`) and the change journal, through
the real program: a file this topic never read (or that changed since) is not overwritten; what it writes undoes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

PAGE = """# Save

```act.save
GET BASE/items
  name: string (required)
```

```act.save.response
save: items[0].name
to: {name}.txt
Saved {name}.txt
```
"""


def run(ws: Path, server: str, script: str) -> list[str]:
    (ws / "page.md").write_text(PAGE.replace("BASE", server))
    (ws / "keep.txt").write_text("mine\n")
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/open page.md\n" + script)
    return split_replies(proc.stdout.decode())[1:]


def test_to_refuses_a_file_this_topic_has_not_read(ws: Path, server: str) -> None:
    replies = run(ws, server, "/act.save --name a\n/act.save --name a\n/act.save --name keep\n")
    assert replies == [
        "re: /act.save --name a\nSaved a.txt",
        "re: /act.save --name a\nSaved a.txt",  # its own output counts as read
        "re: /act.save --name keep\nto: write failed: refusing to overwrite keep.txt: this topic has not read it "
        "(/open keep.txt, then run the action again)\nSaved keep.txt",
    ]
    assert (ws / "keep.txt").read_text() == "mine\n"
    assert (ws / "a.txt").read_text() == "alpha"


def test_to_after_reading_writes_through_the_journal_and_undoes(ws: Path, server: str) -> None:
    replies = run(
        ws, server,
        "/open keep.txt\n/back\n/act.save --name keep\n/undo\n/open keep.txt\n/back\n!printf 'other\\n' > keep.txt\n"
        "/act.save --name keep\n",
    )
    assert replies[2] == "re: /act.save --name keep\nSaved keep.txt"
    assert replies[3] == "re: /undo\nUndo: reverted keep.txt (1 line)"
    assert replies[7] == (
        "re: /act.save --name keep\nto: write failed: refusing to overwrite keep.txt: it changed since this topic "
        "read it (/open keep.txt, then run the action again)\nSaved keep.txt"
    )
    assert (ws / "keep.txt").read_text() == "other\n"
