"""Reply text -> rich renderables for people: the wire text stays the contract, this only styles it.

Documents render as markdown, listings and errors get their own styles, shell output stays verbatim. Every
piece of reply text is stripped of terminal control sequences first, so a file cannot drive the user's terminal.
"""

from __future__ import annotations

import re

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from stringsh.render.document import is_markdown
from stringsh.render.helpview import help_renderable, is_help, without_title
from stringsh.render.index import build_index
from stringsh.render.people import LINK_THEME, Links, chunks, people_links
from stringsh.render.replyparts import BASH_MESSAGE, document_target, split_reply
from stringsh.workspace import clean_text as clean

#: Documents larger than this print as text: rich needs about 5 s per MB of markdown.
MARKDOWN_LIMIT = 256 * 1024
#: Hint lines String puts before a rendered document (nav menus, actions, missing variables).
HINT_PREFIXES = ("[nav]", "[actions]", "[!]", "Set:", "Setup:", "... ")

NUMBERED_LINE = re.compile(r"^(\s*\d+ \| ?)")
SECTION_LINE = re.compile(r"^#{1,6} \S")

STYLES = {
    "section": "bold cyan",
    "re": "dim",
    "message": "bold",
    "error": "bold red",
    "hint": "yellow",
    "rule": "grey50",
    "dir": "bold blue",
    "file": "default",
    "ok": "green",
    "fail": "bold red",
    "note": "dim italic",
}


def render_error(message: str) -> RenderableType:
    first, _, hint = message.partition("\n")
    text = Text(first, style=STYLES["error"])
    if hint:
        text.append("\n" + hint, style=STYLES["hint"])
    return text


def render_text(content: str) -> Text:
    """Verbatim text (columns stay aligned); `## Section` lines of listings such as /help stand out."""
    text = Text()
    for index, line in enumerate(content.split("\n")):
        if index:
            text.append("\n")
        text.append(line, style=STYLES["section"] if SECTION_LINE.match(line) else "")
    return text


def render_numbered(content: str) -> Text:
    """`/edit`'s numbered source: the `N | ` gutter dimmed so the file's own text stands out."""
    text = Text()
    for index, line in enumerate(content.split("\n")):
        if index:
            text.append("\n")
        match = NUMBERED_LINE.match(line)
        if match:
            text.append(match.group(1), style=STYLES["note"])
            text.append(line[match.end(1) :])
        else:
            text.append(line)
    return text


def render_listing(content: str) -> RenderableType:
    text = Text()
    for index, line in enumerate(content.split("\n")):
        if index:
            text.append("\n")
        name = line.strip()
        style = STYLES["dir"] if name.endswith("/") else STYLES["file"]
        text.append(line, style=style if name != "(empty)" else STYLES["note"])
    return text


def looks_like_listing(content: str) -> bool:
    """A folder opened with `/open dir` replies with a listing: indented names, or `(empty)`."""
    lines = content.split("\n")
    return content == "(empty)" or all(line.startswith("  ") and line.strip() for line in lines)


def split_hints(content: str) -> tuple[list[str], str]:
    """Leading hint lines (`[nav] …`, `[actions] …`) apart from the document itself."""
    lines = content.split("\n")
    hints: list[str] = []
    while lines and lines[0].startswith(HINT_PREFIXES):
        hints.append(lines.pop(0))
    if hints and lines and not lines[0].strip():
        lines.pop(0)
    return hints, "\n".join(lines)


HEADING_ID = re.compile(r"^(?P<head> {0,3}#{1,6}[ \t].*?)[ \t]*(?:\[\])?\{#[A-Za-z0-9_-]+\}[ \t]*$")


def drop_heading_ids(text: str) -> str:
    """`## Install {#setup}` reads as `Install` for people; the id stays in the source (and in completion).

    The document index says which lines are headings with an id (never lines inside code)."""
    if "{#" not in text:
        return text
    lines = text.split("\n")
    for line, end, _level, _text, explicit, _slug in build_index(text, lines).headings:
        heading = HEADING_ID.match(lines[line]) if explicit and end - line == 1 else None
        if heading:
            lines[line] = heading.group("head")
    return "\n".join(lines)


def render_document(target: str, content: str, links: Links | None = None) -> RenderableType:
    """Markdown documents through rich's Markdown (size-capped), `links` where its links lead; other text
    verbatim."""
    if not is_markdown(target):
        return render_listing(content) if looks_like_listing(content) else Text(content)
    if len(content) > MARKDOWN_LIMIT:
        note = Text(f"(shown as text: {len(content) // 1024} KB is too large to render)", style=STYLES["note"])
        return Group(note, Text(content))
    hints, body = split_hints(content)
    parts: list[RenderableType] = [Text(line, style=STYLES["note"]) for line in hints]
    if hints:
        parts.append(Text(""))
    from stringsh.render.peoplemarkdown import PeopleMarkdown  # pygments: on the first document, not at start-up

    pieces = chunks(people_links(drop_heading_ids(body), links))
    parts.extend(PeopleMarkdown(piece, hyperlinks=False) for piece in pieces)
    return Group(*parts)


def render_bash(match: re.Match[str], content: str) -> list[RenderableType]:
    rc = int(match.group("rc"))
    status = Text(f"exit: {rc}", style=STYLES["ok"] if rc == 0 else STYLES["fail"])
    status.append(f" | cwd: {match.group('cwd')}", style=STYLES["message"])
    body = Text(content, style=STYLES["note"]) if content == "(no output)" else Text(content)
    return [status, Rule(style=STYLES["rule"]), body]


def reply_renderables(text: str, links: Links | None = None, *, echo: bool = True) -> list[RenderableType]:
    """Everything to print for one reply, in order; `links` as `render_document` takes them. `echo=False` leaves
    out the `re:` line: in the REPL the request stays on screen after its prompt, so a person reads it once."""
    parsed = split_reply(clean(text))
    parts: list[RenderableType] = [Text(parsed.re_line, style=STYLES["re"])] if echo else []
    if parsed.error:
        parts.append(render_error(parsed.message))
        return parts
    bash = BASH_MESSAGE.match(parsed.message)
    if bash and parsed.content is not None:
        return parts + render_bash(bash, parsed.content)
    parts.append(Text(parsed.message, style=STYLES["message"]))
    if parsed.content is None:
        return parts
    parts.append(Rule(style=STYLES["rule"]))
    target = document_target(parsed.message)
    if parsed.message.startswith("Listing "):
        parts.append(render_listing(parsed.content))
    elif target is not None:
        parts.append(render_document(target, parsed.content, links))
    elif parsed.message.startswith("[editing:"):
        parts.append(render_numbered(parsed.content))
    elif is_help(parsed.message):
        parts.append(help_renderable(people_links(without_title(parsed.content, parsed.message))))
    else:
        parts.append(render_text(parsed.content))
    return parts


def print_reply(console: Console, text: str, links: Links | None = None, *, echo: bool = True) -> None:
    """Print one reply for people; `links` lets a document's links show where they lead; `echo` as
    `reply_renderables` takes it (`--color` output keeps the `re:` line, the REPL does not)."""
    from rich.theme import Theme

    with console.use_theme(Theme(LINK_THEME)):
        for part in reply_renderables(text, links, echo=echo):
            console.print(part)
        console.print()
