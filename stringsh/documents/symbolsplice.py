"""Symbol edits as text: a definition's bytes replaced, or a new definition set beside one, and the checks that
the result still parses as the file did.

Only the symbol's own bytes change (decorators and leading comments are part of it): the text before it on its
first line (the indentation) stays, the body's lines are re-indented to the file's indentation, and line breaks
become the file's. Every check parses the whole new text, so a method is judged inside its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.render.code.index import Symbol, SymbolIndex, build_symbols, encode_source


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


def reindent(lines: list[str], indent: str, *, as_written: bool = False) -> list[str]:
    """Lines moved from their first line's indentation to `indent` (blank lines stay empty). `as_written`: only the
    first line moves, the others already have the file's indentation (a definition's own text, whose first line
    starts where the definition does)."""
    own = _leading(lines[0]) if lines else ""
    if as_written:
        return [indent + lines[0].lstrip(" \t"), *(line if line.strip() else "" for line in lines[1:])]
    out = []
    for line in lines:
        if not line.strip():
            out.append("")
        elif line.startswith(own):
            out.append(indent + line[len(own) :])
        else:
            out.append(indent + line.lstrip(" \t"))
    return out


def as_written(body: str, indent: str) -> bool:
    """Whether a body may be a definition's own text: its first line unindented and the others at least at the
    file's indentation (it is tried as such first: a body that does not parse that way is read relative to its
    first line)."""
    lines = body_lines(body)
    rest = [line for line in lines[1:] if line.strip()]
    return bool(indent and lines and not _leading(lines[0]) and rest and all(r.startswith(indent) for r in rest))


def symbol_indent(text: str, symbol: Symbol) -> str:
    data = encode_source(text)
    start = _offset(data, symbol.start_byte)
    return _leading(text[text.rfind("\n", 0, start) + 1 : start])


def replace_symbol(text: str, symbol: Symbol, body: str, *, written: bool = False) -> tuple[str, int, int]:
    """(new text, character where the new definition starts, its length in characters)."""
    data = encode_source(text)
    start, end = _offset(data, symbol.start_byte), _offset(data, symbol.end_byte)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    given = body_lines(body)
    if given in (body_lines(text[start:end]), body_lines(text[line_start:line_end].rstrip("\r"))):
        return text, start, end - start  # its own text, as the parser spans it or as whole lines: nothing to move
    tail = text[end:line_end].rstrip("\r").rstrip()
    if tail.strip() and given and given[-1].endswith(tail) and given[-1] != tail:
        given[-1] = given[-1][: -len(tail)].rstrip()  # whole lines sent: the rest of the last line stays the file's
    indent = _leading(text[line_start:start])
    lines = reindent(given, indent, as_written=written)
    if lines:
        lines[0] = lines[0][len(indent) :]
    segment = _newline(text, start).join(lines)
    return text[:start] + segment + text[end:], start, len(segment)


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


def insert_beside(text: str, symbol: Symbol, body: str, after: bool, language: str, *,
                  written: bool = False) -> tuple[str, int, int]:
    """(new text, 0-based line the new definition starts on, its line count): the body as a new definition
    right before or after `symbol`, with its indentation and the file's blank-line convention."""
    data = encode_source(text)
    start, end = _offset(data, symbol.start_byte), _offset(data, symbol.end_byte)
    line_start = text.rfind("\n", 0, start) + 1
    indent = _leading(text[line_start:start])
    newline = _newline(text, start)
    lines = reindent(body_lines(body), indent, as_written=written)
    block = newline.join(line.rstrip("\r") for line in lines)
    gap = blank_lines(text.split("\n"), symbol, after, language)
    if after:
        cut = text.find("\n", end)
        if cut < 0:  # the definition ends the file without a line break: none is added at the end either
            return text + newline * (gap + 1) + block, symbol.end + gap, len(lines)
        cut += 1
        return text[:cut] + newline * gap + block + newline + text[cut:], symbol.end + gap, len(lines)
    return text[:line_start] + block + newline + newline * gap + text[line_start:], symbol.start, len(lines)


