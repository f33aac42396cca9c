"""SFMD additions found by scanning the source: markers, front matter, references, and the nav/action hooks.

Menus, shortcuts, includes and actions are extracted here only as far as the plain renderer and `/info` need them
(names, ids, methods, line numbers); `/nav` and `/act` build on these functions, so keep each one separate.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from stringsh.lazyexports import lazy_pattern

MARKER_LINE = lazy_pattern(r"^[ \t]*<!-- ([#/])([A-Za-z0-9_-]+) -->[ \t]*\r?$", re.MULTILINE)
MARKER_TRIMMED = lazy_pattern(r"^<!-- [#/][A-Za-z0-9_-]+ -->$")
DIRECTIVE_LINE = lazy_pattern(r"^\[!(menu|nav|include):[A-Za-z0-9_-]+[^\]]*\]\(.*\)$|^\[!requirements\]\(.*\)$")
# Line patterns never match past the end of their line (a run over line ends made them quadratic and wrong).
MENU_LINE = lazy_pattern(r"^[ \t]*\[!(?:nav|menu):([A-Za-z0-9_-]+)\]\(([^)\n]+)\)[ \t]*\r?$", re.MULTILINE)
INCLUDE_LINE = lazy_pattern(r"^[ \t]*\[!include:([A-Za-z0-9_-]+)\]\(([^)\n]*)\)[ \t]*\r?$", re.MULTILINE)
REQUIREMENTS_LINE = lazy_pattern(r"^[ \t]*\[!requirements\]\(([^)\n]+)\)[ \t]*\r?$", re.MULTILINE)
#: Possessive runs that stop at the next bracket or parenthesis: a match attempt never rescans the rest of the text
#: (hostile input like `[@a` + 200 KB of spaces, or `[@a b](` repeated, made the greedy form quadratic).
SHORTCUT = lazy_pattern(r"\[(@[A-Za-z0-9_-]+)\s++([^\[\]]++)\]\(([^()]++)\)")
REFERENCE_DEF = lazy_pattern(r"^[ \t]*\[([^\]\n]+)\]:\s+<?([^\s>]+)>?", re.MULTILINE)
REFERENCE_DEF_TRIMMED = lazy_pattern(r"^\[[^\]]+\]:\s+\S")
#: An inline code span as the renderer finds it (`stringsh.render.plain.INLINE_CODE`): links inside are examples.
INLINE_CODE = lazy_pattern(r"`[^`\n]+`")
ACTION_INFO = lazy_pattern(r"^act\.([A-Za-z0-9_-]+)(\.response)?$")
ACTION_HEAD = lazy_pattern(r"^(GET|POST|PUT|PATCH|DELETE|CLI)\s+(.+)$", re.IGNORECASE)


class LineMap:
    """Offsets to line numbers (plus `base`, for a slice of a document), and 'is this line inside code'."""

    def __init__(self, text: str, code: list[tuple[int, int]], base: int = 0) -> None:
        self.text = text
        self.base = base
        self._pos = 0
        self._line = base
        self._code_starts = [start for start, _ in code]
        self._code = code

    def line_of(self, offset: int) -> int:
        """Line number of an offset; offsets must be asked in increasing order (one pass over the text)."""
        if offset < self._pos:
            self._pos, self._line = 0, self.base
        self._line += self.text.count("\n", self._pos, offset)
        self._pos = offset
        return self._line

    def in_code(self, line: int) -> bool:
        i = bisect_right(self._code_starts, line) - 1
        return i >= 0 and line < self._code[i][1]


def iter_matches(pattern: re.Pattern[str], lines: LineMap) -> Iterator[tuple[int, re.Match[str]]]:
    """(line, match) for each match of a multi-line pattern that is not inside code."""
    for match in pattern.finditer(lines.text):
        line = lines.line_of(match.start())
        if not lines.in_code(line):
            yield line, match


def iter_line_matches(pattern: re.Pattern[str], literal: str, lines: LineMap) -> Iterator[tuple[int, re.Match[str]]]:
    """`iter_matches` for a `^`-anchored pattern whose first line always holds `literal`: only the lines holding it
    are tried, so the cost follows those lines (a C substring search), not every position of the text.

    The matches are `finditer`'s: a match starts at a line start at or after the end of the previous one."""
    text = lines.text
    find, rfind = text.find, text.rfind
    done = 0  # no match starts before this offset
    pos = find(literal)
    while pos >= 0:
        start = rfind("\n", 0, pos) + 1
        if start >= done:
            match = pattern.match(text, start)
            if match is not None:
                line = lines.line_of(start)
                if not lines.in_code(line):
                    yield line, match
                done = match.end()
        end = find("\n", pos)
        if end < 0:
            return
        pos = find(literal, max(end + 1, done))


