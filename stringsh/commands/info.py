"""/info: what this topic has open and knows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.render.blockids import LIST_CAP, capped

if TYPE_CHECKING:
    from stringsh.render.view import DocumentView
    from stringsh.workspace import Workspace

KEY_WIDTH = 11


def info_line(key: str, value: str) -> str:
    """`key:` padded so values line up at column 11, as String prints them."""
    return f"{key + ':':<{KEY_WIDTH}}{value}"


def variables_summary(variables: dict[str, str]) -> str:
    if not variables:
        return "(none)"
    return ", ".join(
        f'{{{k}}}="{v}"' if "\n" not in v else f"{{{k}}}=({v.count(chr(10)) + 1} lines)" for k, v in variables.items()
    )


@handler("info")
def info(ctx: Context) -> Result:
    if ctx.args and ctx.args[0].startswith("@"):
        return shortcut_info(ctx, ctx.args[0])
    session = ctx.session
    view = ctx.documents.current_or_none()
    folder = ctx.documents.folder  # the folder `/open <folder>` entered, else the document's
    cwd = f"./{folder}/" if folder else "./"
    head, colon, _ = folder.partition(":")
    if colon and "/" not in head and not head.startswith("."):  # in another root: `docs:`, `docs:sub/`
        cwd = folder if folder.endswith(":") else f"{folder}/"
    lines = [info_line("topic", session.topic), info_line("root", str(ctx.dispatcher.root))]
    lines.extend(roots_lines(ctx.dispatcher.workspace))
    lines.append(info_line("cwd", cwd))
    key = "url" if view is not None and view.remote else "file"  # a web page or a server's answer: String's url:
    lines.append(info_line(key, "(none open)" if view is None else view.path))
    if view is not None:
        lines.extend(document_lines(view, ctx.dispatcher.workspace))
    count = len(session.history)
    lines.append(info_line("history", f"{count} entr{'y' if count == 1 else 'ies'}"))
    lines.append(info_line("vars", variables_summary(session.variables)))
    lines.append(info_line("shell env", ctx.dispatcher.workspace.shell_environment()))
    lines.extend(setup_lines(ctx.dispatcher.workspace))
    lines.extend(journal_lines(ctx.dispatcher.workspace))
    warnings = document_warnings(ctx, view) if view is not None and view.kind == "markdown" else []
    if warnings:
        lines.append("Warnings:")
        lines.extend(f"  {warning}" for warning in warnings)
    return Result("Session info", "\n".join(lines))  # a title or value that is a key is masked with the reply


def setup_lines(workspace: Workspace) -> list[str]:
    """What a person asks when something is refused or vanishes: which policy layers are in force, whether the
    shell is sandboxed (and why not), and where this workspace's state lives (docs/configuration.md)."""
    from stringsh.workspace import policy_summary, shown_path

    settings = workspace.sandbox_settings()
    sandbox = ("bubblewrap: the workspace writable, the rest of the system read-only or hidden"
               if settings.sandbox != "none" else f"off ({settings.why_not})")
    return [info_line("policy", policy_summary(workspace.policy)), info_line("sandbox", sandbox),
            info_line("state", shown_path(workspace.state_dir) + "/")]


def journal_lines(workspace: Workspace) -> list[str]:
    """How much the change journal keeps: nothing before the first change made it."""
    depth = workspace.journal_depth()
    if depth is None or depth.oldest is None:
        return []
    from stringsh.workspace import human_size, prune_at

    keep = workspace.policy.journal
    count = f"{depth.changes} change{'' if depth.changes == 1 else 's'}"
    return [info_line("journal", f"{count} kept (oldest {depth.oldest}, newest {depth.newest}), "
                      f"{human_size(depth.bytes)} of previous content; keeps the newest {keep.keep_changes} changes "
                      f"(pruned at {prune_at(keep)}) and at most {human_size(keep.keep_bytes)}")]


