"""What the persistent symbol index keeps of one source file, from one function (`extract`): its symbol index and
its identifier occurrences, each with a role and the symbol holding it.

Roles are what today's syntax tells: `definition` for the identifier that names a definition (the first identifier
spelled as the symbol's name inside its lines), `use` for every other one; `container` is the ordinal of the
innermost symbol whose lines hold the occurrence (the definition's parent for its own name), -1 for none. A later,
finer classification (references by scope) fills the same two columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stringsh.render.code.budget import Budget
from stringsh.render.code.index import SymbolIndex, build_symbols
from stringsh.render.code.languages import grammar

ROLE_DEFINITION = "definition"
ROLE_USE = "use"


@dataclass(frozen=True)
class Occurrence:
    """One identifier: its text, 0-based line, byte column in that line, role and containing symbol (ordinal)."""

    name: str
    line: int
    column: int  # bytes from the line's start
    role: str
    container: int  # the symbol's ordinal in SymbolIndex.rows, -1 for none


@dataclass
class Extracted:
    index: SymbolIndex
    occurrences: list[Occurrence] = field(default_factory=list)


def identifiers(text: str, language: str, data: bytes | None = None) -> list[tuple[int, int, int, int]] | None:
    """(line, byte column, start byte, end byte) of every identifier node, in source order, once each; None when
    the parse ran out of its time budget (such a file has no identifiers, as it has no symbols)."""
    loaded = grammar(language)
    data = text.encode("utf-8", "surrogatepass") if data is None else data
    budget = Budget(len(data))
    tree = budget.parse(loaded.parser(), data)
    nodes = budget.captures(loaded.identifiers, loaded.rule.identifiers, tree.root_node, "id") if tree else None
    if nodes is None:
        return None
    found = {(n.start_point.row, n.start_point.column): (n.start_byte, n.end_byte) for n in nodes}
    return [(row, column, *span) for (row, column), span in sorted(found.items())]


def extract(text: str, language: str) -> Extracted:
    """The file's symbols and identifier occurrences (roles and containers from the symbols' byte ranges)."""
    data = text.encode("utf-8", "surrogatepass")
    index = build_symbols(text, language, data)
    found = identifiers(text, language, data) if not index.unparsed else None
    if not found:
        return Extracted(index)
    rows = index.rows
    spans = [(row[5], row[6], i) for i, row in enumerate(rows)]
    named: set[int] = set()  # symbols whose name's identifier was met
    occurrences: list[Occurrence] = []
    stack: list[tuple[int, int]] = []  # (end byte, ordinal) of the symbols holding the current position
    next_symbol = 0
    for line, column, start, end in found:
        while next_symbol < len(spans) and spans[next_symbol][0] <= start:
            while stack and stack[-1][0] <= spans[next_symbol][0]:
                stack.pop()
            stack.append((spans[next_symbol][1], spans[next_symbol][2]))
            next_symbol += 1
        while stack and stack[-1][0] <= start:
            stack.pop()
        name = data[start:end].decode("utf-8", "surrogatepass")
        role, container = ROLE_USE, stack[-1][1] if stack else -1
        if stack and stack[-1][1] not in named and rows[stack[-1][1]][1] == name:
            named.add(stack[-1][1])
            role = ROLE_DEFINITION
            container = _parent(stack)
        occurrences.append(Occurrence(name, line, column, role, container))
    return Extracted(index, occurrences)


def _parent(stack: list[tuple[int, int]]) -> int:
    return stack[-2][1] if len(stack) > 1 else -1
