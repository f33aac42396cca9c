"""Byte-faithful text: strict decoding, one line model, and splicing that keeps each region's line endings.

The line model is the one every stringsh tool shares: a line ends at `\\r\\n`, a lone `\\r` or `\\n`, nothing
else (not `str.splitlines()`, which also breaks on U+2028, U+0085 and form feed).
"""

from __future__ import annotations

import re

from stringsh.errors import Step, StringError, hint
from stringsh.escapes import shown_name
from stringsh.hints import ICONV, shell_hint

BREAK = re.compile(r"\r\n|\r|\n")
BOMS = (
    (b"\x00\x00\xfe\xff", None),
    (b"\xff\xfe\x00\x00", None),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
BINARY_SNIFF = 8192
STYLES = {"\n": "lf", "\r\n": "crlf", "\r": "cr"}
ENDINGS = {v: k for k, v in STYLES.items()}
ENCODING_HINT = "stringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 with a BOM."
#: How a file that is not UTF-8 (and has no BOM) is shown: every byte is one Latin-1 character, so nothing is lost
#: or substituted, and an edit written back in Latin-1 changes no byte outside it (never converted unasked).
LEGACY_ENCODING = "latin-1"


#: Detected instead of Latin-1 when the bytes use 0x80-0x9F (C1 controls in Latin-1, never in text; Windows-1252's
#: quotes, dashes and euro) and every one of them is defined there: each byte is still one character, so a read and
#: a write back give the same bytes.
WINDOWS_ENCODING = "cp1252"
#: The encodings a file that is not UTF-8 is shown and edited in, with the names a view gives them.
LEGACY_ENCODINGS = {LEGACY_ENCODING: "Latin-1 (ISO-8859-1)", WINDOWS_ENCODING: "Windows-1252 (cp1252)"}
C1_BYTES = re.compile(rb"[\x80-\x9f]")


def legacy_note(rel: str, encoding: str = LEGACY_ENCODING, ambiguous: bool = False) -> str:
    """The line that marks a view of a file that is not UTF-8 as shown, and edited, in `encoding` (`ambiguous`:
    shown only, since parts of it are UTF-8)."""
    if ambiguous:
        return (f"[read-only] {rel} is not UTF-8, yet parts of it are: shown as {LEGACY_ENCODINGS[encoding]}, one "
                f"character per byte; edits are refused until its bytes are repaired or converted (!iconv).")
    if encoding == WINDOWS_ENCODING:
        return (f"[cp1252] {shown_name(rel)} is not UTF-8: shown as Windows-1252 (cp1252), detected from its bytes "
                f"0x80-0x9F, one character per byte. Edits keep it cp1252; to make it UTF-8, convert it "
                f"({shell_hint(ICONV, source='CP1252', rel=rel, out=rel + '.utf8')}).")
    return (f"[latin-1] {shown_name(rel)} is not UTF-8: shown as Latin-1 (ISO-8859-1), one character per byte. Edits "
            f"keep it Latin-1; to make it UTF-8, convert it "
            f"({shell_hint(ICONV, source='LATIN1', rel=rel, out=rel + '.utf8')}).")


def decode_or_legacy(raw: bytes, rel: str) -> tuple[str, str, bool]:
    """`decode`, except that bytes which are not UTF-8 and carry no BOM are read as Latin-1 (for showing only)."""
    try:
        return decode(raw, rel)
    except StringError as exc:
        if exc.code != "ENCODING" or raw.startswith(tuple(bom for bom, _ in BOMS)):
            raise
        if C1_BYTES.search(raw) and not is_ambiguous(raw):  # parts UTF-8: shown as Latin-1, nothing guessed
            try:
                return raw.decode(WINDOWS_ENCODING), WINDOWS_ENCODING, False
            except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90 or 0x9D: not cp1252 either
                pass
        return raw.decode(LEGACY_ENCODING), LEGACY_ENCODING, False


#: A well-formed UTF-8 sequence of two to four bytes: in a file that is not UTF-8 it says part of it is, so its
#: encoding is ambiguous (a UTF-8 file with a damaged byte, or mixed encodings) and it is not edited.
#: So is a UTF-8 sequence cut short at the end (a file truncated mid-character).
UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
                           rb"|[\xc2-\xf4][\x80-\xbf]{0,2}\Z")


def is_ambiguous(raw: bytes) -> bool:
    """True for bytes that are not UTF-8 but hold UTF-8 sequences: neither reading is certain."""
    return UTF8_SEQUENCE.search(raw) is not None


def decode_for_edit(raw: bytes, rel: str) -> tuple[str, str, bool]:
    """`decode_or_legacy` for an edit: a file that is not UTF-8 but holds UTF-8 sequences is refused, since new text
    written in Latin-1 (or cp1252) there would leave it in two encodings."""
    text, encoding, bom = decode_or_legacy(raw, rel)
    if encoding in LEGACY_ENCODINGS and is_ambiguous(raw):
        raise refuse_ambiguous(rel)
    return text, encoding, bom


def refuse_ambiguous(rel: str) -> StringError:
    """An edit of a file that is not UTF-8 but holds UTF-8 sequences: refused, nothing written in a guess."""
    return StringError(
        "ENCODING",
        f"{rel} is not valid UTF-8, yet parts of it are: its encoding is ambiguous, so it is not edited; nothing "
        "was changed.",
        hint("Read it with ", Step("read", path=rel), "; repair its bytes or convert it (",
             Step("programs", command="iconv"), "), then edit it."),
    )


