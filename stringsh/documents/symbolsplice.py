"""Symbol edits as text: a definition's bytes replaced, or a new definition set beside one, and the checks that
the result still parses as the file did.

Only the symbol's own bytes change (decorators and leading comments are part of it): the text before it on its
first line (the indentation) stays, the body's code lines are re-indented to the file's indentation, and line
breaks become the file's. A line that starts inside a string, heredoc, template literal or comment, or holds a
preprocessor directive, is not code at the definition's level: it stays exactly as sent (the parse of the file with
the body in place says which those are, render/code/literals.py). Every check parses the whole new text, so a method
is judged inside its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from stringsh.errors import Step, StringError, hint
from stringsh.render.code.index import Symbol, SymbolIndex, build_symbols, encode_source
from stringsh.render.code.literals import INDENTED, verbatim_rows


@dataclass(frozen=True)
class Spliced:
    """A symbol edit as text: the new text and index, the first line changed, and lines replaced and written."""

    text: str
    index: SymbolIndex
    line: int  # 0-based first line of the new definition
    old_count: int
    new_count: int


def _offset(data: bytes, byte: int) -> int:
    """The character offset of a byte offset into `data` (the text's UTF-8 encoding)."""
    return len(data[:byte].decode("utf-8", "surrogatepass"))


def _newline(text: str, at: int) -> str:
    """The line ending of the line holding character `at` (else of the file's first line)."""
    end = text.find("\n", at)
    if end < 0:
        end = text.find("\n")
    return "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def body_lines(body: str) -> list[str]:
    """The body's lines without line endings, leading blank lines and trailing blank space."""
    lines = body.replace("\r\n", "\n").rstrip(" \t\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def reindent(lines: list[str], indent: str, *, as_written: bool = False,
             kept: frozenset[int] = frozenset()) -> list[str]:
    """Lines moved from their first line's indentation to `indent` (blank lines stay empty). `as_written`: only the
    first line moves, the others already have the file's indentation (a definition's own text, whose first line
    starts where the definition does). The lines numbered in `kept` (inside a string, heredoc or comment, or a
    preprocessor directive) stay exactly as sent."""
    if not lines:
        return []
    own = _leading(lines[0])

    def moved(line: str) -> str:
        if not line.strip():
            return ""
        if as_written:
            return line
        return indent + (line[len(own) :] if line.startswith(own) else line.lstrip(" \t"))

    rest = (line if i in kept else moved(line) for i, line in enumerate(lines[1:], 1))
    return [indent + lines[0].lstrip(" \t"), *rest]


def as_written(lines: list[str], indent: str, kept: frozenset[int] = frozenset()) -> bool:
    """Whether a body may be a definition's own text: its first line unindented and its other code lines at least at
    the file's indentation (it is tried as such first: a body that does not parse that way is read relative to its
    first line). Lines in `kept` are not code at the definition's level (a heredoc's text at column 0)."""
    rest = [line for i, line in enumerate(lines[1:], 1) if line.strip() and i not in kept]
    return bool(indent and lines and not _leading(lines[0]) and rest and all(r.startswith(indent) for r in rest))


@dataclass(frozen=True)
class _Site:
    """Where a body goes: its lines as sent, the file's indentation there, the 0-based line its first line lands on,
    how lines at that indentation become the new text, and which of its lines stay exactly as sent."""

    given: list[str]
    indent: str
    row: int
    place: Callable[[list[str]], tuple[str, int, int]]
    kept: frozenset[int] = frozenset()

    def with_kept(self, language: str) -> _Site:
        """The site knowing which lines are not code at the definition's level, as the parse of the file with the
        body in place says (the body as sent, or re-indented where the grammar reads indentation): only asked when
        re-indenting would change a line."""
        given = self.given
        moved = reindent(given, self.indent)
        if moved[1:] == given[1:]:
            return self
        trial = moved if language in INDENTED else [moved[0], *given[1:]]
        rows = verbatim_rows(self.place(trial)[0], language, self.row + 1, self.row + len(given))
        return replace(self, kept=frozenset(row - self.row for row in rows))

    def splice(self, written: bool) -> tuple[str, int, int]:
        return self.place(reindent(self.given, self.indent, as_written=written, kept=self.kept))

    @property
    def written(self) -> bool:
        return as_written(self.given, self.indent, self.kept)


def _replace_site(text: str, symbol: Symbol, body: str, language: str) -> _Site:
    """Replacing the symbol's bytes: `place` gives (new text, character where the new definition starts, its
    length in characters)."""
    data = encode_source(text)
    start, end = _offset(data, symbol.start_byte), _offset(data, symbol.end_byte)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    given = body_lines(body)
    if given in (body_lines(text[start:end]), body_lines(text[line_start:line_end].rstrip("\r"))):
        # its own text, as the parser spans it or as whole lines: nothing to move
        return _Site([], "", symbol.start, lambda _lines: (text, start, end - start))
    tail = text[end:line_end].rstrip("\r").rstrip()
    if tail.strip() and given and given[-1].endswith(tail) and given[-1] != tail:
        given[-1] = given[-1][: -len(tail)].rstrip()  # whole lines sent: the rest of the last line stays the file's
    indent = _leading(text[line_start:start])
    newline = _newline(text, start)

    def place(lines: list[str]) -> tuple[str, int, int]:
        segment = newline.join([lines[0][len(indent) :], *lines[1:]] if lines else [])
        return text[:start] + segment + text[end:], start, len(segment)

    return _Site(given, indent, text.count("\n", 0, start), place).with_kept(language)


def blank_lines(lines: list[str], symbol: Symbol, after: bool, language: str) -> int:
    """The file's convention beside this definition: the blank lines between it and the next (or previous)
    code, else two at the top level of Python and one elsewhere."""
    indent = len(_leading(lines[symbol.start]))

    def run(indices: range, sibling: Callable[[int], bool]) -> int | None:
        """Blank lines up to the next code, when that code is a sibling's (`sibling(its indentation)`)."""
        for count, i in enumerate(indices):
            if lines[i].strip():
                return count if sibling(len(_leading(lines[i]))) else None
        return None

    below = run(range(symbol.end, len(lines)), lambda width: width == indent)
    above = run(range(symbol.start - 1, -1, -1), lambda width: width >= indent and symbol.start > 0)
    first, second = (below, above) if after else (above, below)
    for found in (first, second):
        if found is not None:
            return min(found, 3)
    return 2 if language == "python" and symbol.depth == 0 else 1


def _insert_site(text: str, symbol: Symbol, body: str, after: bool, language: str) -> _Site:
    """A new definition beside the symbol: `place` gives (new text, 0-based line it starts on, its line count)."""
    data = encode_source(text)
    start, end = _offset(data, symbol.start_byte), _offset(data, symbol.end_byte)
    line_start = text.rfind("\n", 0, start) + 1
    indent = _leading(text[line_start:start])
    newline = _newline(text, start)
    gap = blank_lines(text.split("\n"), symbol, after, language)
    cut = text.find("\n", end) + 1 if after else line_start

    def place(lines: list[str]) -> tuple[str, int, int]:
        block = newline.join(line.rstrip("\r") for line in lines)
        if not after:
            return text[:line_start] + block + newline + newline * gap + text[line_start:], symbol.start, len(lines)
        if not cut:  # the definition ends the file without a line break: none is added at the end either
            return text + newline * (gap + 1) + block, symbol.end + gap, len(lines)
        return text[:cut] + newline * gap + block + newline + text[cut:], symbol.end + gap, len(lines)

    return _Site(body_lines(body), indent, symbol.end + gap if after else symbol.start, place).with_kept(language)


def refuse(label: str, reason: str, *advice: str | Step) -> StringError:
    return StringError("INVALID_PAYLOAD", f"Refusing to edit {label}: {reason}", hint(*advice, " Nothing was written."))


def check_syntax(old: SymbolIndex, new: SymbolIndex, first_line: int, label: str, force_hint: Step) -> None:
    """A file that parsed cleanly must still parse cleanly: else the parser's first error, as a file line and a
    body line."""
    if old.errors or not new.errors:
        return
    line, column = new.errors[0]
    inside = f" (body line {line - first_line})" if line > first_line else ""
    raise refuse(label, f"with this body the {new.language} parser finds an error at line {line}, "
                        f"column {column}{inside}, and the file had none.",
                 "Fix the body, or write it anyway: ", force_hint, ".")


def _reading(site: _Site, force: bool, attempt: Callable[[bool, bool], Spliced]) -> Spliced:
    """The edit as the first reading of the body that passes the checks (`attempt(written, forced)`): a
    definition's own text first, when it may be one, then relative to its first line. `force` skips the checks,
    not the reading: it writes the first reading that gives one definition parsing no worse, whatever its name (else
    the first reading, unchecked); unforced, the last reading's refusal stands."""
    readings = (True, False) if site.written else (False,)
    for written in readings:
        try:
            return attempt(written, False)
        except StringError:
            if not force and written == readings[-1]:
                raise
    return attempt(readings[0], True)


def checked_replace(text: str, old: SymbolIndex, symbol: Symbol, body: str, label: str, force: bool,
                    force_hint: Step) -> Spliced:
    """The text with `symbol` replaced by `body`, refused unless the body is one definition of the same name and
    kind there and the file parses no worse (`force` skips both checks)."""
    site = _replace_site(text, symbol, body, old.language)
    return _reading(site, force, lambda written, forced: _checked_replace(
        text, old, symbol, site, label, forced, force_hint, written=written, same=not force))


def _checked_replace(text: str, old: SymbolIndex, symbol: Symbol, site: _Site, label: str, force: bool,
                     force_hint: Step, *, written: bool, same: bool = True) -> Spliced:
    """The checked replacement; `same`: the definition must have the symbol's name and kind."""
    new_text, start, length = site.splice(written)
    index = build_symbols(new_text, old.language)
    first_line = new_text.count("\n", 0, start)
    new_count = new_text.count("\n", start, start + length) + 1
    spliced = Spliced(new_text, index, first_line, symbol.end - symbol.start, new_count)
    if force:
        return spliced
    check_syntax(old, index, first_line, label, force_hint)
    end_byte = symbol.start_byte + len(encode_source(new_text[start : start + length]))
    here = [s for s in index.symbols if s.start_byte == symbol.start_byte]
    found = min(here, key=lambda s: s.depth) if here else None
    wanted = f"{symbol.qualified} ({symbol.kind})"
    if found is None:
        raise refuse(label, f"the body does not parse as a definition of {wanted}.",
                     "Send the whole definition, as ", Step("view", target=label), " shows it, or write it anyway: ",
                     force_hint, ".")
    if same and (found.qualified, found.kind) != (symbol.qualified, symbol.kind):
        raise refuse(label, f"the body defines {found.qualified} ({found.kind}), not {wanted}.",
                     "To add a definition use ", Step("beside", target=label), "; to write it anyway: ", force_hint,
                     ".")
    if found.end_byte != end_byte:
        rest = new_text.count("\n", 0, _offset(encode_source(new_text), found.end_byte)) + 1
        raise refuse(label, f"the body is more than one definition: {wanted} ends at line {rest}, before the "
                            "body does.",
                     "Send one definition; add others with ", Step("edit", target=label, where="--after"),
                     ". To write it anyway: ", force_hint, ".")
    return spliced


def checked_insert(text: str, old: SymbolIndex, symbol: Symbol, body: str, after: bool, label: str, force: bool,
                   force_hint: Step) -> Spliced:
    """The text with `body` set as a new definition beside `symbol`, refused unless it parses as one there."""
    site = _insert_site(text, symbol, body, after, old.language)
    return _reading(site, force, lambda written, forced: _checked_insert(
        old, symbol, site, label, forced, force_hint, written=written))


def _checked_insert(old: SymbolIndex, symbol: Symbol, site: _Site, label: str, force: bool, force_hint: Step, *,
                    written: bool) -> Spliced:
    new_text, line, count = site.splice(written)
    index = build_symbols(new_text, old.language)
    spliced = Spliced(new_text, index, line, 0, count)
    if force:
        return spliced
    check_syntax(old, index, line, label, force_hint)
    here = [s for s in index.symbols if s.start == line and s.depth == symbol.depth]
    if not here or here[0].end != line + count:
        raise refuse(label, f"the body does not parse as one {old.language} definition beside {symbol.qualified}.",
                     "Send one whole definition (a function, class, …), or write it anyway: ", force_hint, ".")
    return spliced
