"""Whether a `.h` file is C or C++, by its content (a few passes in C over the text, no grammar loaded).

A header is C++ when, outside comments, string and character literals (as far as its lines tell), it holds a
construct C does not have: `namespace {`, `namespace N {`, `namespace N =` or `using namespace N;`, `template <`,
a `class` with a name and then `{`, `:` or `;`, an access label (`public:`, `private:`, `protected:`), `::`
between two names (outside `[[…]]` attributes, which C23 has too), `operator` and an operator before `(`
(`operator<<(`), `extern "C++"`, or an `#include <…>` of a standard header without a suffix (`<vector>`,
`<cstdint>`). A marker inside a section kept for C++ compilers (`#ifdef __cplusplus` … `#endif`) does not count.
Anything else, a plain C header with its `extern "C" {` guard and its C++-only sections included, stays C: C's
grammar reads it without the errors C++ keywords used as C names (`class`, `new`, `this`) would bring.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_CPP = (
    r'extern\s*"C\+\+"'
    r"|namespace\s*\{|namespace\s+[A-Za-z_]\w*\s*(?:::\s*[A-Za-z_]\w*\s*)*[{=;]"
    r"|template\s*<"
    r"|class\s+[A-Za-z_]\w*\s*(?:final\s*)?[{:;]"
    r"|(?:public|private|protected)\s*:(?!:)"
    r"|[A-Za-z_]\w*\s*::\s*~?[A-Za-z_]"
    r"|operator\s*(?:[-+*/%^&|~!=<>,]{1,3}|\(\s*\)|\[\s*\])\s*\("
    r"|\#[ \t]*include[ \t]*<[\w/]+>"
)
#: The bytes of text searched for the words at a time.
_WINDOW = 1 << 15
#: Each marker holds one of these words: they are found first (`str.find`, in C: a regular expression of
#: alternatives costs twenty times more per byte), and only they are looked at.
_HINTS = ("extern", "namespace", "template", "class", "public", "private", "protected", "::", "operator", "include")
_MARKER = re.compile(_CPP)
#: How far back from a word its marker may start (the name before `::`, the `#` before `include`), and how much
#: of its line is read to tell whether it is inside a line comment, a literal or an attribute.
_BACK = 256
#: A conditional directive (the `#` must start its line: checked after, `^` costs a test at every byte).
_DIRECTIVE = re.compile(r"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)")


def header_language(text: str) -> str:
    """"cpp" for a header holding C++ (the rule above), else "c"."""
    literals = _Literals(text)
    only_cpp: list[tuple[int, int]] | None = None
    for found, word in _hints(text):
        at = _marker_start(text, found, word)
        if at is None or (at > 0 and _word(text[at - 1])) or not _MARKER.match(text, at):
            continue
        if literals.inside(at):
            continue
        only_cpp = _cplusplus_sections(text) if only_cpp is None else only_cpp
        if not any(low <= at < high for low, high in only_cpp):
            return "cpp"
    return "c"


def _hints(text: str) -> Iterator[tuple[int, str]]:
    """Where each of the markers' words is, in text order (the literals are read front to back), a window at a
    time: a C++ header is known by its first lines."""
    for start in range(0, len(text), _WINDOW):
        end = start + _WINDOW
        found = []
        for word in _HINTS:
            at = text.find(word, start, end + len(word) - 1)  # a word starting in the window
            while at >= 0:
                found.append((at, word))
                at = text.find(word, at + 1, end + len(word) - 1)
        yield from sorted(found)


def _cplusplus_sections(text: str) -> list[tuple[int, int]]:
    """The spans a C header keeps for C++ compilers: `#ifdef __cplusplus`, `#if defined(__cplusplus)` or
    `#if __cplusplus >= …` up to its `#else`, `#elif` or `#endif`, and the `#else` of `#ifndef __cplusplus`."""
    sections = []
    stack: list[tuple[bool, bool, int]] = []  # (this branch is C++ only, the #else would be, where it starts)
    for directive in _DIRECTIVE.finditer(text):
        line = _back(text, directive.start(), " \t")
        if line > 0 and text[line - 1] != "\n":
            continue
        word, rest = directive.group(1), directive.group(2)
        named = "__cplusplus" in rest
        if word in ("if", "ifdef", "ifndef"):
            negated = word == "ifndef" or "!" in rest
            stack.append((named and not negated, named and negated, directive.end()))
            continue
        if not stack:
            continue
        positive, flipped, start = stack.pop()
        if positive:
            sections.append((start, directive.start()))
        if word != "endif":
            stack.append((word == "else" and flipped, False, directive.end()))
    sections += [(start, len(text)) for positive, _, start in stack if positive]
    return sections


class _Literals:
    """Whether a place is inside a comment, a literal or a `[[…]]` attribute, read near it rather than from the
    start of the text: the block comment last found is remembered, so each byte is looked back over once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.comment = (-1, -1)  # the span of the last block comment found

    def inside(self, at: int) -> bool:
        text = self.text
        low, high = self.comment
        if low <= at < high:
            return True
        opened = text.rfind("/*", max(high, 0), at)
        if opened >= 0:
            closed = text.find("*/", opened + 2)
            self.comment = (opened, len(text) if closed < 0 else closed + 2)
            if at < self.comment[1]:
                return True
        line = text[text.rfind("\n", max(0, at - _BACK), at) + 1 : at]
        plain = line.replace("\\\\", "").replace('\\"', "").replace("\\'", "")
        return ("//" in line or plain.count('"') % 2 == 1 or plain.count("'") % 2 == 1
                or line.rfind("[[") > line.rfind("]]"))


def _marker_start(text: str, at: int, word: str) -> int | None:
    """Where the marker holding `word` at `at` starts: the name before a `::`, the `#` of an `#include` that
    starts its line; None when there is none."""
    if word == "::":
        at = _back(text, at, " \t\r\n")
        name = at
        while name > 0 and at - name < _BACK and _word(text[name - 1]):
            name -= 1
        return name if name < at else None
    if word == "include":
        at = _back(text, at, " \t")
        if at == 0 or text[at - 1] != "#":
            return None
        line = _back(text, at - 1, " \t")
        return at - 1 if line == 0 or text[line - 1] == "\n" else None
    return at


def _back(text: str, at: int, blanks: str) -> int:
    """`at` moved back over the blanks right before it (at most _BACK of them)."""
    stop = max(0, at - _BACK)
    while at > stop and text[at - 1] in blanks:
        at -= 1
    return at


def _word(char: str) -> bool:
    return char.isalnum() or char in "_$"