def decode(raw: bytes, rel: str) -> tuple[str, str, bool]:
    """(text, encoding, bom) with the file's own line endings; never substitutes U+FFFD."""
    for bom, encoding in BOMS:
        if raw.startswith(bom):
            if encoding is None:
                raise StringError("ENCODING", f"UTF-32 text is not supported: {rel}", ENCODING_HINT)
            try:
                return raw[len(bom) :].decode(encoding), encoding, True
            except UnicodeDecodeError as exc:
                raise _bad_bytes(rel, encoding, exc, len(bom)) from None
    if b"\x00" in raw[:BINARY_SNIFF]:
        raise StringError("BINARY_FILE", f"Binary file: {rel} ({len(raw)} bytes)", "Only its metadata can be shown.")
    try:
        return raw.decode("utf-8"), "utf-8", False
    except UnicodeDecodeError as exc:
        raise _bad_bytes(rel, "utf-8", exc, 0) from None


def _bad_bytes(rel: str, encoding: str, exc: UnicodeDecodeError, offset: int) -> StringError:
    bad = exc.object[exc.start : exc.start + 4].hex(" ")
    return StringError(
        "ENCODING",
        f"{rel} is not valid {encoding.upper()} (bytes {bad} at offset {exc.start + offset}); nothing was changed.",
        ENCODING_HINT,
    )


def encode(text: str, encoding: str, bom: bool, rel: str) -> bytes:
    """Strict encoding: a character the encoding cannot hold (a lone surrogate) is an ENCODING error."""
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise StringError(
            "ENCODING",
            f"Text for {shown_name(rel)} has a character {encoding.upper()} cannot hold at index {exc.start}; nothing "
            "was written.",
            None if encoding not in LEGACY_ENCODINGS else _stays(rel, encoding),
        ) from None
    if bom:
        data = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[encoding] + data
    return data


def _stays(rel: str, encoding: str) -> str:
    name = "Latin-1" if encoding == LEGACY_ENCODING else encoding
    source = "LATIN1" if encoding == LEGACY_ENCODING else encoding.upper()
    return (f"{shown_name(rel)} is {name} and stays {name}: use characters it holds, or convert it first "
            f"({shell_hint(ICONV, source=source, rel=rel, out=rel + '.utf8')}).")


def line_breaks(text: str) -> list[str]:
    return BREAK.findall(text)


def newline_style(text: str) -> tuple[str, bool]:
    """("lf" | "crlf" | "cr" | "mixed" | "none", has final newline)."""
    if "\r" not in text:  # the common case, without a regex pass over every line
        return ("lf" if "\n" in text else "none"), text.endswith("\n")
    kinds = set(line_breaks(text))
    final = bool(text) and text[-1] in "\r\n"
    if not kinds:
        return "none", final
    if len(kinds) > 1:
        return "mixed", final
    return STYLES[kinds.pop()], final


def dominant_newline(text: str, default: str = "\n") -> str:
    """The most common line ending; ties go to the one that appears first."""
    if "\r" not in text:
        return "\n" if "\n" in text else default
    breaks = line_breaks(text)
    if not breaks:
        return default
    counts: dict[str, int] = {}
    for brk in breaks:
        counts[brk] = counts.get(brk, 0) + 1
    return max(counts, key=lambda b: (counts[b], -breaks.index(b)))


def split_lines(text: str) -> list[str]:
    """Lines without their endings, in the shared model: a final line break starts no line, "" has none."""
    lines = (text.split("\n") if "\r" not in text else BREAK.split(text)) if text else []  # str.split: 8x faster
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def count_lines(text: str) -> int:
    """Lines in the shared model: every break ends a line, plus a last line without one."""
    if not text:
        return 0
    breaks = text.count("\n") if "\r" not in text else len(line_breaks(text))
    return breaks + (0 if text[-1] in "\r\n" else 1)


def line_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end without break, end with break) of every line."""
    spans = []
    pos = 0
    for match in BREAK.finditer(text):
        spans.append((pos, match.start(), match.end()))
        pos = match.end()
    if pos < len(text):
        spans.append((pos, len(text), len(text)))
    return spans


def as_lf(text: str) -> str:
    """`text` as every read shows it: each line break (`\\r\\n`, `\\r`, `\\n`) as `\\n`, so no `\\r` shows and
    text copied from a read matches an edit (an edit's old text matches any ending)."""
    return text if "\r" not in text else BREAK.sub("\n", text)


def adapt_newlines(new: str, ending: str) -> str:
    """Give `\\n`-terminated text the ending `ending`; text that already carries `\\r` was chosen on purpose."""
    if "\r" in new or ending == "\n":
        return new
    return new.replace("\n", ending)


def region_ending(text: str, start: int, end: int) -> str:
    """The line ending new text should take when it replaces `text[start:end]`: the last break inside the
    region, else the break that ends the region's line, else the one before it, else the file's dominant one."""
    inside = line_breaks(text[start:end])
    if inside:
        return inside[-1]
    after = BREAK.search(text, end)
    if after:
        return after.group(0)
    before = line_breaks(text[:start])
    if before:
        return before[-1]
    return dominant_newline(text)


def splice(text: str, start: int, end: int, new: str) -> str:
    """Replace `text[start:end]` with `new` (given with `\\n` endings); bytes outside the region never change."""
    return text[:start] + adapt_newlines(new, region_ending(text, start, end)) + text[end:]