def roots_lines(workspace: Workspace) -> list[str]:
    """With more than one root, each as a path names it (`docs:`), its folder and mode; one root: nothing."""
    roots = workspace.confiner.root_list()
    if len(roots) < 2:
        return []
    names = [f"{ident}:" for ident, _, _ in roots]
    width = max(len(name) for name in names) + 2
    entries = [f"{name:<{width}}{mode:<12}{folder}" for name, (_, folder, mode) in zip(names, roots, strict=True)]
    entries[0] += "  (the workspace: paths without a root name)"
    return [info_line("roots", entries[0]), *(" " * KEY_WIDTH + entry for entry in entries[1:])]


def document_warnings(ctx: Context, view: DocumentView) -> list[str]:
    """The page's authoring problems: the index's (blocks, ids), then shortcuts that lead nowhere."""
    warnings = list(view.index.warnings)
    if view.index.shortcuts or view.index.references:
        from stringsh.documents.shortcuts import broken_shortcuts

        warnings.extend(broken_shortcuts(ctx.documents, view))
    return warnings


def shortcut_info(ctx: Context, reference: str) -> Result:
    """`/info @id`: `@id → href` (a shortcut or menu entry of the open page), or NOT_FOUND with the ids there are."""
    from stringsh.documents.shortcuts import resolve_shortcut, shortcut_ids

    ident = reference[1:].partition("#")[0]
    target = resolve_shortcut(ctx.documents, ident)
    if target is None:
        ids = shortcut_ids(ctx.documents)
        hint = f"Available: {', '.join('@' + i for i in ids)}" if ids else "This page has no shortcuts."
        raise StringError("NOT_FOUND", f"Shortcut not found: @{ident}", hint)
    return Result(f"@{ident} → {target}")  # a link can carry a token: masked with the reply


def blocks_summary(ids: list[str]) -> str:
    """The ids `#id` takes, capped so 300 headings do not bury the other keys; the hint says what the rest are."""
    if len(ids) <= LIST_CAP:
        return ", ".join(ids) if ids else "(none)"
    return f"{capped(ids)} (a heading's id is its slug: /help open)"


def document_lines(view: DocumentView, workspace: Workspace) -> list[str]:
    """The document keys of String's /info: name and version (front matter), title, block, blocks, menus,
    shortcuts, actions; and staleness."""
    lines: list[str] = []
    if view.kind == "binary":
        lines.append(info_line("type", f"{view.mime}, {view.size} bytes (binary)"))
    if view.symbols is not None:  # a source file: its blocks are its symbols
        if view.block:
            lines.append(info_line("block", f"#{view.block}"))
        lines.append(info_line("language", view.symbols.language))
        lines.append(info_line("blocks", blocks_summary(view.symbols.block_ids())))
        if view.symbols.errors:
            line, column = view.symbols.errors[0]
            lines.append(info_line("syntax", f"the parser found an error at line {line}, column {column}"))
    if view.kind == "markdown":
        from stringsh.documents.shortcuts import page_shortcuts

        index = view.index
        for key in ("name", "version"):  # an app page's identity, as String's /info shows it
            value = index.front_matter.get(key)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
                lines.append(info_line(key, str(value).strip()))
        if index.title:
            lines.append(info_line("title", index.title))
        if view.block:
            lines.append(info_line("block", f"#{view.block}"))
        ids = index.block_ids()
        lines.append(info_line("blocks", blocks_summary(ids)))
        if index.menus:
            lines.append(info_line("menus", ", ".join(dict.fromkeys(menu[0] for menu in index.menus))))
        page = [f"@{ident}" for ident in page_shortcuts(view)]
        auto = len(view.auto_shortcuts)
        if page or auto:
            lines.append(info_line("shortcuts", ", ".join(page + ([f"+{auto} auto"] if auto else []))))
        if index.actions:
            lines.append(info_line("actions", ", ".join(f"{a[0]}({a[1]})" for a in index.actions)))
    try:
        stale = view.is_stale(workspace)
    except StringError:
        stale = True
    if stale:
        lines.append(info_line("stale", "yes, the file changed on disk since it was opened (/refresh reloads it)"))
    return lines
