"""Search patterns for grep: a literal by default, a regular expression on request, refused when it could take
exponential time.

Python's `re` backtracks, so a pattern such as `(a+)+$` can run for hours on one line. Rather than a timeout
(a regex cannot be interrupted from another thread, and commands run on the daemon's threads), a regex is checked
before any file is read: backreferences, lookaround, atomic groups and possessive repeats (which ripgrep's
finite-automaton engine does not have either) and a repeat nested inside another repeat are refused with
INVALID_PAYLOAD. What is left backtracks at most polynomially.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

#: Refused parse-tree operators, and why.
UNSUPPORTED = {
    "GROUPREF": "backreferences",
    "GROUPREF_EXISTS": "conditional groups",
    "ASSERT": "lookahead/lookbehind",
    "ASSERT_NOT": "lookahead/lookbehind",
    "ATOMIC_GROUP": "atomic groups",
    "POSSESSIVE_REPEAT": "possessive repeats",
}
REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _refuse(query: str, why: str, hint: str) -> Exception:
    from stringsh.errors import StringError

    return StringError("INVALID_PAYLOAD", f"Regex not accepted ({why}): {query}", hint)


class Query(NamedTuple):
    """`line` is matched against each line; `text`, when set, against a whole file first: it finds a match
    wherever a line has one (None for a regex with anchors, whose `^`/`$` mean line ends only line by line)."""

    line: re.Pattern[str]
    text: re.Pattern[str] | None
    #: A case-sensitive literal's UTF-8 bytes: a file without them cannot match, and need not be decoded.
    needle: bytes | None = None


def compile_query(query: str, *, regex: bool, ignore_case: bool) -> Query:
    """The compiled search: a literal is escaped, a regex checked (see the module docstring)."""
    from stringsh.errors import StringError

    if not query.strip():
        raise StringError("INVALID_PAYLOAD", "Search query is empty.", "Give text to search for: /grep TEXT [path].")
    if "\n" in query or "\r" in query or "\x00" in query:
        raise StringError("INVALID_PAYLOAD", "Search query holds a line break or NUL; grep matches within one line.",
                          "Search for one line's text.")
    flags = re.IGNORECASE if ignore_case else 0
    if not regex:
        literal = re.compile(re.escape(query), flags)
        return Query(literal, literal, None if ignore_case else query.encode("utf-8", "surrogatepass"))
    try:
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(query, flags)
    except re.error as exc:
        raise StringError("INVALID_PAYLOAD", f"Not a valid regex ({exc}): {query}",
                          "Fix the pattern, or leave out --regex to search for the literal text.") from None
    anchors = _check(query, tree, 0)
    compiled = re.compile(query, flags)
    return Query(compiled, None if anchors else compiled)


def _check(query: str, items: Any, depth: int) -> bool:
    """Walk the parse tree: refuse unsupported operators and a repeat of more than one inside another; True when
    it holds a line anchor."""
    anchors = False
    for op, value in items:
        name = str(op)
        if name == "AT" and str(value) not in ("AT_BOUNDARY", "AT_NON_BOUNDARY"):
            anchors = True
        if name in UNSUPPORTED:
            raise _refuse(query, f"{UNSUPPORTED[name]} are not supported",
                          "Use plain groups, classes and repeats (the syntax ripgrep accepts too).")
        if name in REPEATS:
            _low, high, body = value
            inner = depth + (1 if high is None or high > 1 else 0)
            if inner > 1:
                raise _refuse(query, "a repeat inside a repeat can take exponential time",
                              "Repeat the group's parts instead of nesting repeats, e.g. (ab)+ rather than (a+b)+.")
            anchors |= _check(query, body, inner)
        elif name == "SUBPATTERN":
            anchors |= _check(query, value[-1], depth)
        elif name == "BRANCH":
            for branch in value[1]:
                anchors |= _check(query, branch, depth)
    return anchors
