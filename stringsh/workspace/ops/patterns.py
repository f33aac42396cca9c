"""Search patterns for grep: a literal by default, a regular expression on request, refused or stopped when it
could take exponential time.

Python's regex engines backtrack, so a pattern such as `(a+)+$` can run for hours on one line. Two guards:
- before any file is read, a regex is checked: backreferences, lookaround, atomic groups and possessive repeats
  (which ripgrep's finite-automaton engine does not have either) and a repeat nested inside another repeat are
  refused with INVALID_PAYLOAD;
- what passes is compiled with the `regex` package (re's syntax and meaning, VERSION0), whose matching takes a
  `timeout`: each file gets REGEX_BUDGET seconds of matching, past which the search stops with TIMEOUT. `re` cannot
  be interrupted (no timeout, and signals reach only the main thread, while commands run on the daemon's), and
  overlapping alternatives under one repeat, such as `(x|xx)+$`, backtrack exponentially without any nesting.
A literal is matched with `re`: an escaped literal never backtracks.
"""

from __future__ import annotations

import re
import time
from typing import Any, NamedTuple

#: Seconds of regex matching one file may take (a timeout, not a count of steps: see the module docstring).
REGEX_BUDGET = 2.0

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

    line: Any  # re.Pattern[str] for a literal, regex.Pattern for a regex: both have .search(text, pos)
    text: Any
    #: UTF-8 bytes every match contains (a case-sensitive literal, or a regex's longest required run of literal
    #: characters): a file without them cannot match, and need not be decoded.
    needle: bytes | None = None
    #: A regex's other required runs, longest first: a file must hold each of them too.
    others: tuple[bytes, ...] = ()
    #: The source text, for messages.
    source: str = ""
    #: Whether matching needs a time budget (a regex: `regex` patterns take `timeout=`).
    timed: bool = False


class RegexTimeout(Exception):
    """A regex ran past its budget on one file (grep turns it into TIMEOUT, naming the file)."""


class Budget:
    """One file's matching time: every search of a timed query passes what is left as `timeout`."""

    __slots__ = ("deadline", "query")

    def __init__(self, query: Query) -> None:
        self.query = query
        self.deadline = time.monotonic() + REGEX_BUDGET if query.timed else 0.0

    def search(self, pattern: Any, text: str, pos: int = 0) -> Any:
        if not self.query.timed:
            return pattern.search(text, pos)
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RegexTimeout
        try:
            return pattern.search(text, pos, timeout=left)
        except TimeoutError:
            raise RegexTimeout from None


def timeout_error(query: str, rel: str) -> Exception:
    from stringsh.errors import StringError

    return StringError("TIMEOUT", f"Regex ran past its {REGEX_BUDGET:g} s budget on one file ({rel}); it may "
                       f"backtrack catastrophically: {query}",
                       "Rewrite it so no two alternatives under one repeat match the same text (x+ rather than "
                       "(x|xx)+), or search for the literal text without --regex.")


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
        return Query(literal, literal, None if ignore_case else _utf8(query), source=query)
    try:
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(query, flags)
    except re.error as exc:
        raise StringError("INVALID_PAYLOAD", f"Not a valid regex ({exc}): {query}",
                          "Fix the pattern, or leave out --regex to search for the literal text.") from None
    anchors = _check(query, tree, 0)
    import regex as timed_re  # --regex only: re's syntax, with a timeout

    try:
        compiled = timed_re.compile(query, flags | timed_re.VERSION0)
    except timed_re.error as exc:
        raise StringError("INVALID_PAYLOAD", f"Not a valid regex ({exc}): {query}",
                          "Fix the pattern, or leave out --regex to search for the literal text.") from None
    folded = ignore_case or tree.state.flags & re.IGNORECASE
    runs = () if folded else tuple(run for run in map(_utf8, _required_literals(tree)) if run)
    return Query(compiled, None if anchors else compiled, runs[0] if runs else None, runs[1:], source=query,
                 timed=True)


