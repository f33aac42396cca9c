"""Terminal safety: control characters in reply text shown as `\\x1b`-style text, and file names that hold one
shown quoted, so no file byte or name can drive a terminal or forge a reply line (docs/security.md).

One form everywhere: each control character becomes `\\x` and two lowercase hex digits (`\\x1b` for ESC, `\\x07`
for BEL, `\\x9b` for the C1 CSI code point, `\\x7f` for DEL), as ripgrep and `cat -v` show what a terminal must not
interpret. Tab and newline stay (they are text); a CR right before a newline stays (a CRLF file's views keep their
line ends), a bare CR is escaped (it would return the cursor and let the rest of the line overwrite it). Backslashes
are not doubled: escaping twice changes nothing, so a reply already escaped, or shell output already cleaned
(`workspace/shell/clean.py` drops these same characters), passes unchanged.

A file name that is not UTF-8 (its bytes decoded with `surrogateescape`, as Python's `os` functions give it) is
shown the same way, once, here: quoted, each byte that was not UTF-8 as `\\xHH` (`caf\\xe9.txt` is shown
`"caf\\xe9.txt"`), as git quotes such a path (git writes the byte in octal, `\\351`; stringsh keeps its one hex
form). A reply can then always be encoded, in every dialect, and the name is the same text in each of them. The
form is unambiguous: a name is quoted exactly when it holds a control, a byte that was not UTF-8, or starts with `"`
(so a shown name starting with `"` is always a quoted one), and inside the quotes `\\` and `"` are backslashed.
"""

from __future__ import annotations

import re

#: What a reply shows escaped: the controls shell output drops (`workspace/shell/clean.CONTROLS`: C0 but tab and
#: newline, DEL, C1) but a CR that ends a CRLF line, and bytes 0x80-0x9f that were not UTF-8 (kept as surrogates,
#: written out raw as C1 bytes).
SHOWN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f\udc80-\udc9f]|\r(?!\n)")
#: What a name shows escaped: every C0 control (tab and newline too), DEL and C1, which would break its line or
#: drive a terminal, and every lone surrogate (a byte that was not UTF-8, \udc80-\udcff, or a surrogate a JSON
#: client sent), which no reply can encode.
NAME_CONTROLS = re.compile(r"[\x00-\x1f\x7f\x80-\x9f\ud800-\udfff]")
#: What makes a name shown quoted: one of NAME_CONTROLS, or a `"` first (it would read as a quoted name).
NAME_QUOTED = re.compile(r'^"|[\x00-\x1f\x7f\x80-\x9f\ud800-\udfff]')
#: A lone surrogate: what UTF-8 cannot encode (a name's byte that was not UTF-8 is one of \udc80-\udcff).
SURROGATE = re.compile(r"[\ud800-\udfff]")


def hex_escape(char: str) -> str:
    """`\\xHH` for one control character; a surrogate for a byte that was not UTF-8 shows that byte (`\\xe9`),
    any other lone surrogate its code point (`\\ud800`)."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return f"\\x{code:02x}"


def escape_controls(text: str) -> str:
    """`text` with every control a terminal would act on shown as `\\xHH`; ordinary text comes back unchanged
    (the same object), and so does text already escaped."""
    if SHOWN.search(text) is None:
        return text
    return SHOWN.sub(lambda m: hex_escape(m.group(0)), text)


def shown_name(name: str) -> str:
    """A file name as a reply shows it: unchanged unless it holds a control character (a newline, ESC, a tab…) or
    a byte that was not UTF-8, or starts with `"`; then in double quotes with each of those as `\\xHH` and `\\` and
    `"` backslashed, as git quotes such paths, so one name is one line whatever it holds and every reply can encode
    it. Every listing, search, tree and message naming a path shows names through this one function."""
    if NAME_QUOTED.search(name) is None:
        return name
    inner = name.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + NAME_CONTROLS.sub(lambda m: hex_escape(m.group(0)), inner) + '"'


def names_as_is(names: list[str]) -> bool:
    """Whether `shown_name` and `json_name` give every one of `names` back as it is, in one scan of them all (a
    listing of a thousand names is one search, not two thousand). Joined by `/`, so a `"` after one is a name's
    first character; a path with a `"` after a `/` is only checked one by one (`shown_names`), never missed."""
    joined = "/" + "/".join(names)
    return '/"' not in joined and NAME_CONTROLS.search(joined) is None


def shown_names(names: list[str]) -> list[str]:
    """`shown_name` of each name (or path): `names` itself when `names_as_is` says so."""
    return names if names_as_is(names) else [shown_name(name) for name in names]


def json_name(name: str) -> str:
    """A file name as a JSON field holds it: the exact name, which the client can send back (a newline or an ESC
    is a JSON escape), unless it is not UTF-8, which no JSON text can hold; then `shown_name`'s quoted form, the
    text every other reply shows for it."""
    return name if SURROGATE.search(name) is None else shown_name(name)


#: What `json.dumps(…, ensure_ascii=False)` leaves raw of the controls: DEL and C1 (it escapes C0 itself).
JSON_RAW = re.compile(r"[\x7f-\x9f]")


def json_safe(line: str) -> str:
    """A JSON text with DEL and the C1 controls written as `\\u00XX`: the same JSON value, nothing raw left for a
    terminal (a value stays exact, e.g. a file name in the daemon's `path` field, which the client sends back)."""
    if JSON_RAW.search(line) is None:
        return line
    return JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", line)


def holds_controls(text: str) -> bool:
    """Whether a reply would show `text` with escapes (it holds a control other than tab, newline or CRLF's CR)."""
    return SHOWN.search(text) is not None
