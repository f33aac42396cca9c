"""Reply text split into its parts (re line, message, content, error); no rich here, so the toolbar can use it
without loading the renderer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DOCUMENT_MESSAGE = re.compile(r"^(?:Opened|Back to|Refreshed) (?P<target>\S.*)$")
BASH_MESSAGE = re.compile(r"^exit: (?P<rc>-?\d+) \| cwd: (?P<cwd>.*)$")


@dataclass
class Parsed:
    """A reply split into its parts; `content` is None for category B and C replies."""

    re_line: str
    message: str
    content: str | None
    error: bool


def split_reply(text: str) -> Parsed:
    re_line, _, rest = text.partition("\n")
    if rest.startswith("ERROR("):
        return Parsed(re_line, rest, None, True)
    message, sep, content = rest.partition("\n---\n")
    if not sep and rest.endswith("\n---"):
        message, content, sep = rest[:-4], "", "\n---\n"
    return Parsed(re_line, message, content if sep else None, False)


def document_target(message: str) -> str | None:
    """The path a document reply shows (`Opened notes.md#todo` -> `notes.md`), or None."""
    match = DOCUMENT_MESSAGE.match(message)
    if not match:
        return None
    return match.group("target").split("#", 1)[0].strip()