def find_marker_lines(lines: LineMap) -> list[tuple[str, str, int]]:
    """Every `<!-- #id -->` / `<!-- /id -->` line outside code as (kind `#` or `/`, id, line)."""
    return [(m.group(1), m.group(2), line) for line, m in iter_line_matches(MARKER_LINE, "<!-- ", lines)]


def pair_markers(marker_lines: list[tuple[str, str, int]]) -> tuple[list[tuple[str, int, int]], list[str]]:
    """Explicit blocks as (id, open line, close line) and warnings.

    Each `<!-- #id -->` pairs with the first `<!-- /id -->` after it, so nested blocks are each addressable; a
    repeated id, an unclosed block and a stray close are warnings, as in String's parser.
    """
    opens: dict[str, int] = {}
    blocks: list[tuple[str, int, int]] = []
    done: set[str] = set()
    warnings: list[str] = []
    for kind, block_id, line in marker_lines:
        if kind == "#":
            if block_id in opens or block_id in done:
                warnings.append(f"line {line + 1}: duplicate block id #{block_id} (the first one is used)")
            else:
                opens[block_id] = line
        elif block_id in opens:
            blocks.append((block_id, opens.pop(block_id), line))
            done.add(block_id)
        elif block_id not in done:
            warnings.append(f"line {line + 1}: <!-- /{block_id} --> has no opening <!-- #{block_id} -->")
    for block_id, line in opens.items():
        warnings.append(f"line {line + 1}: block #{block_id} is not closed (add <!-- /{block_id} -->)")
    blocks.sort(key=lambda block: block[1])
    return blocks, warnings


def find_reference_lines(lines: LineMap) -> list[tuple[str, str, int]]:
    """Reference definitions `[name]: url` as (name, url, line)."""
    return [(m.group(1), m.group(2), line) for line, m in iter_line_matches(REFERENCE_DEF, "]:", lines)]


def references_of(reference_lines: list[tuple[str, str, int]]) -> dict[str, str]:
    """name → url, the first definition wins."""
    refs: dict[str, str] = {}
    for name, url, _line in reference_lines:
        refs.setdefault(name, url)
    return refs


def parse_menus(lines: LineMap) -> list[tuple[str, str, int]]:
    """Menus declared by standalone `[!nav:name](path)` (or legacy `[!menu:name](path)`) lines: (name, path, line)."""
    return [(m.group(1), m.group(2), line) for line, m in iter_line_matches(MENU_LINE, "[!", lines)]


def parse_includes(lines: LineMap) -> list[tuple[str, str, int]]:
    """Standalone `[!include:id](path)` lines: (block id, path, line)."""
    return [(m.group(1), m.group(2), line) for line, m in iter_line_matches(INCLUDE_LINE, "[!", lines)]


def parse_requirements(lines: LineMap) -> list[tuple[str, int]]:
    """`[!requirements](path)` lines as (path, line); the first is the setup hint for missing variables."""
    return [(m.group(1), line) for line, m in iter_line_matches(REQUIREMENTS_LINE, "[!", lines)]


