"""Rendering for people (REPL, `--color`): rich markdown, chunk by chunk, never a whole huge file at once.

The input is the plain rendering, already cut to the line budget, so its size is bounded; it is still split at
blank lines outside fences into small chunks because rich costs about 5 s per MB.

A person reads a link as its text and where it leads, as rich and glow show it (`Kubernetes (https://…)`), never
as the shortcut an agent follows (`@kubernetes`, `@link-3`: those stay in plain output and in completion); a badge
(an image inside a link) reads as its alt text linking to its target; a code line is never wrapped (it is cut at
the width, with `…`); and with colour off, inline code keeps its backticks, its only mark.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import NamedTuple

from stringsh.render.scan import fenced_lines, scan
from stringsh.workspace import clean_text

CHUNK_LINES = 80
_ID = r"@[A-Za-z0-9][\w.-]*"
#: `[Label][@id]`, the plain rendering's link with its shortcut (agents follow it with `/open @id`).
SHORTCUT_LINK = re.compile(r"\[(?P<label>[^\[\]\n]+)\]\[(?P<id>" + _ID + r")\]")
#: `![alt][@id]`, an image whose source has a shortcut.
SHORTCUT_IMAGE = re.compile(r"!\[(?P<alt>[^\[\]\n]*)\]\[(?P<id>" + _ID + r")\]")
#: `![alt](src)`, an image with its source inline.
IMAGE = re.compile(r"!\[(?P<alt>[^\[\]\n]*)\]\([^()\s]*\)")
#: How an image reads in a terminal, as rich marks it: it cannot be shown, so its alt text stands in its place
#: (rich would draw it as a block of its own, out of its sentence).
IMAGE_MARK = "🌆"
#: A badge: an image (its source a shortcut or inline) inside a link (its target a shortcut or inline).
LINKED_IMAGE = re.compile(
    r"\[!\[(?P<alt>[^\[\]\n]*)\](?:\[(?P<image>" + _ID + r")\]|\([^()\s]*\))\]"
    r"(?:\[(?P<id>" + _ID + r")\]|\((?P<href>[^()\s]*)\))"
)
#: `[label]`, `[label][]` or `[label][name]`: a link by a reference definition's name (`[name]: href`), which the
#: plain rendering keeps as written and a person reads as `label (href)`.
REFERENCE_LINK = re.compile(r"(?<![!\]])\[(?P<label>[^\[\]]+)\](?:\[(?P<name>[^\[\]@]*)\])?(?![(\[:])")
#: Styles for links in people's markdown: the label reads as a link, its target stays discreet.
LINK_THEME = {"markdown.link": "underline bright_blue", "markdown.link_url": "dim"}


class Links(NamedTuple):
    """Where a document's links lead: its shortcuts (id without `@` -> href) and reference definitions (name ->
    href)."""

    shortcuts: Mapping[str, str]
    references: Mapping[str, str]


def _reference_key(name: str) -> str:
    """A reference name as markdown matches it: case and runs of spaces do not count."""
    return " ".join(name.split()).casefold()


def people_links(markdown: str, links: Links | None = None) -> str:
    """Links and images as a person reads them: `[Kubernetes][@kubernetes]` -> `[Kubernetes](https://…)` (rich
    shows `Kubernetes (https://…)`), or the label alone where the shortcut's target is not known; `[WSGI]` with a
    definition `[WSGI]: https://…` likewise; a badge `[![CI][@ci]](https://…)` -> `[CI](https://…)`; an image
    `![logo][@logo]` -> `🌆 logo`. Code (fences, backtick spans) is left as it is."""
    known = links.shortcuts if links is not None else {}
    named = {_reference_key(name): href for name, href in links.references.items()} if links is not None else {}
    if "][@" not in markdown and "[![" not in markdown and not named:
        return markdown

    table = False  # inside a table row a link is its label: a target there is cut into a fragment by its cell

    def link(label: str, ident: str | None, href: str | None = None) -> str:
        target = href if href is not None else known.get(ident[1:], "") if ident else ""
        return f"[{label}]({_destination(target)})" if target and not table else label

    def linked_image(match: re.Match[str]) -> str:
        alt = match.group("alt")
        if not alt or f"@{alt}" == match.group("image"):  # no alt text: the plain rendering names it by its id
            alt = "image"
        return link(alt, match.group("id"), match.group("href"))

    def reference(match: re.Match[str]) -> str:
        name = match.group("name") or match.group("label")
        target = named.get(_reference_key(name))
        if target is None:
            return match.group(0)
        return link(match.group("label"), None, target)

    def image(match: re.Match[str]) -> str:
        return f"{IMAGE_MARK} {match.group('alt')}"

    def plain(text: str) -> str:
        parts = text.split("`")
        for index in range(0, len(parts), 2):  # outside backtick spans
            part = LINKED_IMAGE.sub(linked_image, parts[index])
            part = IMAGE.sub(image, SHORTCUT_IMAGE.sub(image, part))
            part = SHORTCUT_LINK.sub(lambda m: link(m.group("label"), m.group("id")), part)
            parts[index] = REFERENCE_LINK.sub(reference, part) if named else part
        return "`".join(parts)

    lines = markdown.split("\n")
    fenced = fenced_lines(len(lines), scan(lines).fences)
    out: list[str] = []
    start = 0
    for number in range(len(lines) + 1):  # each run of lines outside fences at once: a label may span lines
        row = number < len(lines) and not fenced[number] and lines[number].lstrip().startswith("|")
        if number == len(lines) or fenced[number] or row:
            if start < number:
                out.append(plain("\n".join(lines[start:number])))
            if row:
                table = True
                out.append(plain(lines[number]))
                table = False
            elif number < len(lines):
                out.append(lines[number])
            start = number + 1
    return "\n".join(out)


def _destination(href: str) -> str:
    """`href` as a link destination markdown reads whole (in angle brackets when it holds a space or a paren)."""
    return f"<{href}>" if re.search(r"[\s()<>]", href) else href


def chunks(markdown: str, size: int = CHUNK_LINES) -> list[str]:
    """Split at blank lines outside fenced code so each piece renders on its own."""
    pieces: list[str] = []
    current: list[str] = []
    lines = markdown.split("\n")
    fenced = fenced_lines(len(lines), scan(lines).fences)
    for number, line in enumerate(lines):
        current.append(line)
        if not fenced[number] and not line.strip() and len(current) >= size:
            pieces.append("\n".join(current))
            current = []
    if current:
        pieces.append("\n".join(current))
    return pieces


def render_markdown(markdown: str, *, width: int = 100, color: bool = True, links: Links | None = None) -> str:
    """The text rich prints for a markdown rendering (ANSI colours when `color`)."""
    from rich.console import Console
    from rich.theme import Theme

    from stringsh.render.peoplemarkdown import PeopleMarkdown

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, force_terminal=color, color_system="standard" if color else None, emoji=False,
        highlight=False, soft_wrap=False, theme=Theme(LINK_THEME),
    )
    for piece in chunks(people_links(clean_text(markdown), links)):
        console.print(PeopleMarkdown(piece, hyperlinks=False))
    return buffer.getvalue()
