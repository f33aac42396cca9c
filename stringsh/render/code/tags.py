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
import re
import sys
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.render.code.budget import Budget
from stringsh.render.code.index import build_symbols, encode_source
from stringsh.render.code.languages import grammar

if TYPE_CHECKING:
    from tree_sitter import Node, Query

#: Occurrences of a definition's name looked at for its own (bounded: a hostile file of `x.f` inside `def f` costs
#: what an ordinary one does).
NAME_CANDIDATES = 16
#: A signature line longer than this is cut (after masking, so a secret is never cut in half) and ends with `…`.
SIGNATURE_CHARS = 100


#: Kinds whose definitions inside are local (a nested function): no other file can use them by their name.
FUNCTIONS = frozenset({"function", "method", "constructor"})
#: Kinds reached as a member (`obj.name`, `T::name`): only such uses of their name count for them elsewhere.
MEMBERS = frozenset({"method", "constructor"})
#: Languages whose files reach another file's top-level name only by importing it (or as `module.name`).
IMPORTS_NAMES = frozenset({"python", "javascript", "typescript", "tsx", "rust"})
#: Languages that call a method without parentheses (`obj.run arg`): every member use may be a call.
CALLS_WITHOUT_PARENTHESES = frozenset({"ruby", "bash"})


@dataclass(frozen=True)
class Definition:
    """One definition as the map shows it: id, qualified id, name and signature as shown (masked), line 1-based;
    `reach` is "local" inside a function, "member" for a method, else ""."""

    id: str
    qualified: str
    name: str
    kind: str
    line: int
    signature: str
    reach: str = ""


@dataclass(frozen=True)
class FileTags:
    """A source file's definitions (source order) and its identifiers' occurrences by name as shown: all of them
    (`references`), those written as a member (`x.name`, `x->name`, `T::name`: `members`) and the member calls among
    them (`x.name(`, or every member use in a language that calls without parentheses: `calls`). `imported`: the
    names its imports bring in, and `scoped`: whether a bare name can only come from another file by an import (a
    language that imports names, and the file has no wildcard import)."""

    path: str
    definitions: tuple[Definition, ...]
    references: dict[str, int]
    members: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    imported: frozenset[str] = frozenset()
    scoped: bool = False


def trimmed(line: str) -> str:
    """A signature as shown: the line without its indentation and trailing blanks, at most SIGNATURE_CHARS."""
    line = line.strip()
    return line if len(line) <= SIGNATURE_CHARS else line[: SIGNATURE_CHARS - 1] + "…"


def as_member(data: bytes, start: int) -> bool:
    """Whether the identifier at `start` is written as a member: right after `.`, `->` or `::`."""
    return data[start - 1 : start] == b"." or data[max(start - 2, 0) : start] in (b"->", b"::")


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
    imports = _import_ranges(language, budget, tree.root_node) if nodes else []
    # (start byte, row) of each identifier, by its bytes: where each definition's own name is looked for
    spelled: dict[bytes, list[tuple[int, int]]] = {}
    imported: set[bytes] = set()
    for node in nodes or ():
        start_byte, end_byte = node.start_byte, node.end_byte
        if imports and _inside(imports, start_byte):
            if _module_path(data, end_byte):
                continue
            imported.add(data[start_byte:end_byte])
        spelled.setdefault(data[start_byte:end_byte], []).append((start_byte, node.start_point.row))
    for places in spelled.values():
        places.sort()
    lines = (shown_text(text) if shown_text is not None else text).split("\n")
    own: set[int] = set()  # start bytes of the identifiers that name a definition
    definitions = []
    holding: list[tuple[int, str]] = []  # (end byte, kind) of the definitions around the current one
    for i, (qualified, name, kind, start, end, start_byte, end_byte, _depth) in enumerate(index.rows):
        while holding and holding[-1][0] <= start_byte:
            holding.pop()
        reach = "local" if holding and holding[-1][1] in FUNCTIONS else "member" if kind in MEMBERS else ""
        holding.append((end_byte, kind))
        found = _name_at(spelled.get(name.encode("utf-8", "surrogatepass"), []), start_byte, end_byte, data)
        if found is not None:
            own.add(found[0])
            row = found[1]
        else:  # a name that is no identifier node (`operator<<`): the symbol's first line holding it, else its first
            row = next((r for r in range(start, min(end, len(lines))) if name in lines[r]), start)
        line = lines[row] if row < len(lines) else ""
        ident = index.ids[i]
        definitions.append(Definition(*(shown(x) if shown else x for x in (ident, qualified, name)), kind, row + 1,
                                      trimmed(line), reach))
    counts: Counter[str] = Counter()
    members: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    parenthesized = language not in CALLS_WITHOUT_PARENTHESES
    for spelling, places in spelled.items():
        uses = [start_byte for start_byte, _ in places if start_byte not in own]
        if not uses:
            continue
        name = _shown(spelling, shown)
        counts[name] += len(uses)
        member = [start_byte for start_byte in uses if as_member(data, start_byte)]
        if member:
            members[name] += len(member)
            after = len(spelling)
            called = sum(1 for b in member if data[b + after : b + after + 1] == b"(") if parenthesized else len(member)
            if called:
                calls[name] += called
    scoped = language in IMPORTS_NAMES and not any(b"*" in data[a:b] for a, b in imports)
    return FileTags(path, tuple(definitions), dict(counts), dict(members), dict(calls),
                    frozenset(_shown(name, shown) for name in imported), scoped)