def _utf8(text: str) -> bytes | None:
    try:
        return text.encode("utf-8") or None
    except UnicodeEncodeError:
        return None  # a lone surrogate: no prefilter


def _required_literals(tree: Any) -> list[str]:
    """The runs of literal characters in the pattern's top-level sequence, longest first: every match holds each."""
    runs, run = [], []
    for op, value in tree:
        if str(op) == "LITERAL":
            run.append(chr(value))
            continue
        runs.append("".join(run))
        run = []
    runs.append("".join(run))
    return sorted((text for text in runs if text), key=len, reverse=True)


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


def regex_meets_mask(query: str, mask: str, *, ignore_case: bool) -> bool:
    """Whether a checked regex may match masked text where the raw text has none (grep's `meets_mask`, for a
    regex): False only when surely not. That is so when the regex has no anchor or word boundary (they look at a
    mask's neighbours), cannot consume the mask's first or last character, and is case-sensitive with a required
    literal that no run of mask characters it can consume holds: a match touching a mask would have to lie inside
    one such run, which cannot hold all the required literals, and a match touching no mask is one of the raw text
    too. Then a raw prefilter (rg's file list) stands for the masked text without naming every file a secret may be
    in. With `\\w` and `*` as the mask's ends (`***REDACTED***`), most regexes are such."""
    from re import _parser  # type: ignore[attr-defined]

    tree = _parser.parse(query, re.IGNORECASE if ignore_case else 0)
    if not mask or ignore_case or tree.state.flags & re.IGNORECASE:
        return True
    literals = _required_literals(tree)
    atoms = list(_atoms(tree, False))
    if not literals or any(op in ("AT", "?") for op, _, _ in atoms):
        return True
    eaten = {char: any(_consumes(op, value, folded, char) for op, value, folded in atoms) for char in set(mask)}
    if eaten[mask[0]] or eaten[mask[-1]]:
        return True
    runs = "".join(char if eaten[char] else "\0" for char in mask).split("\0")
    return any(all(literal in run for literal in literals) for run in runs if run)


def _atoms(items: Any, folded: bool) -> Any:
    """The parse tree's leaves as (operator name, value, case-folded): "?" for one not known here."""
    for op, value in items:
        name = str(op)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            yield from _atoms(value[2], folded)
        elif name == "SUBPATTERN":
            yield from _atoms(value[-1], folded or bool(value[1] & re.IGNORECASE))
        elif name == "BRANCH":
            for branch in value[1]:
                yield from _atoms(branch, folded)
        elif name in ("LITERAL", "NOT_LITERAL", "ANY", "IN", "AT"):
            yield name, value, folded
        else:
            yield "?", value, folded


#: The class escapes a character class may hold, as patterns (each tested with `re` and `regex`: grep matches with
#: the latter, checked with the former).
_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


def _consumes(op: str, value: Any, folded: bool, char: str) -> bool:
    """Whether a leaf may consume `char` (True when unsure)."""
    if op == "LITERAL":
        return _same(chr(value), char, folded)
    if op == "NOT_LITERAL":
        return folded or chr(value) != char
    if op != "IN":
        return True  # ANY
    for kind, item in value:
        kind = str(kind)
        if kind == "LITERAL" and not _same(chr(item), char, folded):
            continue
        if kind == "RANGE" and not any(item[0] <= ord(form) <= item[1] for form in _forms(char, folded)):
            continue
        if kind == "CATEGORY" and str(item) in _CATEGORIES:
            import regex as timed_re

            escape = _CATEGORIES[str(item)]
            if re.fullmatch(escape, char) is None and timed_re.fullmatch(escape, char, timed_re.VERSION0) is None:
                continue
        return True  # a match, NEGATE, or a kind not known here
    return False


def _forms(char: str, folded: bool) -> set[str]:
    return {char, char.lower(), char.upper(), char.casefold()} if folded else {char}


def _same(literal: str, char: str, folded: bool) -> bool:
    return literal == char or (folded and bool(_forms(literal, True) & _forms(char, True)))
