"""The repository map's ranking and layout (`/map`), pure: definitions ranked by the reference graph, then the best
of them laid out by file within a token budget.

The graph is Aider's repo map's idea: its nodes are source files, and a file that uses a name (an identifier
spelled so, tags.py) has an edge to each other file defining that name, weighted by the square root of how often it
uses it, shared among the files defining it; a name starting with `_` or defined in more than `COMMON_NAME_FILES`
files weighs a tenth, and one defined in more than `UNINFORMATIVE_NAME_FILES` makes no edge. Which uses count
(tags.py tells them apart by syntax alone): for a method, calls written as a member (`x.name(`, `T::name(`); for
another definition, every use, except in a file of a language that imports names (Python, JavaScript, TypeScript,
Rust) that does not import the name: there only the uses written as a member (`module.name`). A use written as a
member weighs `QUALIFIED_WEIGHT`: it may as well be another type's member spelled so. A definition inside a function
has none (it is local). A function's overloads (one qualified id) are one entry, its first. PageRank
(damping `DAMPING`) runs over it, its random jump landing on every file alike, or mostly (`FOCUS_SHARE`) on the
focus files when some are given; each file's rank then flows along its edges to the definitions they point at, in
proportion to their weights, and a focus file's rank to its own definitions (shared alike among their names: what
was asked about comes first). Definitions are ordered by that score, then by their file's rank (so unreferenced ones
of important files come before others), then by how often their own file uses them, then by path and line.

The layout keeps the longest prefix of that order whose text fits the budget, estimated as `CHARS_PER_TOKEN`
characters a token (rounded up), grouped by file: files in the order of their best definition, definitions in line
order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from stringsh.escapes import shown_name
from stringsh.render.code.tags import Definition, FileTags

DAMPING = 0.85
#: A name defined in more files than this is too common to say much (`get`, `run`, `__init__`): it weighs a tenth.
COMMON_NAME_FILES = 5
#: A name defined in more files than this (`handle`, `__init__` in a big tree) tells nothing of which is meant: its
#: uses make no edges (which also keeps the graph's size linear in the tree's).
UNINFORMATIVE_NAME_FILES = 25
#: What a use written as a member (`x.name`) weighs: a method's call, or a top-level definition's `module.name` in a
#: file that does not import the name (Python, JavaScript, TypeScript, Rust); as likely another type's member.
QUALIFIED_WEIGHT = 0.1
#: The share of PageRank's random jump that lands on the focus files when some are given.
FOCUS_SHARE = 0.9
#: The documented token estimate: one token per this many characters of the map's text, rounded up.
CHARS_PER_TOKEN = 4
_ITERATIONS = 100
_TOLERANCE = 1e-10


def tokens(text: str) -> int:
    """The token estimate of a text: its characters / CHARS_PER_TOKEN, rounded up (no tokenizer)."""
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Ranked:
    path: str
    definition: Definition
    score: float  # the share of PageRank its name's references brought it (0 when nothing uses it)
    file_rank: float
    own_uses: int  # how often its own file uses its name


def name_weight(name: str, defining_files: int) -> float:
    """What one use of `name` weighs on the edge to each of the files defining it: shared among them, a tenth for a
    private name or one defined in more than COMMON_NAME_FILES files, nothing past UNINFORMATIVE_NAME_FILES."""
    if defining_files > UNINFORMATIVE_NAME_FILES:
        return 0.0
    weight = 1.0 / defining_files
    if name.startswith("_"):
        weight *= 0.1
    if defining_files > COMMON_NAME_FILES:
        weight *= 0.1
    return weight


def pagerank(edges: Sequence[dict[int, float]], personal: Sequence[float]) -> list[float]:
    """PageRank by power iteration: `edges[i]` maps each node i links to to the edge's weight; `personal` (summing
    to 1) is where a random jump lands, and where a node without edges sends its rank."""
    count = len(personal)
    out = [sum(links.values()) for links in edges]
    rank = list(personal)
    for _ in range(_ITERATIONS):
        dangling = DAMPING * sum(rank[i] for i in range(count) if out[i] <= 0)
        new = [(1 - DAMPING + dangling) * p for p in personal]
        for i, links in enumerate(edges):
            if out[i] > 0:
                share = DAMPING * rank[i] / out[i]
                for j, weight in links.items():
                    new[j] += share * weight
        change = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if change < _TOLERANCE * max(count, 1):
            break
    return rank


def rank_definitions(files: Sequence[FileTags], focus: set[str] | None = None) -> list[Ranked]:
    """Every definition of `files`, best first (see the module's docstring); `focus`: paths the ranking is
    personalized toward (None, empty or every file: every file alike)."""
    if focus and all(tags.path in focus for tags in files):
        focus = None
    # name -> (file defining it, whether only as a member there: then only `x.name` uses reach it)
    defining: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for i, tags in enumerate(files):
        kinds: dict[str, bool] = {}
        for d in tags.definitions:
            if d.reach != "local":
                kinds[d.name] = kinds.get(d.name, True) and d.reach == "member"
        for name, member in kinds.items():
            defining[name].append((i, member))
    uses: list[dict[tuple[int, str], float]] = []  # per using file: (defining file, name) -> the edge's weight
    own: dict[tuple[int, str], int] = {}  # (file, name) -> how often the file uses its own definition
    for i, tags in enumerate(files):
        found: dict[tuple[int, str], float] = {}
        for name, count in tags.references.items():
            definers = defining.get(name, ())
            weight = name_weight(name, len(definers)) if definers else 0.0
            if not tags.scoped or name in tags.imported:
                reached = math.sqrt(count)
            else:  # only as `x.name`: a module's, maybe, or as likely another type's member spelled so
                reached = QUALIFIED_WEIGHT * math.sqrt(tags.members.get(name, 0))
            for j, member in definers:
                uses_here = QUALIFIED_WEIGHT * math.sqrt(tags.calls.get(name, 0)) if member else reached
                if i == j:
                    own[(i, name)] = count
                elif weight and uses_here:
                    found[(j, name)] = weight * uses_here
        uses.append(found)
    edges: list[dict[int, float]] = []
    for found in uses:
        links: dict[int, float] = defaultdict(float)
        for (j, _name), weight in found.items():
            links[j] += weight
        edges.append(dict(links))
    rank = pagerank(edges, personalization(files, focus)) if files else []
    score: dict[tuple[int, str], float] = defaultdict(float)
    for i, found in enumerate(uses):
        total = sum(found.values())
        for key, weight in found.items():
            score[key] += rank[i] * weight / total
    for j, tags in enumerate(files):  # a focus file's definitions count as used by the focus: its rank, shared
        if focus and tags.path in focus:
            names = dict.fromkeys(d.name for d in tags.definitions)
            for name in names:
                score[(j, name)] += rank[j] / len(names)
    ranked = [Ranked(tags.path, d, score.get((j, d.name), 0.0) if d.reach != "local" else 0.0, rank[j],
                     own.get((j, d.name), 0))
              for j, tags in enumerate(files) for d in _distinct(tags.definitions)]
    ranked.sort(key=lambda r: (-r.score, -r.file_rank, -r.own_uses, r.path, r.definition.line))
    return ranked


def _distinct(definitions: Sequence[Definition]) -> list[Definition]:
    """The first of each qualified id (one line for a function's overloads or `#ifdef` variants)."""
    seen: set[str] = set()
    return [d for d in definitions if not (d.qualified in seen or seen.add(d.qualified))]  # type: ignore[func-returns-value]


def personalization(files: Sequence[FileTags], focus: set[str] | None) -> list[float]:
    """Where PageRank's random jump lands: FOCUS_SHARE of it on the focus files (alike), the rest on every file
    alike; every file alike without a focus."""
    count = len(files)
    focused = [i for i, tags in enumerate(files) if focus and tags.path in focus]
    if not focused or not count:
        return [1 / count] * count if count else []
    personal = [(1 - FOCUS_SHARE) / count] * count
    for i in focused:
        personal[i] += FOCUS_SHARE / len(focused)
    return personal


@dataclass
class MapView:
    """The laid-out map: its lines, the definitions shown (rank order), the files they are in, the token estimate."""

    lines: list[str]
    shown: list[Ranked]
    files: int
    tokens: int

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def symbol_line(definition: Definition) -> str:
    """`  L<line> <signature>`, and `  #<id>` after it when the id is not the bare name (`#Parser.parse`, `#f-1`):
    what `/open path#id` takes."""
    line = f"  L{definition.line} {definition.signature}".rstrip()
    return line if definition.id == definition.name else f"{line}  #{definition.id}"


def layout(ranked: Sequence[Ranked], budget: int) -> MapView:
    """The longest prefix of `ranked` whose layout's text is at most `budget` tokens by `tokens`."""
    limit = budget * CHARS_PER_TOKEN
    size = -1  # characters of the text so far: each line and a line break between lines
    paths: set[str] = set()
    taken: list[Ranked] = []
    for entry in ranked:
        more = len(symbol_line(entry.definition)) + 1
        if entry.path not in paths:
            more += len(shown_name(entry.path)) + 2  # `path:` and its line break
        if size + more > limit:
            break
        size += more
        paths.add(entry.path)
        taken.append(entry)
    order = list(dict.fromkeys(entry.path for entry in taken))
    grouped: dict[str, list[Ranked]] = {path: [] for path in order}
    for entry in taken:
        grouped[entry.path].append(entry)
    lines: list[str] = []
    for path in order:
        lines.append(f"{shown_name(path)}:")
        lines += [symbol_line(entry.definition)
                  for entry in sorted(grouped[path], key=lambda e: (e.definition.line, e.definition.id))]
    view = MapView(lines, taken, len(order), 0)
    view.tokens = tokens(view.text)
    return view
