"""Turn a terminal byte stream into plain UTF-8 text, incrementally, so output can be capped while it streams.

Escape sequences, `\\r\\n` pairs and UTF-8 characters may be split across reads; each is held back until whole.
Plain ASCII output (the bulk of most commands) takes a bytes-only fast path.
"""

from __future__ import annotations

import re

#: OSC (titles, hyperlinks) to BEL or ST; CSI; charset selection; other two-byte escapes (ESC =, ESC M, ESC c).
ESCAPE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[0-Z\\^-~]")
#: A prefix of an escape sequence that more bytes could still complete.
PARTIAL_ESCAPE = re.compile(rb"\x1b(?:\][^\x07\x1b]*\x1b?|\[[0-?]*[ -/]*|[()])?\Z")
NEWLINES = re.compile(r"\r+\n")
#: C0 controls except tab and newline (a lone `\r` goes too), DEL, and C1 controls.
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
#: The same C0 controls and DEL as bytes, for the ASCII fast path.
C0_BYTES = bytes([*range(0, 9), *range(11, 32), 127])
#: An unfinished escape longer than this is junk, not a sequence still arriving.
MAX_HELD = 4096


def clean_text(text: str) -> str:
    """Clean a complete text in one go (the checks skip the regexes for plain output)."""
    if "\x1b" in text:
        text = ESCAPE.sub("", text)
    if "\r" in text:
        text = NEWLINES.sub("\n", text)
    return CONTROLS.sub("", text)


def clean_bytes(data: bytes) -> bytes:
    """Clean bytes holding whole characters; the result is valid UTF-8 (bad bytes become U+FFFD)."""
    if data.isascii():
        if b"\x1b" not in data and b"\r" not in data:
            return data.translate(None, C0_BYTES)
        return clean_text(data.decode("ascii")).encode("ascii")
    return clean_text(data.decode("utf-8", "replace")).encode("utf-8")


class StreamCleaner:
    """Feed bytes, get clean UTF-8 bytes; `finish()` flushes whatever is still held back."""

    def __init__(self) -> None:
        self._held = b""

    def feed(self, data: bytes) -> bytes:
        if self._held:
            data = self._held + data
        cut = min(len(data.rstrip(b"\r")), _partial_escape(data), _partial_char(data))
        self._held = data[cut:]
        return clean_bytes(data[:cut]) if cut else b""

    def finish(self) -> bytes:
        data, self._held = self._held, b""
        return clean_bytes(data)


def _partial_escape(data: bytes) -> int:
    """Where an unfinished escape sequence starts (an OSC's own ESC may be followed by ST's ESC)."""
    floor = max(0, len(data) - MAX_HELD)
    last = data.rfind(b"\x1b", floor)
    if last < 0:
        return len(data)
    before = data.rfind(b"\x1b", floor, last)
    if before >= 0 and PARTIAL_ESCAPE.match(data, before):
        return before
    return last if PARTIAL_ESCAPE.match(data, last) else len(data)


def _partial_char(data: bytes) -> int:
    """Where a UTF-8 character cut by the end of `data` starts."""
    end = len(data)
    start = end
    while start > 0 and end - start < 3 and 0x80 <= data[start - 1] < 0xC0:
        start -= 1
    if start == 0:
        return end
    lead = data[start - 1]
    need = 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF8 else 0
    return start - 1 if need > end - start + 1 else end