def refuse(label: str, reason: str, hint: str) -> StringError:
    return StringError("INVALID_PAYLOAD", f"Refusing to edit {label}: {reason}", f"{hint} Nothing was written.")


def check_syntax(old: SymbolIndex, new: SymbolIndex, first_line: int, label: str, force_hint: str) -> None:
    """A file that parsed cleanly must still parse cleanly: else the parser's first error, as a file line and a
    body line."""
    if old.errors or not new.errors:
        return
    line, column = new.errors[0]
    inside = f" (body line {line - first_line})" if line > first_line else ""
    raise refuse(label, f"with this body the {new.language} parser finds an error at line {line}, "
                        f"column {column}{inside}, and the file had none.",
                 f"Fix the body, or write it anyway: {force_hint}.")


def checked_replace(text: str, old: SymbolIndex, symbol: Symbol, body: str, label: str, force: bool,
                    force_hint: str) -> Spliced:
    """The text with `symbol` replaced by `body`, refused unless the body is one definition of the same name and
    kind there and the file parses no worse (`force` skips both checks)."""
    if as_written(body, symbol_indent(text, symbol)):  # a definition's own text first, then read as relative
        try:
            return _checked_replace(text, old, symbol, body, label, force, force_hint, written=True)
        except StringError:
            pass
    return _checked_replace(text, old, symbol, body, label, force, force_hint, written=False)


def _checked_replace(text: str, old: SymbolIndex, symbol: Symbol, body: str, label: str, force: bool,
                     force_hint: str, *, written: bool) -> Spliced:
    new_text, start, length = replace_symbol(text, symbol, body, written=written)
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
                     f"Send the whole definition, as /edit {command_word(label)} shows it, or write it anyway: "
                     f"{force_hint}.")
    if (found.qualified, found.kind) != (symbol.qualified, symbol.kind):
        raise refuse(label, f"the body defines {found.qualified} ({found.kind}), not {wanted}.",
                     f"To add a definition use --after or --before; to write it anyway: {force_hint}.")
    if found.end_byte != end_byte:
        rest = new_text.count("\n", 0, _offset(encode_source(new_text), found.end_byte)) + 1
        raise refuse(label, f"the body is more than one definition: {wanted} ends at line {rest}, before the "
                            "body does.",
                     f"Send one definition; add others with /edit {command_word(label)} --after. To write it anyway: "
                     f"{force_hint}.")
    return spliced


def checked_insert(text: str, old: SymbolIndex, symbol: Symbol, body: str, after: bool, label: str, force: bool,
                   force_hint: str) -> Spliced:
    """The text with `body` set as a new definition beside `symbol`, refused unless it parses as one there."""
    if as_written(body, symbol_indent(text, symbol)):  # a definition's own text first, then read as relative
        try:
            return _checked_insert(text, old, symbol, body, after, label, force, force_hint, written=True)
        except StringError:
            pass
    return _checked_insert(text, old, symbol, body, after, label, force, force_hint, written=False)


def _checked_insert(text: str, old: SymbolIndex, symbol: Symbol, body: str, after: bool, label: str, force: bool,
                    force_hint: str, *, written: bool) -> Spliced:
    new_text, line, count = insert_beside(text, symbol, body, after, old.language, written=written)
    index = build_symbols(new_text, old.language)
    spliced = Spliced(new_text, index, line, 0, count)
    if force:
        return spliced
    check_syntax(old, index, line, label, force_hint)
    here = [s for s in index.symbols if s.start == line and s.depth == symbol.depth]
    if not here or here[0].end != line + count:
        raise refuse(label, f"the body does not parse as one {old.language} definition beside {symbol.qualified}.",
                     f"Send one whole definition (a function, class, …), or write it anyway: {force_hint}.")
    return spliced
