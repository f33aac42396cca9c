"""A small notes workspace shared by the documents command tests (/open, /back, /refresh, /edit, /verify, /source)."""

from __future__ import annotations

from pathlib import Path

README = """---
title: Notes
requires: [NOTES_TOKEN_FOR_TESTS]
---
[!nav:main](./nav/main.md)
# Notes

Read [GitHub](https://github.com) or [@todo the list](./todo.md#today).

## Setup

Install the tools, then run `make`.

## Usage

<!-- #tip -->
Use it daily.
<!-- /tip -->

```act.status
GET https://example.com/status
```
"""


def make_notes(ws: Path) -> None:
    (ws / "nav").mkdir()
    (ws / "nav" / "main.md").write_text("[@setup Setup](../README.md#setup)\n")
    (ws / "README.md").write_text(README)
    (ws / "todo.md").write_text("# Todo\n\n## Today\n\n- ship\n")
    (ws / "notes.txt").write_text("plain [x](https://example.com) <!-- #m -->\n")
    (ws / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))


def body(reply_text: str) -> str:
    """The reply without its `re:` line."""
    return reply_text.split("\n", 1)[1]


def trust_workspace(root: Path) -> None:
    """Record the user's decision to trust `root` as it is now (its stringsh.toml, if any), as `stringsh trust` does;
    editing the folder's stringsh.toml afterwards lapses it."""
    from stringsh.workspace import trust
    from stringsh.workspace.layers import workspace_policy_bytes

    trust.record(root, workspace_policy_bytes(root))
