"""The part guard: what an edit of one part of a file (a block, a line range) is held against.

A topic remembers the text of each file as it last read it (`/open`, `/edit`, a range view) or wrote it: the
baseline of its next edit of a part. The edit applies when that part still reads, in the file as it is under the
engine's lock, as it did in the baseline, whatever changed elsewhere in the file; otherwise it is a CONFLICT
that names the part and shows its text now. Whole-file writes keep `require_seen` (guard.py).

The memory is tagged with the hash `session.seen` held when it was stored, so any whole-file read or write that
moves `seen` on (an append, /undo, /revert, a /write) retires it. A part written into a file that other clients
changed elsewhere is remembered as the baseline with just that part changed: this topic never read their parts,
so neither `seen` nor its baseline claims it did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import SHOWN_LINES, block_changed, block_gone, lines_changed
from stringsh.workspace import shown_text as shown

__all__ = ["REMEMBERED", "REMEMBERED_CHARS", "SHOWN_LINES", "baseline", "block_changed", "block_gone", "forget",
           "lines_changed", "remember", "shown"]

if TYPE_CHECKING:
    from stringsh.render.document import Document
    from stringsh.session import Session

#: Files, and characters of text, remembered per topic (the oldest read is dropped first); a file no longer
#: remembered falls back to `seen`: its parts can be edited while the file is as this topic read it.
REMEMBERED = 32
REMEMBERED_CHARS = 8_000_000

def remember(session: Session, rel: str, text: str | Document) -> None:
    """This topic knows `rel` as `text` (tagged with the hash `seen` holds for it now). A document is kept as it
    is and decoded only when an edit of a part needs it (a repeat /open of a big file decodes only what it shows)."""
    known = session.known
    known.pop(rel, None)
    known[rel] = (session.seen.get(rel, ""), text)
    while len(known) > 1 and (len(known) > REMEMBERED or sum(_size(t) for _, t in known.values()) > REMEMBERED_CHARS):
        known.pop(next(iter(known)))


def _size(text: str | Document) -> int:
    if isinstance(text, str):
        return len(text)
    held = text.__dict__
    raw = held.get("raw", held.get("head"))  # (a view read by its first bytes holds only those: render/document.py)
    return len(raw) if isinstance(raw, bytes) and "text" not in held else len(text.text)


def forget(session: Session, rel: str) -> None:
    session.known.pop(rel, None)


def baseline(session: Session, rel: str, sha256: str, text: str) -> str | None:
    """The text this topic's edit of a part of `rel` is held against, given the file as the command found it
    (`sha256`, `text`): what the topic last read or wrote; the file as found when the topic never read it (the
    edit names its part outright); None when the topic read it, the file changed since and the text it read is
    no longer remembered (the caller refuses: nothing tells whether the part changed)."""
    seen = session.seen.get(rel)
    if seen is None:
        return text
    tag, known = session.known.get(rel, ("", None))
    if known is not None and tag == seen:
        if isinstance(known, str):
            return known
        try:
            return known.text
        except StringError:  # a view read by its first bytes, whose file no longer holds the rest: not remembered
            pass
    return text if seen == sha256 else None
