"""What a block `/edit` checks before it writes, so an edit cannot damage text the agent did not mean to touch.

The body is judged against the document it goes into: a heading it repeats, a code fence it leaves open, link
references that only exist in `/open`'s rendering, and what the splice would do to the rest of the file (headings,
markers and fences after the block must read the same). Each refusal is an `INVALID_PAYLOAD` written before any
byte is; `Splice` describes an accepted edit for the reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.render.document import Document
from stringsh.render.index import Block
from stringsh.render.scan import scan

ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]|$)")
#: `[text][@id]` and a bare `[@id]` (not `[@id Label](url)`, `[@id](url)` or a definition `[@id]: url`):
#: how `/open` shows a link, never what the file holds.
VIEW_REFERENCE = re.compile(r"\[[^\[\]\n]*\]\[(@[A-Za-z0-9._-]+)\]|\[(@[A-Za-z0-9._-]+)\](?![(\[:])")
INLINE_CODE = re.compile(r"`+[^`\n]*`+")


@dataclass(frozen=True)
class Splice:
    """An accepted block edit: the new document, how many lines went and came, and nested blocks that went."""

    doc: Document
    old_count: int
    new_count: int
    removed: tuple[str, ...]


def invalid(label: str, reason: str, hint: str) -> StringError:
    return StringError("INVALID_PAYLOAD", f"Refusing to edit {label}: {reason}", f"{hint} Nothing was written.")


def without_own_heading(doc: Document, block: Block, body: str, label: str) -> str:
    """A heading block's body may start with the heading exactly as `/edit` showed it: then it stands for the heading
    (kept byte for byte) and what follows replaces the content. A different heading of the same or a higher level
    in its place would end the block at once (the old heading left empty above it): refused."""
    if block.kind != "heading":
        return body
    lines = body.replace("\r\n", "\n").split("\n")
    heading = doc.source_lines(block.start, block.start + block.head)
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return body
    if [line.rstrip() for line in lines[first : first + len(heading)]] == [line.rstrip() for line in heading]:
        rest = lines[first + len(heading) :]
        while rest and not rest[0].strip():
            rest.pop(0)
        return "\n".join(rest)
    match = ATX_HEADING.match(lines[first])
    if match and len(match.group(1)) <= block.level:
        raise invalid(
            label,
            f'the body starts with the heading "{lines[first].strip()}", not this block\'s "{heading[0].strip()}".',
            f"Start the body with {heading[0].strip()} exactly, or leave the heading out (it stays); "
            f"to rename the heading, edit the whole file (/edit {command_word(label.split('#', 1)[0])}).",
        )
    return body


def refuse_open_fence(body: str, label: str) -> None:
    """A fence the body opens and never closes would turn everything after the block into code."""
    lines = body.replace("\r\n", "\n").split("\n")
    structure = scan([*lines, "", "# end"])
    for start, end, _info, _indent in structure.fences:
        if end >= len(lines) + 2:
            raise invalid(
                label,
                f"the body leaves a code fence open (body line {start + 1}: {lines[start].strip()}), "
                "so the rest of the file would become code.",
                "Close the fence inside the body with a matching ``` line.",
            )


def view_references(text: str) -> list[str]:
    """The `@id` references of `text` outside code, in order, once each."""
    doc = Document.parse(text)
    code = doc.index.code
    found: dict[str, None] = {}
    for number, line in enumerate(doc.lines):
        if "[@" not in line or any(start <= number < end for start, end in code):
            continue
        for match in VIEW_REFERENCE.finditer(INLINE_CODE.sub("", line)):
            found[match.group(1) or match.group(2)] = None
    return list(found)


def refuse_view_references(body: str, old_text: str, new_doc: Document, label: str, source: str) -> None:
    """`[text][@link-2]` is how `/open` shows a link; written into the file it replaces the URL with a name that means
    nothing there (and another link in another view). Refused unless the file defines it (`[@id]: url`) or
    already had that exact text."""
    if "[@" not in body:
        return
    defined = new_doc.index.references
    unknown = [ref for ref in view_references(body) if ref not in defined and f"[{ref}]" not in old_text]
    if unknown:
        shown = ", ".join(f"[{ref}]" for ref in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5
                                                                 else "")
        raise invalid(
            label,
            f"the body has link references the file does not define: {shown}. "
            "They are how /open shows links, not the file's text.",
            f"Copy the text from the numbered source view (/edit {command_word(source)}), which has the real URLs.",
        )


def nested_blocks(doc: Document, block: Block, start: int, end: int) -> tuple[str, ...]:
    """The blocks inside the replaced lines, which go with them: `#id (### Heading)` or `#id (marker block)`."""
    found: list[tuple[int, str]] = []
    for line, _end, level, text, explicit, slug in doc.index.headings:
        if start <= line < end and level > block.level:
            found.append((line, f"#{explicit or slug} ({'#' * level} {text})"))
    for marker_id, open_line, _close in doc.index.markers:
        if start <= open_line < end:
            found.append((open_line, f"#{marker_id} (marker block)"))
    return tuple(text for _line, text in sorted(found))


Row = tuple[int, str]  # (line, the heading or marker as written: "## Setup", "<!-- #tip -->")


def _outside(rows: list[Row], start: int, end: int, shift: int) -> list[Row]:
    """Rows outside lines [start, end), the lines after them moved by `shift` so old and new compare."""
    return [(line + (shift if line >= end else 0), shown) for line, shown in rows if not start <= line < end]


def _structure(doc: Document) -> list[Row]:
    headings = [(line, f"{'#' * level} {text}") for line, _end, level, text, *_ in doc.index.headings]
    return headings + [(line, f"<!-- {kind}{marker_id} -->") for kind, marker_id, line in doc.index.marker_lines]


def _pairs(doc: Document, start: int, end: int, shift: int) -> list[tuple[int, int, str]]:
    """(open, close, id) of the marker blocks opened outside lines [start, end): a stray marker re-pairs them."""
    rows = []
    for marker_id, open_line, close_line in doc.index.markers:
        if not start <= open_line < end:
            moved = [line + shift if line >= end else line for line in (open_line, close_line)]
            rows.append((moved[0], moved[1], marker_id))
    return rows


def refuse_damage_outside(old: Document, new: Document, start: int, end: int, count: int, label: str) -> None:
    """Every heading and block marker outside the replaced lines must be found again where it was (an open fence,
    HTML block or marker in the body would otherwise swallow or re-pair the rest of the file)."""
    shift = count - (end - start)
    before, after = _outside(_structure(old), start, end, shift), _outside(_structure(new), start, start + count, 0)
    pairs_before, pairs_after = _pairs(old, start, end, shift), _pairs(new, start, start + count, 0)
    if before == after and pairs_before == pairs_after:
        return
    kept, kept_pairs = set(after), set(pairs_after)
    lost = [shown for line, shown in before if (line, shown) not in kept]
    lost += [f"marker block #{pair[2]}" for pair in pairs_before if pair not in kept_pairs]
    what = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more" if len(lost) > 3 else "")
    raise invalid(
        label,
        f"with this text the rest of the file would read differently ({what or 'its structure changes'}).",
        "Check the body for an unclosed ``` fence, a block marker or an HTML block left open.",
    )
