"""How a source file's symbols are shown: the outline under `/open file`, and `/open file#Symbol` as the symbol's
lines with the file's line numbers (decorators and leading comments included), windowed like any view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.render import blockids, plain

if TYPE_CHECKING:
    from stringsh.render.code.index import Symbol, SymbolIndex

#: Symbols the outline under `/open file` lists before it says how many more there are.
OUTLINE_CAP = 60


def resolve_symbol(index: SymbolIndex, path: str, block_id: str) -> Symbol:
    """The one symbol `#block_id` names: BLOCK_NOT_FOUND listing the ids, AMBIGUOUS_BLOCK for a repeated name."""
    symbol = index.resolve(block_id)
    if symbol is None:
        raise blockids.not_found(index.block_ids(), path, block_id)
    candidates = index.ambiguity(block_id)
    if candidates:
        named = [f"#{name} (line {line})" for name, line in candidates]
        raise StringError(
            "AMBIGUOUS_BLOCK",
            f"#{block_id} names {len(candidates)} symbols in {path}; nothing was done.",
            f"Name one: {blockids.capped(named)}",
        )
    return symbol


def span(symbol: Symbol) -> str:
    return f"L{symbol.start + 1}" if symbol.end - symbol.start == 1 else f"L{symbol.start + 1}-L{symbol.end}"


def outline(index: SymbolIndex, path: str, cap: int = OUTLINE_CAP) -> str:
    """`Symbols (n): …` then one `#id  kind  Lx-Ly` line per symbol (capped), and the parser's notes if any (only
    the note for a file whose parse ran out of time: it is text, without symbols)."""
    if index.unparsed:
        return index.error_note
    symbols = index.symbols
    parts: list[str] = []
    if symbols:
        shown = symbols[:cap]
        width = max(len(s.id) for s in shown) + 1
        kinds = max(len(s.kind) for s in shown)
        parts.append(f"Symbols ({len(symbols)}), open one with /open {command_word(path)}#<id>:")
        parts += [f"  #{s.id:<{width}} {s.kind:<{kinds}}  {span(s)}" for s in shown]
        if len(symbols) > cap:
            parts.append(f"  … and {len(symbols) - cap} more: /symbols * {path}")
    else:
        parts.append(f"Symbols: none found in {path}.")
    if index.error_note:
        parts.append(index.error_note)
    return "\n".join(parts)


def render_symbol(lines: list[str], symbol: Symbol, label: str, *, start: int, budget: int, command: str,
                  total: int) -> str:
    """A symbol's lines numbered as the file's; `start` (0-based file line, 0: from the top of the symbol) must
    lie inside it, `budget` cuts the window with a read-on hint."""
    first = start if start else symbol.start
    if not symbol.start <= first < symbol.end:
        raise StringError(
            "INVALID_PAYLOAD",
            f"--from {first + 1} is outside {label}, which is lines {symbol.start + 1}-{symbol.end}",
            f"Give --from {symbol.start + 1} to {symbol.end}, or read it whole: {command} {label}",
        )
    from stringsh.render.view import numbered

    body = [line.rstrip("\r") for line in lines[symbol.start : symbol.end]]
    text, index = numbered(body, first_number=symbol.start + 1, start=first - symbol.start, budget=budget)
    where = f"line {symbol.start + 1}" if symbol.end - symbol.start == 1 else \
        f"lines {symbol.start + 1}-{symbol.end}"
    content = f"{text}\n\n({symbol.kind} {symbol.qualified}, {where} of {total})"
    if index is not None:
        cut = f"{budget} lines" if budget and index == first - symbol.start + budget else \
            f"{plain.MAX_CHARS} characters"
        read_on = symbol.start + 1 + index
        content += f"\n[cut] Output limit of {cut} reached. Read on: {command} {label} --from {read_on}"
    return content
