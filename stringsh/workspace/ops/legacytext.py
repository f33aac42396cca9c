"""grep in files that are not UTF-8, searched as `/open` shows them: `textio.decode_or_legacy` (Latin-1, or cp1252
when its bytes 0x80-0x9F say so), the one decoding both engines use.

The Python engine decodes every file so; its bytes test also looks for a required literal as Latin-1 and cp1252
bytes (`needles`). rg reads UTF-8 (and text behind a BOM) and sees any other byte as one no pattern character
matches: in a Latin-1 or cp1252 file it finds every match made of ASCII characters, and only those. So rg's one run
(`rg_search`) gets more patterns for a query that may match a character past ASCII there, or look at one (`\\b`):
- a literal, as its Latin-1 and its cp1252 bytes (`(?-u:\\xE9)`, each case of a letter with `-i`): exact;
- a regex, as the lines holding a byte past ASCII and its longest required ASCII literal (`wider`): every line a
  match in such a file is on holds both, so rg names the file (UTF-8 lines with both are named too: a few more
  files to read; a regex without a required literal names every file holding a byte past ASCII).
rg's files are only candidates: what is shown is decided on the text as decoded here.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from stringsh.workspace.textio import LEGACY_ENCODING, WINDOWS_ENCODING

ENCODINGS = (LEGACY_ENCODING, WINDOWS_ENCODING)
#: Regex metacharacters rg's syntax has (regex_syntax::escape's set): escaped in a literal turned regex.
RG_META = frozenset("\\.+*?()|[]{}^$#&-~")
#: A byte past ASCII, as rg's raw-byte syntax writes it.
HIGH_BYTE = "(?-u:[\\x80-\\xff])"
#: Classes that match no character past ASCII in Latin-1 or cp1252 text (\d: neither has other decimal digits).
_ASCII_CATEGORIES = frozenset({"CATEGORY_DIGIT"})


class RgSearch(NamedTuple):
    """rg's patterns for one query, and whether they are regexes (else `--fixed-strings`)."""

    patterns: tuple[str, ...]
    regex: bool


def rg_search(query: str, *, regex: bool, ignore_case: bool) -> RgSearch:
    """The patterns naming every file grep may find `query` in: the query itself, and for a Latin-1 or cp1252 file
    what rg would miss there (the module docstring)."""
    if not regex:
        if query.isascii():
            return RgSearch((query,), False)
        forms = (_as_bytes(query, encoding, ignore_case) for encoding in ENCODINGS)
        return RgSearch((_escaped(query), *dict.fromkeys(form for form in forms if form is not None)), True)
    from re import _parser  # type: ignore[attr-defined]

    tree = _parser.parse(query, 0)  # compile_query has accepted it
    if not beyond_ascii(tree):
        return RgSearch((query,), True)
    return RgSearch((query, wider(tree)), True)


def _escaped(text: str) -> str:
    return "".join("\\" + char if char in RG_META else char for char in text)


def _as_bytes(text: str, encoding: str, ignore_case: bool) -> str | None:
    """The literal as an rg regex over the raw bytes of a file in `encoding`: an ASCII character as itself, any
    other as the class of the bytes whose character Python matches to it (with `-i`, by its case folding; an ASCII
    byte too, as `K` folds to `k`). None when a character matches no byte: no file in `encoding` holds it."""
    out = []
    for char in text:
        if char.isascii():
            out.append(_escaped(char))
            continue
        one = re.compile(re.escape(char), re.IGNORECASE if ignore_case else 0)
        cases = [byte for byte in range(0x100) if one.fullmatch(_character(byte, encoding))]
        if not cases:
            return None
        out.append("(?-u:[" + "".join(f"\\x{byte:02x}" for byte in cases) + "])")
    return "".join(out)


def _character(byte: int, encoding: str) -> str:
    try:
        return bytes([byte]).decode(encoding)
    except UnicodeDecodeError:
        return ""  # a byte cp1252 leaves undefined: matches no character


def wider(tree: Any) -> str:
    """An rg regex naming each line that holds a byte past ASCII and the regex's longest required ASCII literal
    (matched ignoring ASCII case: Python's case folding pairs no ASCII letter with a Latin-1 or cp1252 one)."""
    from stringsh.workspace.ops.patterns import _required_literals

    pieces = [piece for run in _required_literals(tree) for piece in re.split(r"[^\x00-\x7f]+", run) if piece]
    if not pieces:
        return HIGH_BYTE
    literal = "(?i:" + _escaped(max(pieces, key=len)) + ")"
    return f"{HIGH_BYTE}(?-u:.*){literal}|{literal}(?-u:.*){HIGH_BYTE}"


def beyond_ascii(items: Any) -> bool:
    """Whether a parsed regex may match a character past ASCII, or test one beside a match (\\b, \\B)."""
    for op, value in items:
        name = str(op)
        if name in ("ANY", "NOT_LITERAL") or (name == "LITERAL" and value > 0x7F):
            return True
        if name == "AT" and str(value) in ("AT_BOUNDARY", "AT_NON_BOUNDARY"):
            return True
        if name == "IN" and any(_class_item_beyond(str(kind), item) for kind, item in value):
            return True
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") and beyond_ascii(value[2]):
            return True
        if name in ("SUBPATTERN", "ATOMIC_GROUP") and beyond_ascii(value[-1]):
            return True
        if name == "BRANCH" and any(beyond_ascii(branch) for branch in value[1]):
            return True
    return False


def _class_item_beyond(kind: str, item: Any) -> bool:
    return (kind == "NEGATE" or (kind == "LITERAL" and item > 0x7F) or (kind == "RANGE" and item[1] > 0x7F)
            or (kind == "CATEGORY" and str(item) not in _ASCII_CATEGORIES))


def needles(required: tuple[bytes, ...]) -> tuple[tuple[bytes, ...], ...] | None:
    """Each required literal (UTF-8 bytes, grep's bytes test) with its Latin-1 and cp1252 bytes: a file holding
    none of one literal's forms cannot match. None when every literal is ASCII (the same bytes in all three)."""
    if all(run.isascii() for run in required):
        return None
    forms = []
    for run in required:
        text = run.decode("utf-8", "surrogatepass")
        alternatives = [run, *(form for encoding in ENCODINGS if (form := _encoded(text, encoding)) is not None)]
        forms.append(tuple(dict.fromkeys(alternatives)))
    return tuple(forms)


def _encoded(text: str, encoding: str) -> bytes | None:
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        return None  # a character the encoding has not: no file in it holds the literal


def lacks(raw: bytes, forms: tuple[tuple[bytes, ...], ...]) -> bool:
    """Whether `raw` misses every form of some required literal (`needles`)."""
    return any(all(form not in raw for form in alternatives) for alternatives in forms)


def flags(patterns: tuple[str, ...], *, regex: bool, ignore_case: bool) -> tuple[str, ...]:
    """rg's flags for searching `patterns` (literals unless `regex`)."""
    return (*(() if regex else ("--fixed-strings",)), *(("--ignore-case",) if ignore_case else ()),
            *(flag for pattern in patterns for flag in ("--regexp", pattern)))
