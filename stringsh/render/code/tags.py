"""What the repository map (`/map`) needs of one source file: its definitions, each with its signature line, and
how often each identifier occurs in it (the file's uses of names, which the map's reference graph is made of).

Pure: the text, its language and how names and lines are shown (masking) come in; nothing is read, walked or
audited here (documents/repomap.py does that). Definitions are the symbol index's (index.py); identifiers are the
nodes `/symbols --refs` counts (each language's identifier node types), minus the one spelling each definition's
own name, so a definition is not its own use. Names and lines are kept as shown, secrets masked: the map ranks and
prints nothing by a secret's own characters.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from stringsh.render.code.budget import Budget
from stringsh.render.code.index import build_symbols, encode_source
from stringsh.render.code.languages import grammar

#: A signature line longer than this is cut (after masking, so a secret is never cut in half) and ends with `…`.
SIGNATURE_CHARS = 100


@dataclass(frozen=True)
class Definition:
    """One definition as the map shows it: id, name and signature as shown (masked), line 1-based."""

    id: str
    name: str
    kind: str
    line: int
    signature: str


@dataclass(frozen=True)
class FileTags:
    """A source file's definitions (source order) and its identifiers' occurrences, by name as shown."""

    path: str
    definitions: tuple[Definition, ...]
    references: dict[str, int]


def trimmed(line: str) -> str:
    """A signature as shown: the line without its indentation and trailing blanks, at most SIGNATURE_CHARS."""
    line = line.strip()
    return line if len(line) <= SIGNATURE_CHARS else line[: SIGNATURE_CHARS - 1] + "…"


def file_tags(path: str, text: str, language: str, shown: Callable[[str], str] | None = None,
              shown_text: Callable[[str], str] | None = None) -> FileTags:
    """The definitions and identifier counts of one source text. `shown` masks a name and `shown_text` a whole text
    keeping its lines (both None: nothing in the file can be masked). A file past its parse budget has neither."""
    data = encode_source(text)
    index = build_symbols(text, language, data)
    loaded = grammar(language)
    budget = Budget(len(data))
    tree = budget.parse(loaded.parser(), data)
    nodes = budget.captures(loaded.identifiers, loaded.rule.identifiers, tree.root_node, "id") if tree else None
    # (start byte, row) of each identifier, by its bytes: where each definition's own name is looked for
    spelled: dict[bytes, list[tuple[int, int]]] = {}
    for node in nodes or ():
        spelled.setdefault(data[node.start_byte : node.end_byte], []).append((node.start_byte, node.start_point.row))
    for places in spelled.values():
        places.sort()
    lines = (shown_text(text) if shown_text is not None else text).split("\n")
    own: set[int] = set()  # start bytes of the identifiers that name a definition
    definitions = []
    for i, (_qualified, name, kind, start, end, start_byte, end_byte, _depth) in enumerate(index.rows):
        places = spelled.get(name.encode("utf-8", "surrogatepass"), [])
        at = bisect.bisect_left(places, (start_byte, -1))
        row = start
        if at < len(places) and places[at][0] < end_byte:
            own.add(places[at][0])
            row = places[at][1]
        else:  # a name that is no identifier node (`operator<<`): the symbol's first line holding it, else its first
            row = next((r for r in range(start, min(end, len(lines))) if name in lines[r]), start)
        line = lines[row] if row < len(lines) else ""
        ident = index.ids[i]
        definitions.append(Definition(shown(ident) if shown else ident, shown(name) if shown else name, kind, row + 1,
                                      trimmed(line)))
    counts: Counter[str] = Counter()
    for spelling, places in spelled.items():
        uses = sum(1 for start_byte, _ in places if start_byte not in own)
        if uses:
            name = spelling.decode("utf-8", "surrogatepass")
            counts[shown(name) if shown else name] += uses
    return FileTags(path, tuple(definitions), dict(counts))
