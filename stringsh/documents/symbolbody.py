"""A definition's own lines, plain: no line numbers and no cut, masked as every read is. What a body-replacing
edit takes back whole (the JSON tool `read_symbol`, MCP `view_symbol` with `plain`), where a numbered view (`/open
path#Symbol`) stops at its line limit."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.render.code.index import Symbol, SymbolIndex
    from stringsh.workspace import TextFile, Workspace


class SymbolBody(NamedTuple):
    rel: str
    symbol: Symbol
    text: str  # its lines, "\n" between them


def symbol_source(ws: Workspace, path: str, label: str, topic: str) -> tuple[TextFile, SymbolIndex]:
    """The source file at `path` (read through the engine) and its symbols; `label` names it in a refusal."""
    from stringsh.render.code.cache import symbol_cache
    from stringsh.render.code.suffixes import language_of

    text_file = ws.read_text(path, topic=topic)
    language = language_of(text_file.rel, text_file.text)
    if language is None:
        raise StringError("BLOCK_NOT_FOUND", f"{label} is not a source file stringsh indexes",
                          "Symbols are found in Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, Ruby and "
                          "Bash files (/help symbols).")
    return text_file, symbol_cache(None).symbols(text_file.text, language, text_file.sha256)


def symbol_body(ws: Workspace, path: str, label: str, symbol_id: str, topic: str) -> SymbolBody:
    """The definition `symbol_id` of the file at `path`, with its decorators and leading comments."""
    from stringsh.render.code.views import resolve_symbol
    from stringsh.workspace import split_lines

    text_file, index = symbol_source(ws, path, label, topic)
    symbol = resolve_symbol(index, text_file.rel, symbol_id)
    lines = split_lines(ws.redact_lines(text_file.text))[symbol.start : symbol.end]
    return SymbolBody(text_file.rel, symbol, "\n".join(lines))