def find_shortcut_lines(lines: LineMap) -> list[tuple[str, str, str, int]]:
    """`[@id Label](href)` links outside code as (id as written, label, href, line).

    A link inside inline code (`` `[@id Label](path)` ``) is an example, as one in a fence is: not a shortcut. The
    code spans of a line are found once, however many links it has (a hostile one-line file stays linear).
    """
    found: list[tuple[str, str, str, int]] = []
    text = lines.text
    span_line, starts, ends = -1, [], []
    for match in SHORTCUT.finditer(text):
        line = lines.line_of(match.start())
        if lines.in_code(line):
            continue
        if line != span_line:  # the spans of this line, as offsets into the text, in order
            span_line = line
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", start)
            spans = list(INLINE_CODE.finditer(text, start, len(text) if end < 0 else end))
            starts, ends = [m.start() for m in spans], [m.end() for m in spans]
        i = bisect_right(starts, match.start()) - 1
        if i < 0 or match.start() >= ends[i]:
            found.append((match.group(1)[1:], match.group(2), match.group(3), line))
    return found


def parse_shortcuts(shortcut_lines: list[tuple[str, str, str, int]]) -> list[tuple[str, str, str, int]]:
    """Page shortcuts as (id, label, href, line); a repeated id gets a number (`id2`), as in String's parser."""
    seen: set[str] = set()
    next_number: dict[str, int] = {}  # per id, where numbering resumes: 10,000 repeats stay linear
    found: list[tuple[str, str, str, int]] = []
    for base, label, href, line in shortcut_lines:
        shortcut_id, n = base, next_number.get(base, 2)
        while shortcut_id in seen:
            shortcut_id, n = f"{base}{n}", n + 1
        next_number[base] = n
        seen.add(shortcut_id)
        found.append((shortcut_id, label, href, line))
    return found


def action_fences(lines: list[str], fences: list[tuple[int, int, str, int]]) -> list[tuple[str, bool, int, int]]:
    """(id, is_response, start, end) of the `act.<id>` and `act.<id>.response` fences among an index's fences.

    The index's fences are CommonMark-exact, so a fence inside indented code or inside a longer fence is an example,
    not an action; an unclosed fence is skipped. `/act` and the `[actions]` hint both read actions from here.
    """
    found: list[tuple[str, bool, int, int]] = []
    for start, end, info, _indent in fences:
        match = ACTION_INFO.match(info)
        if match and end - 1 > start and _closes_fence(lines[start].strip(), lines[end - 1].strip()):
            found.append((match.group(1), bool(match.group(2)), start, end))
    return found


def action_head(content: list[str]) -> re.Match[str] | None:
    """The `METHOD target` first line of an action fence's content (leading blank lines skipped), if it has one."""
    first = next((line for line in content if line.strip()), None)
    return ACTION_HEAD.match(first.strip()) if first is not None else None


def parse_actions(
    source_lines: list[str], fences: list[tuple[int, int, str, int]]
) -> list[tuple[str, str, str, int, int]]:
    """Action fences `act.<id>` as (id, METHOD, uri-or-command, start, end), the ones `/act` runs: closed, with a
    `METHOD target` first line, the first definition of an id; response fences are not listed. `/act` parses fields.
    """
    actions: dict[str, tuple[str, str, str, int, int]] = {}
    for ident, is_response, start, end in action_fences(source_lines, fences):
        if is_response or ident in actions:
            continue
        head = action_head(source_lines[start + 1 : end - 1])
        if head:
            actions[ident] = (ident, head.group(1).upper(), head.group(2).strip(), start, end)
    return list(actions.values())


def is_action_fence(info: str) -> bool:
    return ACTION_INFO.match(info) is not None


def parse_front_matter(lines: list[str], end: int) -> dict[str, str | list[str]]:
    """The small YAML subset SFMD front matter uses: `key: value`, `key: [a, b]` and `key:` with `- item` lines."""
    data: dict[str, str | list[str]] = {}
    if end < 2:
        return data
    current: str | None = None
    for raw in lines[1 : end - 1]:
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in " \t-" and current is not None:
            item = line.strip()
            if item.startswith("- "):
                value = data.get(current)
                items = value if isinstance(value, list) else []
                items.append(_scalar(item[2:]))
                data[current] = items
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            current = None
            continue
        current = key.strip()
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            data[current] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        else:
            data[current] = _scalar(value)
    return data


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return value


def _closes_fence(opener: str, closer: str) -> bool:
    """`blocks.closes_fence`, its module loaded on first use (a repeat /open of a cached page never scans)."""
    from stringsh.render.blocks import closes_fence

    return closes_fence(opener, closer)
