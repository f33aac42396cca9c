"""The block index of a document: what `path#block` resolves to, as line ranges of the source.

Built once per content hash (see cache.py) from the line scanner and the SFMD scans; plain tuples throughout so the
index serialises to a cheap `marshal` blob. Lines are 0-based and ends exclusive, like markdown-it's `Token.map`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stringsh.render import sfmd
from stringsh.render.scan import scan
from stringsh.render.slug import explicit_heading_id, heading_slug_text, string_slug

INDEX_VERSION = 2


@dataclass(frozen=True)
class Block:
    """A resolved block. `start`/`end` bound what is shown and replaced; `head` lines stay on a block edit."""

    id: str
    kind: str  # "marker" or "heading"
    start: int  # marker: the line after `<!-- #id -->`; heading: the heading's first line
    end: int  # marker: the `<!-- /id -->` line; heading: the next heading of the same or higher level, or EOF
    head: int = 0  # heading: lines the heading itself takes (1, or more for a setext heading)
    level: int = 0


@dataclass
class DocIndex:
    """Everything the commands need to know about a markdown document without re-reading it."""

    line_count: int = 0
    front_matter_end: int = 0
    front_matter: dict[str, Any] = field(default_factory=dict)
    #: (line, end, level, text, explicit id or "", slug)
    headings: list[tuple[int, int, int, str, str, str]] = field(default_factory=list)
    #: (id, open line, close line) of explicit `<!-- #id -->` blocks, by open line
    markers: list[tuple[str, int, int]] = field(default_factory=list)
    #: (start, end, info, indent) of fenced code blocks
    fences: list[tuple[int, int, str, int]] = field(default_factory=list)
    #: (start, end) of every code range (fences, indented code, front matter): SFMD syntax there is an example
    code: list[tuple[int, int]] = field(default_factory=list)
    references: dict[str, str] = field(default_factory=dict)
    menus: list[tuple[str, str, int]] = field(default_factory=list)
    includes: list[tuple[str, str, int]] = field(default_factory=list)
    shortcuts: list[tuple[str, str, str, int]] = field(default_factory=list)
    #: (id, METHOD, target, start, end)
    actions: list[tuple[str, str, str, int, int]] = field(default_factory=list)
    requirements: str | None = None
    warnings: list[str] = field(default_factory=list)

    # -- resolution -----------------------------------------------------------------------------------------
    def resolve(self, block_id: str) -> Block | None:
        """Markers first, then an explicit heading id `{#id}`, then a heading slug; the first match wins."""
        for marker_id, open_line, close_line in self.markers:
            if marker_id == block_id:
                return Block(block_id, "marker", open_line + 1, close_line)
        for want_explicit in (True, False):
            for i, (line, end, level, _text, explicit, slug) in enumerate(self.headings):
                if (explicit if want_explicit else slug) == block_id:
                    return Block(block_id, "heading", line, self._heading_end(i, level), end - line, level)
        return None

    def _heading_end(self, i: int, level: int) -> int:
        for line, _end, other_level, *_ in self.headings[i + 1 :]:
            if other_level <= level:
                return line
        return self.line_count

    def block_ids(self) -> list[str]:
        """Addressable ids listed to users: explicit blocks, then explicit heading ids (slugs are implied)."""
        ids = [marker[0] for marker in self.markers]
        seen = set(ids)
        for heading in self.headings:
            if heading[4] and heading[4] not in seen:
                ids.append(heading[4])
                seen.add(heading[4])
        return ids

    @property
    def title(self) -> str:
        value = self.front_matter.get("title", "")
        return value if isinstance(value, str) else ", ".join(value)

    # -- serialisation --------------------------------------------------------------------------------------
    def to_tuple(self) -> tuple[Any, ...]:
        return (
            INDEX_VERSION,
            self.line_count,
            self.front_matter_end,
            self.front_matter,
            self.headings,
            self.markers,
            self.fences,
            self.code,
            self.references,
            self.menus,
            self.includes,
            self.shortcuts,
            self.actions,
            self.requirements,
            self.warnings,
        )

    @classmethod
    def from_tuple(cls, data: tuple[Any, ...]) -> DocIndex:
        if not data or data[0] != INDEX_VERSION:
            raise ValueError("index version mismatch")
        return cls(*data[1:])


def build_index(text: str, lines: list[str] | None = None) -> DocIndex:
    """Index a markdown document; `lines` is `text.split("\\n")` when the caller already has it."""
    lines = text.split("\n") if lines is None else lines
    structure = scan(lines)
    code = sorted([(start, end) for start, end, _, _ in structure.fences] + structure.code)
    if structure.front_matter_end:
        code.insert(0, (0, structure.front_matter_end))
    line_map = sfmd.LineMap(text, code)
    markers, warnings = sfmd.find_markers(line_map)
    headings = []
    for line, end, level, heading_text in structure.headings:
        raw = lines[line].rstrip("\r") if end - line == 1 else heading_text
        explicit = explicit_heading_id(heading_text) or ""
        headings.append((line, end, level, heading_text, explicit, string_slug(heading_slug_text(raw, heading_text))))
    line_count = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    index = DocIndex(
        line_count=line_count,
        front_matter_end=structure.front_matter_end,
        front_matter=sfmd.parse_front_matter(lines, structure.front_matter_end),
        headings=headings,
        markers=markers,
        fences=structure.fences,
        code=code,
        references=sfmd.find_references(line_map),
        menus=sfmd.parse_menus(line_map),
        includes=sfmd.parse_includes(line_map),
        shortcuts=sfmd.parse_shortcuts(line_map),
        actions=sfmd.parse_actions(lines, structure.fences),
        requirements=sfmd.parse_requirements(line_map),
        warnings=warnings,
    )
    _warn_duplicate_ids(index)
    return index


def _warn_duplicate_ids(index: DocIndex) -> None:
    """Two headings with the same explicit id: only the first is addressable, so say so."""
    seen: dict[str, int] = {}
    for line, _end, _level, _text, explicit, _slug in index.headings:
        if not explicit:
            continue
        if explicit in seen:
            index.warnings.append(
                f"line {line + 1}: duplicate heading id {{#{explicit}}} (line {seen[explicit] + 1} wins)"
            )
        else:
            seen[explicit] = line
