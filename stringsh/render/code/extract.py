"""What the persistent symbol index keeps of one source file, from one function (`extract`): its symbol index and
every identifier's occurrence as `--refs` reports it (render/code/occurrences.py: the role by scope, the
containing symbol's id, what a qualified or member access reaches through), so a warm `--refs` reads rows instead
of parsing the file again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stringsh.render.code.index import SymbolIndex, build_symbols
from stringsh.render.code.occurrences import Occurrence, occurrences


@dataclass
class Extracted:
    index: SymbolIndex
    occurrences: list[Occurrence] = field(default_factory=list)


def extract(text: str, language: str) -> Extracted:
    """The file's symbols and identifier occurrences (none when the parse ran out of its time budget: such a file
    has no symbols either)."""
    index = build_symbols(text, language)
    if index.unparsed:
        return Extracted(index)
    return Extracted(index, occurrences(text, language, index.symbols))