def _shown(spelling: bytes, shown: Callable[[str], str] | None) -> str:
    """A name as shown, interned: the same names recur in every file a map keeps."""
    name = spelling.decode("utf-8", "surrogatepass")
    return sys.intern(shown(name) if shown else name)


def _name_at(places: list[tuple[int, int]], start: int, end: int, data: bytes) -> tuple[int, int] | None:
    """(start byte, row) of the identifier naming a definition spanning bytes [start, end): the first one spelled so
    that is not written after `.` or `@` (a decorator `@app.route` above `def route`) among the first
    NAME_CANDIDATES, else the first one."""
    at = bisect.bisect_left(places, (start, -1))
    first = None
    stop = at + NAME_CANDIDATES
    while at < min(len(places), stop) and places[at][0] < end:
        byte = places[at][0]
        if data[byte - 1 : byte] not in (b".", b"@"):
            return places[at]
        first = first or places[at]
        at += 1
    return first


_IMPORTS: dict[str, tuple[Query, frozenset[str]] | None] = {}
_IMPORTS_LOCK = threading.Lock()
#: `from a.b import c`: the module's last part is followed by the keyword.
_BEFORE_IMPORT = re.compile(rb"[ \t]+import\b")


def _import_query(language: str) -> tuple[Query, frozenset[str]] | None:
    """A query capturing the language's import statements (`import`, `from … import`, `use`, `#include`), with
    their node types; None for a language without any."""
    with _IMPORTS_LOCK:
        if language not in _IMPORTS:
            from tree_sitter import Query

            lang = grammar(language).language
            named = [lang.node_kind_for_id(i) for i in range(lang.node_kind_count) if lang.node_kind_is_named(i)]
            kinds = frozenset(kind for kind in named if kind in ("use_declaration", "preproc_include")
                              or ("import" in kind and kind.endswith(("_statement", "_declaration"))))
            query = "[" + " ".join(f"({kind})" for kind in sorted(kinds)) + "] @import"
            _IMPORTS[language] = (Query(lang, query), kinds) if kinds else None
        return _IMPORTS[language]


def _import_ranges(language: str, budget: Budget, root: Node) -> list[tuple[int, int]]:
    """The byte ranges of the text's import statements, in order."""
    found = _import_query(language)
    nodes = budget.captures(found[0], found[1], root, "import") if found else None
    return sorted((node.start_byte, node.end_byte) for node in nodes or ())


def _inside(ranges: list[tuple[int, int]], start: int) -> bool:
    at = bisect.bisect_right(ranges, (start, 1 << 62)) - 1
    return at >= 0 and ranges[at][0] <= start < ranges[at][1]


def _module_path(data: bytes, end: int) -> bool:
    """Whether an identifier of an import ending at `end` is a part of a module's path (`a` and `b` of `from a.b
    import c`, `use a::b::C`): a module's name, not a use of a definition spelled so."""
    return (data[end : end + 1] == b"." or data[end : end + 2] == b"::"
            or _BEFORE_IMPORT.match(data, end) is not None)
