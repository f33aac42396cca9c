"""MCP edit replies end with the change set they made (`Change 12, undoable.`); tests sharing one server session
across tests read the reply without that line, having checked it is there (its number depends on test order)."""

from __future__ import annotations

import re

CHANGE_LINE = re.compile(r"\nChange [1-9][0-9]*, undoable\.\Z")


def changed(text: str) -> str:
    """`text` without its last line, which must name a change set."""
    found = CHANGE_LINE.search(text)
    assert found is not None, text
    return text[: found.start()]
