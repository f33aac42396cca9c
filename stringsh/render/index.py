"""The block index of a document: what `path#block` resolves to, as line ranges of the source.

Built once per content hash (see cache.py) from the line scanner and the SFMD scans; plain tuples throughout so the
index serialises to a cheap `marshal` blob. Lines are 0-based and ends exclusive, like markdown-it's `Token.map`.
"""

from __future__ import annotations

import marshal
from bisect import bisect_left
from operator import itemgetter
from typing import Any, NamedTuple

from stringsh.render import sfmd
from stringsh.render.record import Record
from stringsh.render.slug import explicit_heading_id, heading_slug_text, normal_id, string_slug, unicode_slug

INDEX_VERSION = 8  # bumped whenever the index finds different blocks or actions or is stored differently: old disk
# entries are not reused


class Block(NamedTuple):
    """A resolved block. `start`/`end` bound what is shown and replaced; `head` lines stay on a block edit."""

    id: str
    kind: str  # "marker" or "heading"
    start: int  # marker: the line after `<!-- #id -->`; heading: the heading's first line
    end: int  # marker: the `<!-- /id -->` line; heading: the next heading of the same or higher level, or EOF
    head: int = 0  # heading: lines the heading itself takes (1, or more for a setext heading)
    level: int = 0


class DocIndex(Record):
    """Everything the commands need to know about a markdown document without re-reading it.

    The first group of fields is what a scan finds, each entry carrying its line; the second is derived from it
    (`derive`), so a block edit can re-scan a few lines and shift the rest (`update_index`).
    """

    line_count: int
    front_matter_end: int
    front_matter: dict[str, Any]
    #: (line, end, level, text, explicit id or "", slug)
    headings: list[tuple[int, int, int, str, str, str]]
    #: (start, end, info, indent) of fenced code blocks
    fences: list[tuple[int, int, str, int]]
    #: (start, end) of every code range (fences, indented code, front matter): SFMD syntax there is an example
    code: list[tuple[int, int]]
    #: (kind "#" or "/", id, line) of every block marker line outside code
    marker_lines: list[tuple[str, str, int]]
    #: (name, url, line) of reference definitions
    reference_lines: list[tuple[str, str, int]]
    menus: list[tuple[str, str, int]]
    includes: list[tuple[str, str, int]]
    #: (id as written, label, href, line) of `[@id Label](href)` links
    shortcut_lines: list[tuple[str, str, str, int]]
    #: (id, METHOD, target, start, end)
    actions: list[tuple[str, str, str, int, int]]
    #: (path, line) of `[!requirements](path)` lines
    requirement_lines: list[tuple[str, int]]
    # -- derived --
    #: (id, open line, close line) of explicit `<!-- #id -->` blocks, by open line
    markers: list[tuple[str, int, int]]
    references: dict[str, str]
    #: (id, label, href, line) with repeated ids numbered
    shortcuts: list[tuple[str, str, str, int]]
    warnings: list[str]
    #: one per heading: its explicit id, else its distinct slug id (`changes-1`), else "" (see blockids.py)
    heading_ids: list[str]
    #: every name a heading answers to by slug (bare, numbered, Unicode spelling) → those headings, in order
    heading_names: dict[str, list[int]]

    def __init__(self, line_count: int = 0, front_matter_end: int = 0, **fields: Any) -> None:
        """Every other field by keyword, each an empty list or dict when not given."""
        self.line_count = line_count
        self.front_matter_end = front_matter_end
        for name in self._fields[2:]:
            setattr(self, name, fields.pop(name) if name in fields else {} if name in self._DICTS else [])
        if fields:
            raise TypeError(f"DocIndex has no field {sorted(fields)[0]!r}")

    def derive(self) -> DocIndex:
        self.markers, self.warnings = sfmd.pair_markers(self.marker_lines)
        self.references = sfmd.references_of(self.reference_lines)
        self.shortcuts = sfmd.parse_shortcuts(self.shortcut_lines)
        seen: dict[str, int] = {}
        for line, _end, _level, _text, explicit, _slug in self.headings:
            if explicit and explicit in seen:
                self.warnings.append(
                    f"line {line + 1}: duplicate heading id {{#{explicit}}} (line {seen[explicit] + 1} wins)"
                )
            elif explicit:
                seen[explicit] = line
        self._name_headings(set(seen))
        return self

    def _name_headings(self, explicit_ids: set[str]) -> None:
        """Distinct ids and every slug name of the headings: String's slugs, then their Unicode spellings."""
        taken = {marker[0] for marker in self.markers} | explicit_ids
        slugs = [heading[5] for heading in self.headings]
        from stringsh.render.blockids import number_slugs  # (building an index only: a cached one never needs it)

        ids, names = number_slugs(slugs, taken)
        spelled = [unicode_slug(h[3]) if not h[3].isascii() else "" for h in self.headings]
        spelled = [word if word != slug else "" for word, slug in zip(spelled, slugs, strict=True)]
        if any(spelled):
            unicode_ids, unicode_names = number_slugs(spelled, taken | set(names))
            ids = [own or other for own, other in zip(ids, unicode_ids, strict=True)]
            names.update(unicode_names)
        self.heading_ids = [h[4] or name for h, name in zip(self.headings, ids, strict=True)]
        self.heading_names = names

    @property
    def requirements(self) -> str | None:
        return self.requirement_lines[0][0] if self.requirement_lines else None

    # -- resolution -----------------------------------------------------------------------------------------
    def resolve(self, block_id: str) -> Block | None:
        """Markers first, then an explicit heading id `{#id}`, then a heading slug; the first match wins.

        A slug is String's (`sction`), a distinct id (`changes-1`) or the Unicode spelling (`säction`). A bare slug
        several headings share resolves to the first, as in String; `ambiguity` says when that is so."""
        for marker_id, open_line, close_line in self.markers:
            if marker_id == block_id:
                return Block(block_id, "marker", open_line + 1, close_line)
        for i, (line, end, level, _text, explicit, _slug) in enumerate(self.headings):
            if explicit == block_id:
                return Block(block_id, "heading", line, self._heading_end(i, level), end - line, level)
        members = self.heading_names.get(normal_id(block_id))
        if not members:
            return None
        line, end, level, *_ = self.headings[members[0]]
        return Block(block_id, "heading", line, self._heading_end(members[0], level), end - line, level)

    def ambiguity(self, block_id: str) -> list[tuple[str, int]]:
        """(distinct id, 1-based line) of each heading a bare `#id` names when it names more than one, else []."""
        if any(marker[0] == block_id for marker in self.markers) or any(h[4] == block_id for h in self.headings):
            return []
        members = self.heading_names.get(normal_id(block_id), [])
        if len(members) < 2:
            return []
        return [(self.heading_ids[i], self.headings[i][0] + 1) for i in members]

    def _heading_end(self, i: int, level: int) -> int:
        for line, _end, other_level, *_ in self.headings[i + 1 :]:
            if other_level <= level:
                return line
        return self.line_count

    def block_ids(self) -> list[str]:
        """Every block's id, once, in document order: markers, explicit heading ids, distinct heading slugs.

        Each names exactly one block (the REPL offers these after `#`; replies list them)."""
        found = [(open_line, marker_id) for marker_id, open_line, _close in self.markers]
        found += [(h[0], name) for h, name in zip(self.headings, self.heading_ids, strict=True) if name]
        return list(dict.fromkeys(name for _line, name in sorted(found)))

    @property
    def title(self) -> str:
        value = self.front_matter.get("title", "")
        return value if isinstance(value, str) else ", ".join(value)

    # -- serialisation --------------------------------------------------------------------------------------
    _RAW = (
        "line_count",
        "front_matter_end",
        "front_matter",
        "headings",
        "fences",
        "code",
        "marker_lines",
        "reference_lines",
        "menus",
        "includes",
        "shortcut_lines",
        "actions",
        "requirement_lines",
    )

    #: Stored too, so a disk entry loads without `derive` (numbering 6,000 heading slugs costs more than the load).
    _DERIVED = ("markers", "references", "shortcuts", "warnings", "heading_ids", "heading_names")
    #: Kept in a disk entry as one nested marshal blob, unpacked on first use: finding a block needs them, showing a
    #: page's first window does not (a 10 MB page's 6,000 headings and their names are most of its entry).
    _LAZY = ("headings", "marker_lines", "reference_lines", "shortcut_lines", "heading_ids", "heading_names")
    _fields = _RAW + _DERIVED
    __slots__ = (*_fields, "_lazy")
    _DICTS = frozenset({"front_matter", "references", "heading_names"})

    def __getattr__(self, name: str) -> Any:
        """A `_LAZY` field of an index loaded from disk: all of them unpacked on the first use of one."""
        if name not in DocIndex._LAZY:
            raise AttributeError(name)
        blob = getattr(self, "_lazy", None)  # (None: built, not loaded, or another thread unpacked it just now)
        if blob is not None:
            for field, value in zip(DocIndex._LAZY, marshal.loads(blob), strict=True):
                setattr(self, field, value)
            self._lazy = None  # (an index the cache holds in memory keeps its fields, not the blob too)
        return object.__getattribute__(self, name)

    def to_tuple(self) -> tuple[Any, ...]:
        eager = (getattr(self, name) for name in self._fields if name not in self._LAZY)
        return (INDEX_VERSION, *eager, marshal.dumps(tuple(getattr(self, name) for name in self._LAZY)))

    @classmethod
    def from_tuple(cls, data: tuple[Any, ...]) -> DocIndex:
        eager = [name for name in cls._fields if name not in cls._LAZY]
        if not data or data[0] != INDEX_VERSION or len(data) != len(eager) + 2 or not isinstance(data[-1], bytes):
            raise ValueError("index version mismatch")
        index = object.__new__(cls)
        for name, value in zip(eager, data[1:-1], strict=True):
            setattr(index, name, value)
        index._lazy = data[-1]
        return index


