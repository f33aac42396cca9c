"""The agent rendering (docs/string-commands.md): source-faithful markdown with SFMD syntax resolved, windowed by lines.

Rendering is line by line over the source, so a window of a 10 MB document costs as much as the window: it starts
at any line (the fence state comes from the index) and stops at the line budget, reporting where to read on.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping

from stringsh.errors import error_reason
from stringsh.hints import command_word
from stringsh.lazyexports import lazy_pattern
from stringsh.render import sfmd
from stringsh.render.document import Document
from stringsh.render.index import Block
from stringsh.render.record import Record
from stringsh.render.slug import string_slug

DEFAULT_BUDGET = 400
#: With a line budget, output also stops at this many characters (a minified file is one huge line).
MAX_CHARS = 100_000
# Link patterns stop at the next bracket or parenthesis (linear time on hostile input, see sfmd.SHORTCUT).
REF_LINK = lazy_pattern(r"\[([^\[\]]++)\]\[([^\[\]@][^\[\]]*+)\]")
SHORTCUT_LINK = lazy_pattern(r"\[(@[A-Za-z0-9._-]+)\s++([^\[\]]++)\]\([^()]++\)")
PLAIN_LINK = lazy_pattern(r"\[([^\[\]]*+)\]\((?!@)([^()]++)\)")
INLINE_CODE = lazy_pattern(r"`[^`\n]+`")
SLUGGABLE_LABEL = lazy_pattern(r"^[A-Za-z0-9\s-]+$")
INCLUDE_TRIMMED = lazy_pattern(r"^\[!include:([A-Za-z0-9_-]+)\]\(([^)]*)\)$")

#: Loads an include target (the path as written, the identity of the including document, "" for the one rendered)
#: relative to the including document: returns (identity for cycle checks and nested includes, Document).
IncludeLoader = Callable[[str, str], tuple[str, Document]]


class Rendered(Record):
    """A rendered window. `next_line` is the 0-based source line to read on from, None when nothing was cut."""

    __slots__ = _fields = ("text", "shortcuts", "next_line", "first_line", "cut_by")

    def __init__(self, text: str, shortcuts: dict[str, str] | None = None, next_line: int | None = None,
                 first_line: int = 0, cut_by: str = "lines") -> None:
        self.text = text
        self.shortcuts = {} if shortcuts is None else shortcuts
        self.next_line = next_line
        self.first_line = first_line
        self.cut_by = cut_by


def is_auto_shortcut_href(href: str) -> bool:
    """String auto-shortcuts a full http(s) URL or an href longer than 40 characters (docs/string-commands.md).

    Short relative links and `act:` links stay as they are, so they are never `@id` targets.
    """
    return href.startswith(("http://", "https://")) or len(href) > 40


class _Links:
    """Auto-shortcut state of one rendering. Ids are the document's, not the window's: before its first id a window
    (a page from `--from N`, a block) counts the links above it (`catch_up`), so `@link-3` names the same link in
    every view of a document; links an include brings in are numbered after all of the document's own."""

    __slots__ = ("catch_up", "counts", "included", "link_number", "references", "seen", "shortcuts", "whole")

    def __init__(self, references: dict[str, str], shortcuts: dict[str, str] | None = None, *,
                 catch_up: Callable[[_Links], None] | None = None,
                 whole: Callable[[_Links], None] | None = None) -> None:
        self.references = references
        self.shortcuts: dict[str, str] = {} if shortcuts is None else shortcuts
        self.seen: set[str] = set()
        self.counts: dict[str, int] = {}
        self.link_number = 1
        #: Counts the document's links before the window (once, on the first id), then is cleared.
        self.catch_up = catch_up
        #: Counts every link of the document: where included links start (once, on the first include).
        self.whole = whole
        self.included: _Links | None = None

    def auto_id(self, label: str, href: str) -> str | None:
        if not is_auto_shortcut_href(href):
            return None
        if self.catch_up is not None:
            catch_up, self.catch_up = self.catch_up, None
            catch_up(self)
        slug = string_slug(label)
        if len(label) <= 20 and SLUGGABLE_LABEL.match(label) and slug:
            if slug not in self.seen:
                shortcut_id = slug
                self.counts[slug] = 2
            else:
                n = self.counts.get(slug, 2)
                shortcut_id = f"{slug}-{n}"
                self.counts[slug] = n + 1
        else:
            shortcut_id = f"link-{self.link_number}"
            self.link_number += 1
        self.seen.add(shortcut_id)
        self.shortcuts[shortcut_id] = href
        return shortcut_id

    def adopt(self, counted: _Links) -> None:
        """Continue numbering after the links `counted` has seen (their ids stay out of this window's shortcuts)."""
        self.seen |= counted.seen
        self.counts.update(counted.counts)
        self.link_number = counted.link_number

    def for_include(self) -> _Links:
        """The numbering an include's links get: after every link of the including document, shared by its includes."""
        if self.included is None:
            self.included = _Links(self.references, self.shortcuts)
            self.included.included = self.included
            if self.whole is not None:
                self.whole(self.included)
        return self.included

    def rewrite(self, segment: str) -> str:
        if self.references:
            segment = REF_LINK.sub(self._reference, segment)
        if "[@" in segment:
            segment = SHORTCUT_LINK.sub(lambda m: f"[{m.group(2)}][{m.group(1)}]", segment)
        if "](" in segment:
            segment = PLAIN_LINK.sub(self._plain, segment)
        return segment

    def _reference(self, match: re.Match[str]) -> str:
        url = self.references.get(match.group(2))
        return f"[{match.group(1)}]({url})" if url else match.group(0)

    def _plain(self, match: re.Match[str]) -> str:
        shortcut_id = self.auto_id(match.group(1), match.group(2))
        if shortcut_id is None:
            return match.group(0)
        return f"[{match.group(1) or shortcut_id}][@{shortcut_id}]"

    def line(self, text: str) -> str:
        """Rewrite links outside inline code spans."""
        if "[" not in text:
            return text
        if "`" not in text:
            return self.rewrite(text)
        out, pos = [], 0
        for span in INLINE_CODE.finditer(text):
            out.append(self.rewrite(text[pos : span.start()]))
            out.append(span.group(0))
            pos = span.end()
        out.append(self.rewrite(text[pos:]))
        return "".join(out)


