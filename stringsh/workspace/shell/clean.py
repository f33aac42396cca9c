"""Turn a terminal byte stream into plain text, incrementally, so output can be capped while it streams.

Escape sequences, `\\r\\n` pairs and UTF-8 characters may be split across reads; each is held back until whole.
"""

from __future__ import annotations

import codecs
import re

#: OSC (titles, hyperlinks) to BEL or ST; CSI; charset selection; other two-byte escapes (ESC =, ESC M, ESC c).
ESCAPE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[0-Z\\^-~]")
#: A prefix of an escape sequence that more bytes could still complete.
PARTIAL_ESCAPE = re.compile(r"\x1b(?:\][^\x07\x1b]*\x1b?|\[[0-?]*[ -/]*|[()])?\Z")
NEWLINES = re.compile(r"\r+\n")
#: C0 controls except tab and newline (a lone `\r` goes too), DEL, and C1 controls.
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
#: An unfinished escape longer than this is junk, not a sequence still arriving.
MAX_HELD = 4096


def clean_text(text: str) -> str:
    """Clean a complete text in one go (the checks skip the regexes for plain output)."""
    if "\x1b" in text:
        text = ESCAPE.sub("", text)
    if "\r" in text:
        text = NEWLINES.sub("\n", text)
    return CONTROLS.sub("", text)


class StreamCleaner:
    """Feed bytes, get clean text; `finish()` flushes whatever is still held back."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""

    def feed(self, data: bytes) -> str:
        text = self._held + self._decoder.decode(data)
        self._held = ""
        cut = len(text)
        if text.endswith("\r"):
            cut = len(text.rstrip("\r"))
        cut = min(cut, self._partial_start(text))
        self._held = text[cut:]
        return clean_text(text[:cut])

    @staticmethod
    def _partial_start(text: str) -> int:
        """Where an unfinished escape sequence starts (an OSC's own ESC may be followed by ST's ESC)."""
        floor = max(0, len(text) - MAX_HELD)
        last = text.rfind("\x1b", floor)
        if last < 0:
            return len(text)
        before = text.rfind("\x1b", floor, last)
        if before >= 0 and PARTIAL_ESCAPE.match(text, before):
            return before
        return last if PARTIAL_ESCAPE.match(text, last) else len(text)

    def finish(self) -> str:
        text = self._held + self._decoder.decode(b"", final=True)
        self._held = ""
        return clean_text(text)