def _count(lines: list[str]) -> int:
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)


def _headings(lines: list[str], found: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str, str, str]]:
    out = []
    for line, end, level, heading_text in found:
        raw = lines[line].rstrip("\r") if end - line == 1 else heading_text
        explicit = explicit_heading_id(heading_text) or ""
        out.append((line, end, level, heading_text, explicit, string_slug(heading_slug_text(raw, heading_text))))
    return out


def _extract(index: DocIndex, text: str, lines: list[str], base: int, fences: list[tuple[int, int, str, int]]) -> None:
    """Fill the SFMD lists of `index` from `text`, the document's lines from `base` on (code from `index.code`)."""
    line_map = sfmd.LineMap(text, index.code, base)
    index.marker_lines = sfmd.find_marker_lines(line_map)
    index.reference_lines = sfmd.find_reference_lines(line_map)
    index.menus = sfmd.parse_menus(line_map)
    index.includes = sfmd.parse_includes(line_map)
    index.shortcut_lines = sfmd.find_shortcut_lines(line_map)
    index.requirement_lines = sfmd.parse_requirements(line_map)
    index.actions = sfmd.parse_actions(lines, fences)


def build_index(text: str, lines: list[str] | None = None) -> DocIndex:
    """Index a markdown document; `lines` is `text.split("\\n")` when the caller already has it."""
    from stringsh.render.scan import scan  # (a cached index never scans)

    lines = text.split("\n") if lines is None else lines
    structure = scan(lines)
    code = sorted([(start, end) for start, end, _, _ in structure.fences] + structure.code)
    if structure.front_matter_end:
        code.insert(0, (0, structure.front_matter_end))
    index = DocIndex(
        line_count=_count(lines),
        front_matter_end=structure.front_matter_end,
        front_matter=sfmd.parse_front_matter(lines, structure.front_matter_end),
        headings=_headings(lines, structure.headings),
        fences=structure.fences,
        code=code,
    )
    _extract(index, text, lines, 0, structure.fences)
    return index.derive()


