"""`/open … --plain`: a file, a block, a symbol or a line range as its exact text: no line numbers, no rendering
(front matter, includes, markers and `act.*` fences stay as written), no outline, no hint line and no cut, secrets
masked as every read is. What a body-replacing edit takes back whole: a symbol's lines are the ones
documents/symbolbody.py gives MCP `view_symbol plain`, JSON `read_symbol` and OPERATOR_CMD `fs.readSymbol
plain: true`; a markdown block's are the lines `/edit path#block` replaces (a heading block with its heading, which
the edit accepts at the start of its body).

The title line says what was shown (`Opened a.py#f (plain, lines 3-9)`, `Opened a.md (plain, 12 lines)`), and,
for a whole file, when it has no final newline, is not UTF-8 or starts with a BOM: the only facts the text itself
cannot carry. A windowed read has no plain form but a line range (`/open a.log:L10-L20 --plain`); a file past the
read limit, a folder, a binary file and a web page are refused with the way to read them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents.linerange import LineTarget
from stringsh.documents.rangeview import check_bounds
from stringsh.errors import StringError, is_a_folder
from stringsh.hints import command_word, shell_hint
from stringsh.protocol.response import Result, document_fields
from stringsh.render.view import masked, resolve_block
from stringsh.workspace import split_lines

if TYPE_CHECKING:
    from stringsh.documents.host import Caller

#: What `--plain` names in its refusals.
SHOWS = "--plain shows a file, block or symbol whole"


def refuse_window(path: str | None, start: int, end: int | None) -> StringError:
    """`--from`/`--to` with `--plain`: the exact lines are a line range (`path:LA-LB`), named in the hint."""
    lines = f"L{start + 1 if start else 1}-L{end}" if end is not None else f"L{start + 1}-L{start + 400}"
    where = f"/open {command_word(path)}:{lines} --plain" if path else f"/open path:{lines} --plain"
    return StringError("INVALID_PAYLOAD", f"{SHOWS}: --from and --to do not go with it",
                       f"For those lines exactly, name them as a range: {where}; or leave --plain out.")


def refuse_web(url: str) -> StringError:
    return StringError("INVALID_TARGET", f"{SHOWS} from the workspace, not a web page: {url[:200]}",
                       f"/source {command_word(url.partition('#')[0])} shows what the server sent.")


def plain_view(ctx: Caller, path: str, block: str | None, lines: LineTarget | None = None) -> Result:
    """The reply of `/open path[#block] --plain` (or `/open path:LA-LB --plain`, `lines`): the title, then the text
    exactly. The file counts as read by this topic (its stale-write guard and part guard), as any `/open` does."""
    documents = ctx.documents
    workspace = documents.workspace
    rel = documents.resolve_path(path)
    info = workspace.stat(rel)
    if info is None:
        raise workspace.not_found(rel, path)
    if info.is_dir:
        raise is_a_folder(path, f"Use /ls {command_word(path)}: a folder has no text to show plain.")
    limit = workspace.policy.limits.max_read_bytes
    if info.size > limit:
        raise StringError(
            "TOO_LARGE", f"{info.rel} is {info.size} bytes, past the read limit of {limit}: {SHOWS}",
            f"Read it in windows: /open {command_word(info.rel)} --from 1; exact lines in the shell: "
            + shell_hint("sed -n '1,400p' {rel}", rel=info.rel))
    view = documents.load(info.rel, watch=False)
    if view.kind == "binary":
        raise StringError("BINARY_FILE", f"Binary file: {view.path} ({view.mime}, {view.size} bytes)")
    documents.mark_seen(view)
    text = masked(view, workspace.redact_lines).doc.text
    every = split_lines(text)
    if block:
        found = resolve_block(view, block)
        shown = every[found.start : found.end]
        span = f"line {found.end}" if found.end == found.start + 1 else f"lines {found.start + 1}-{found.end}"
        title = f"{view.path}#{found.id} (plain, {span})"
    elif lines is not None:
        target = LineTarget(view.path, lines.start, lines.end)
        try:
            check_bounds(target, len(every), "/open")
        except StringError as exc:  # the range to use instead (`It ends at line N: /open …`), still plain
            hint = f"{exc.hint} --plain" if exc.hint and exc.hint.startswith("It ends") else exc.hint
            raise StringError(exc.code, exc.message, hint) from None
        shown = every[target.start - 1 : target.end]
        title = f"{target.label} (plain)"
    else:
        shown = every
        facts = [f"{len(every)} line{'s' if len(every) != 1 else ''}"]
        if text and not text.endswith(("\n", "\r")):
            facts.append("no final newline")
        if view.encoding != "utf-8":
            facts.append(view.encoding)
        if view.bom:
            facts.append("BOM")
        title = f"{view.path} (plain, {', '.join(facts)})"
    return Result(f"Opened {title}", "\n".join(shown), fields=document_fields(view.path, block))