class _Window:
    """Collects output lines until the line budget (or, with a budget, MAX_CHARS characters) is used."""

    def __init__(self, budget: int) -> None:
        self.budget = budget if budget > 0 else 1 << 62
        self.max_chars = MAX_CHARS if budget > 0 else 1 << 62
        self.chars = 0
        self.lines: list[str] = []
        self.next_line: int | None = None
        self.cut_by = "lines"

    @property
    def full(self) -> bool:
        return len(self.lines) >= self.budget or self.next_line is not None

    def add(self, line: str, source_line: int) -> bool:
        """Append a line; False (and the read-on point) when the budget is already used."""
        if self.full:
            if self.next_line is None:
                self.next_line = source_line
            return False
        if self.chars + len(line) > self.max_chars:
            self.cut_by = "characters"
            if self.lines:
                self.next_line = source_line
                return False
            line = line[: self.max_chars] + f" … (line cut at {self.max_chars} characters)"
            self.next_line = source_line + 1
        self.lines.append(line)
        self.chars += len(line) + 1
        return True


def _code_range(doc: Document, line: int, fence_info: dict[int, str]) -> tuple[int, int, bool] | None:
    """(start, end, is action fence) of the code range that contains `line`, if any."""
    code = doc.index.code
    i = bisect_right(code, (line, 1 << 62)) - 1
    if i < 0 or line >= code[i][1]:
        return None
    start, end = code[i]
    return start, end, sfmd.is_action_fence(fence_info.get(start, ""))