def update_index(old: DocIndex, new_lines: list[str], start: int, end: int, count: int) -> DocIndex | None:
    """The index after old lines [start, end) were replaced by `count` new lines, re-scanning only around them.

    The scan restarts right after the last heading before the change (where nothing is open) and stops at the
    first old heading after it that it finds again unchanged, so everything beyond is the old index shifted.
    Returns None when the change reaches the front matter (the caller then builds the index from scratch).
    """
    from stringsh.render.scan import front_matter_end, scan_from  # (a cached index never scans)

    delta = count - (end - start)
    restart = old.front_matter_end
    for _line, heading_end, *_ in old.headings:
        if heading_end > start:
            break
        restart = heading_end
    if restart > start or front_matter_end(new_lines) != old.front_matter_end:
        return None
    after = {(h[0] + delta, h[1] + delta, h[2], h[3]) for h in old.headings if h[0] >= end}
    structure = scan_from(new_lines, restart, lambda heading: heading[0] >= start + count and heading in after)
    stop_new = structure.stopped_at if structure.stopped_at >= 0 else len(new_lines)
    stop_old = stop_new - delta

    def keep(entries: list[Any], position: int) -> tuple[list[Any], list[Any]]:
        """Entries (sorted by line) before the re-scanned lines, and those after them."""
        key = itemgetter(position)
        return entries[: bisect_left(entries, restart, key=key)], entries[bisect_left(entries, stop_old, key=key) :]

    def shifted(entries: list[Any], positions: tuple[int, ...]) -> list[Any]:
        if not delta:
            return entries
        if positions == (0, 1):
            return [(a + delta, b + delta, *rest) for a, b, *rest in entries]
        out = []
        for entry in entries:
            items = list(entry)
            for p in positions:
                items[p] += delta
            out.append(tuple(items))
        return out

    region_headings = [h for h in _headings(new_lines, structure.headings) if h[0] < stop_new]
    before, tail = keep(old.headings, 0)
    headings = before + region_headings + shifted(tail, (0, 1))
    new_fences = [f for f in structure.fences if f[0] < stop_new]
    before, tail = keep(old.fences, 0)
    fences = before + new_fences + shifted(tail, (0, 1))
    region_code = sorted([(f[0], f[1]) for f in new_fences] + [c for c in structure.code if c[0] < stop_new])
    before, tail = keep(old.code, 0)
    code = before + region_code + shifted(tail, (0, 1))
    index = DocIndex(
        line_count=_count(new_lines),
        front_matter_end=old.front_matter_end,
        front_matter=old.front_matter,
        headings=headings,
        fences=fences,
        code=code,
    )
    region = DocIndex(code=code)
    _extract(region, "\n".join(new_lines[restart:stop_new]), new_lines, restart, new_fences)
    for name, positions in (
        ("marker_lines", (2,)),
        ("reference_lines", (2,)),
        ("menus", (2,)),
        ("includes", (2,)),
        ("shortcut_lines", (3,)),
        ("requirement_lines", (1,)),
        ("actions", (3, 4)),
    ):
        before, tail = keep(getattr(old, name), positions[0])
        setattr(index, name, before + getattr(region, name) + shifted(tail, positions))
    return index.derive()
