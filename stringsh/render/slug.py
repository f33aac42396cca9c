"""Heading slugs and explicit heading ids exactly as String computes them (core/src/slugify.ts, extractor.ts)."""

from __future__ import annotations

from stringsh.lazyexports import lazy_pattern

# String's `\w` is JavaScript's: ASCII letters, digits and underscore only; its `\s` is Unicode whitespace.
_NOT_SLUG = lazy_pattern(r"[^A-Za-z0-9_\s-]")
_SPACES = lazy_pattern(r"\s+")
_BRACE_ID = lazy_pattern(r"\{#([A-Za-z0-9_-]+)\}")
_ATX_LINE = lazy_pattern(r"^(#{1,6})\s+(.+)$")


def string_slug(text: str) -> str:
    """Lower-case, drop what is not an ASCII word character, whitespace or `-`, trim, join whitespace runs with `-`.

    Non-ASCII letters are dropped, as String does (`Café` → `caf`).
    """
    return _SPACES.sub("-", _NOT_SLUG.sub("", text.lower()).strip())


def explicit_heading_id(text: str) -> str | None:
    """The `{#id}` (or `[]{#id}`) a heading carries, if any."""
    match = _BRACE_ID.search(text)
    return match.group(1) if match else None


def heading_slug_text(line: str, parsed_text: str) -> str:
    """The text String slugs: everything after `#… ` on an ATX line (closing hashes included), else the parsed text."""
    match = _ATX_LINE.match(line)
    return match.group(2) if match else parsed_text


def unicode_slug(text: str) -> str:
    """The slug with letters of every script kept (`Säction` → `säction`), as GitHub spells anchors; String drops
    them (`sction`), so both spellings are accepted. Whitespace is treated as String does (trimmed, runs → `-`)."""
    import unicodedata  # only for a heading that is not ASCII

    kept = "".join(
        ch for ch in unicodedata.normalize("NFC", text.lower())
        if ch.isalnum() or ch in "_-" or ch.isspace() or unicodedata.category(ch).startswith("M")
    )
    return _SPACES.sub("-", kept.strip())


def normal_id(block_id: str) -> str:
    """A typed id in the form slugs are compared in: NFC (`ä` typed as `a` + combining diaeresis is `ä`), and a
    percent-encoded anchor copied from a URL decoded (`s%C3%A4ction`); no slug or block id contains `%`."""
    if "%" in block_id:
        from urllib.parse import unquote  # only for an id copied from a URL

        block_id = unquote(block_id)
    if block_id.isascii():
        return block_id
    import unicodedata  # only for an id that is not ASCII

    return unicodedata.normalize("NFC", block_id)