def _render_range(
    doc: Document,
    start: int,
    end: int,
    window: _Window,
    links: _Links,
    *,
    load_include: IncludeLoader | None,
    chain: frozenset[str],
    lines: list[str] | None = None,
    base: str = "",
) -> None:
    lines = doc.lines if lines is None else lines
    end = min(end, len(lines))
    fence_info = {f[0]: f[2] for f in doc.index.fences}
    has_code = bool(doc.index.code)
    i = start
    while i < end:
        code = _code_range(doc, i, fence_info) if has_code else None
        if code is not None:
            stop = min(code[1], end)
            if not code[2]:
                for j in range(i, stop):
                    if not window.add(lines[j].rstrip("\r"), j):
                        return
            i = stop
            continue
        text = lines[i].rstrip("\r")
        trimmed = text.strip()
        if trimmed.startswith(("<!", "[")):
            include = INCLUDE_TRIMMED.match(trimmed) if load_include is not None else None
            if include is not None:
                for extra in _include(include.group(1), include.group(2), load_include, chain, links, base):
                    if not window.add(extra, i):
                        return
                i += 1
                continue
            if (
                sfmd.MARKER_TRIMMED.match(trimmed)
                or sfmd.DIRECTIVE_LINE.match(trimmed)
                or sfmd.REFERENCE_DEF_TRIMMED.match(trimmed)
            ):
                i += 1
                continue
        if not window.add(links.line(text), i):
            return
        i += 1


def _include(
    block_id: str, path: str, load: IncludeLoader | None, chain: frozenset[str], links: _Links, base: str
) -> Iterable[str]:
    """The lines an include expands to, or String's `⚠` notes when it cannot; `base` is the including document."""
    assert load is not None
    try:
        identity, doc = load(path, base)
    except Exception as exc:
        reason = error_reason(exc)
        return [f"⚠ Include failed: {path} - {reason}"]
    if identity in chain:
        return [f"⚠ Circular include detected: {path} (already included in this chain)"]
    block = doc.resolve(block_id)
    if block is None:
        return [
            f"⚠ Include failed: Block #{block_id} not found in {path}",
            "Supported formats:",
            f"  1. Markers: <!-- #{block_id} --> ... <!-- /{block_id} -->",
            f"  2. Explicit ID: ## Heading {{#{block_id}}}",
            f'  3. Heading slug: ## Heading Text (where slug matches "{block_id}")',
        ]
    window = _Window(0)  # included links are numbered after the including document's own (see _Links)
    start, end = _trimmed_range(doc, block)
    _render_range(doc, start, end, window, links.for_include(), load_include=load, chain=chain | {identity},
                  base=identity)
    return window.lines


def _trimmed_range(doc: Document, block: Block, lines: list[str] | None = None) -> tuple[int, int]:
    """A block's lines without leading and trailing blank lines (String trims the extracted text)."""
    lines = doc.lines if lines is None else lines
    start, end = block.start, min(block.end, len(lines))
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def _counter(doc: Document, end: int | None, lines: list[str] | None = None) -> Callable[[_Links], None]:
    """What makes `links` continue after the document's own links above source line `end` (None: all of them)."""

    def count(links: _Links) -> None:
        counted = _Links(links.references)
        stop = doc.index.line_count if end is None else end
        start = doc.index.front_matter_end
        if start < stop:
            _render_range(doc, start, stop, _Window(0), counted, load_include=None, chain=frozenset(), lines=lines)
        links.adopt(counted)

    return count


def hint_lines(
    doc: Document, missing_env: list[str], unfold: Mapping[str, list[str]] | None = None, setup: str | None = None
) -> list[str]:
    """The hint lines String puts above a whole document: menus (those in `unfold` with their entries, on their
    first view in a topic), actions, missing required variables (with `Setup: /open <setup>`, the page's
    `[!requirements]` file unless the caller found another)."""
    index = doc.index
    hints: list[str] = []
    if index.menus:
        folded: list[str] = []
        for name in dict.fromkeys(menu[0] for menu in index.menus):
            entries = unfold.get(name) if unfold else None
            if entries is None:
                folded.append(name)
            else:
                hints += [f"[nav] {name} — first view", *entries]
        if folded:
            hints.append(f"[nav] {', '.join(folded)} — /nav <name>")
    if index.actions:
        hints.append(f"[actions] {', '.join(a[0] for a in index.actions)}  ·  /act --help (all)  ·  /act.<name> --help")
    if missing_env:
        hints.append(f"[!] Missing required env: {', '.join('$' + name for name in missing_env)}")
        hints.append("    Set: " + " ; ".join(f'/set ${name}="..."' for name in missing_env))
        setup = setup or index.requirements
        if setup:
            hints.append(f"    Setup: /open {command_word(setup)}")
    return hints


def required_env(doc: Document) -> list[str]:
    value = doc.index.front_matter.get("requires")
    if isinstance(value, str):
        value = [value] if value else []
    return [name.lstrip("$") for name in value or [] if isinstance(name, str) and name]


def render_document(
    doc: Document,
    *,
    start: int = 0,
    budget: int = DEFAULT_BUDGET,
    missing_env: list[str] | None = None,
    load_include: IncludeLoader | None = None,
    identity: str = "",
    unfold: Mapping[str, list[str]] | None = None,
    setup: str | None = None,
) -> Rendered:
    """A whole document (front matter stripped, includes expanded, hints on top), from source line `start`.

    With a budget only the first lines of the text are split; the whole text only when they were not enough.
    """
    first = max(start, doc.index.front_matter_end)

    def attempt(lines: list[str] | None) -> tuple[_Window, _Links]:
        window = _Window(budget)
        if first == doc.index.front_matter_end:
            hints = hint_lines(doc, missing_env or [], unfold, setup)
            for hint in [*hints, ""] if hints else []:
                window.add(hint, first)
        links = _Links(doc.index.references, catch_up=_counter(doc, first, lines), whole=_counter(doc, None))
        chain = frozenset({identity})
        _render_range(
            doc, first, doc.index.line_count, window, links, load_include=load_include, chain=chain, lines=lines
        )
        return window, links

    window = links = None
    if budget > 0:
        prefix, complete = doc.prefix_lines(first + 4 * budget + 256)
        window, links = attempt(prefix)
        if not complete and window.next_line is None:
            window = None
    if window is None or links is None:
        window, links = attempt(None)
    return Rendered("\n".join(window.lines).strip(), links.shortcuts, window.next_line, first, window.cut_by)


def auto_shortcuts(doc: Document) -> dict[str, str]:
    """id -> href of a page's auto-shortcuts, exactly as a whole-document rendering assigns them (includes not
    expanded): the one implementation, so completion offers only ids `/open @id` resolves."""
    return render_document(doc, budget=0).shortcuts


def render_block(doc: Document, block: Block, *, start: int = 0, budget: int = DEFAULT_BUDGET) -> Rendered:
    """One block: its trimmed source with markers, directives and action fences removed and links resolved."""
    lines, _ = doc.prefix_lines(block.end + 1)
    first, end = _trimmed_range(doc, block, lines)
    first = max(first, min(start, end))
    window = _Window(budget)
    links = _Links(doc.index.references, catch_up=_counter(doc, first, lines))
    _render_range(doc, first, end, window, links, load_include=None, chain=frozenset(), lines=lines)
    return Rendered("\n".join(window.lines).strip(), links.shortcuts, window.next_line, first, window.cut_by)


def render_text(text_lines: list[str], *, start: int = 0, budget: int = DEFAULT_BUDGET) -> Rendered:
    """A non-markdown text file: its lines as they are, windowed."""
    window = _Window(budget)
    count = len(text_lines) - 1 if text_lines and text_lines[-1] == "" else len(text_lines)
    for i in range(start, count):
        if not window.add(text_lines[i].rstrip("\r"), i):
            break
    return Rendered("\n".join(window.lines), {}, window.next_line, start, window.cut_by)


def cut_hint(target: str, rendered: Rendered, line_count: int, budget: int) -> str:
    """The line that ends a cut rendering and says exactly how to read on."""
    assert rendered.next_line is not None
    n = rendered.next_line + 1
    limit = f"{budget} lines" if rendered.cut_by == "lines" else f"{MAX_CHARS} characters"
    if n > line_count:
        return f"[cut] Output limit of {limit} reached at the last source line ({line_count})."
    return (
        f"[cut] Output limit of {limit} reached; the rest starts at source line {n} of {line_count}. "
        f"Read on: /open {command_word(target)} --from {n}"
    )
