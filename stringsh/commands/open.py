"""/open, /back, /refresh: show documents, blocks and folders; the topic's document history."""

from __future__ import annotations

import os
import posixpath
from typing import Any

from stringsh.commands.context import Context
from stringsh.commands.ls import format_listing, list_directory
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.render.document import Document, is_markdown
from stringsh.render.plain import required_env
from stringsh.render.view import DocumentView, budget_from, current_if_fresh, load_view, render_view, resolve_block
from stringsh.workspace.seen import mark_seen

#: Views kept for /back; each holds its text, so the list is bounded.
HISTORY_LIMIT = 20

USAGE = (
    "Usage: /open <path | path#block | #block | @shortcut>\n"
    "Examples:\n"
    "  /open README.md\n"
    "  /open docs/setup.md#install\n"
    "  /open #install\n"
    "  /open @home"
)


def split_from(ctx: Context, name: str) -> tuple[str | None, int]:
    """(target, 0-based start line) from `/name [target] [--from N]`."""
    args = list(ctx.args)
    start = 0
    if "--from" in args:
        i = args.index("--from")
        value = args[i + 1] if i + 1 < len(args) else ""
        if not value.isdigit() or int(value) < 1:
            raise StringError("INVALID_PAYLOAD", f"--from needs a line number (1 or more), got: {value or '(nothing)'}")
        start = int(value) - 1
        del args[i : i + 2]
    if len(args) > 1:
        raise StringError("INVALID_PAYLOAD", f"/{name} takes one target, got {len(args)}: {' '.join(args)}",
                          "Quote a path that contains spaces.")
    return (args[0] if args else None), start


def current_view(ctx: Context) -> DocumentView:
    view = ctx.session.document
    if not isinstance(view, DocumentView):
        raise StringError("INVALID_TARGET", "No document open.", "Open one with /open <path>.")
    return view


def missing_env(ctx: Context, view: DocumentView) -> list[str]:
    """Variables named by `requires:` that are neither session variables nor in the environment."""
    if view.kind != "markdown" or view.block:
        return []
    known = ctx.session.variables
    wanted = [name for name in required_env(view.doc) if not known.get(name) and not os.environ.get(name)]
    if not wanted:
        return []
    from stringsh.actions.envstore import EnvStore, scope_for_topic  # persistent `/set $NAME` values count too

    store, scope = EnvStore(), scope_for_topic(ctx.session.topic)
    return [name for name in wanted if not store.get(name, scope)]


def include_loader(ctx: Context, view: DocumentView):  # type: ignore[no-untyped-def]
    """Loads `[!include:id](path)` targets relative to the including document, through the engine."""
    workspace = ctx.dispatcher.workspace

    def load(path: str, base: str) -> tuple[str, Document]:
        base = base or view.path
        rel = workspace.relative(posixpath.normpath(posixpath.join(posixpath.dirname(base), path)) if path else base)
        text_file = workspace.read_text(rel, topic=ctx.session.topic)
        if not is_markdown(text_file.rel):
            return text_file.rel, Document(text_file.text, text_file.sha256)
        from stringsh.render.cache import cache_for

        return text_file.rel, Document.parse(text_file.text, text_file.sha256, cache_for(ctx.dispatcher.root))

    return load


def show(ctx: Context, view: DocumentView, verb: str, *, start: int = 0, label: str | None = None) -> Result:
    """Render a view as `<verb> <label>\\n---\\n<content>`."""
    remote = getattr(view, "reload_remote", None) is not None  # a page a server returned includes no local file
    loader = None if remote else include_loader(ctx, view)
    content = render_view(view, start=start, budget=budget_from(ctx.session.variables),
                          missing_env=missing_env(ctx, view), load_include=loader)
    from stringsh.commands.act import default_action_output  # front matter `default:` runs that action

    extra = default_action_output(ctx, view) if start == 0 else None
    if extra:
        content = f"{content}\n\n---\n\n{extra}"
    return Result(f"{verb} {label if label is not None else view.label}", content)


def _exists(workspace: Any, path: str) -> bool:
    """Whether `path` names something reachable; a refused path is simply not a candidate here."""
    try:
        return workspace.stat(path) is not None
    except StringError:
        return False


def resolve_path(ctx: Context, target: str) -> str:
    """A relative path is looked up beside the open document first, then from the workspace root."""
    workspace = ctx.dispatcher.workspace
    view = ctx.session.document
    if isinstance(view, DocumentView) and view.folder and not target.startswith("/"):
        beside = posixpath.normpath(posixpath.join(view.folder, target))
        if not beside.startswith("../") and _exists(workspace, beside):
            return workspace.relative(beside, reading=True)
    return workspace.relative(target, reading=True)  # reading: a shell reply's spool file can be opened


def open_path(ctx: Context, target: str, block: str | None, start: int) -> Result:
    workspace = ctx.dispatcher.workspace
    session = ctx.session
    rel = resolve_path(ctx, target) if target else current_view(ctx).path
    info = workspace.stat(rel)
    if info is None:
        raise StringError("NOT_FOUND", f"File not found: {target}")
    if info.is_dir:
        if block:
            raise StringError("INVALID_TARGET", f"Not a document: {target} is a folder", f"Use /open {target}")
        display, entries = list_directory(workspace, rel, topic=session.topic)
        return format_listing(display, entries)
    previous = session.document
    fresh = current_if_fresh(previous, workspace, info.rel)
    view = fresh.with_block(block) if fresh is not None else load_view(workspace, rel, root=ctx.dispatcher.root)
    view.block = block
    if block:
        try:
            resolve_block(view, block)
        except StringError:
            if fresh is None:
                view.close()
            raise
    mark_seen(session.seen, workspace, view.path, view.sha256)
    if isinstance(previous, DocumentView):
        if previous.path != view.path:
            push_history(session, previous, view)
        elif previous.watcher is not view.watcher:
            previous.close()
    session.document = view
    return show(ctx, view, "Opened", start=start)


def push_history(session: Any, previous: DocumentView, current: DocumentView) -> None:
    """Remember the previous view; the oldest entries are dropped (and stop being watched) past HISTORY_LIMIT."""
    session.history.append(previous)
    while len(session.history) > HISTORY_LIMIT:
        oldest = session.history.pop(0)
        live = [current, *session.history]
        if all(view.watcher is not oldest.watcher for view in live if isinstance(view, DocumentView)):
            oldest.close()


def open_shortcut(ctx: Context, target: str, start: int) -> Result:
    """`@id[#block]`: a page shortcut of the open document, then an auto-shortcut of its last rendering."""
    view = current_view(ctx)
    name, _, fragment = target[1:].partition("#")
    shortcuts = {sid: href for sid, _label, href, _line in view.index.shortcuts} if view.kind == "markdown" else {}
    href = shortcuts.get(name) or view.auto_shortcuts.get(name)
    if not href:
        from stringsh.commands.nav import menu_href  # `@menu.id` entries of the page's menus

        href = menu_href(ctx, view, name)
    if not href:
        known = [*shortcuts, *view.auto_shortcuts]
        hint = f"Available: {', '.join('@' + k for k in known)}" if known else "This page has no shortcuts."
        raise StringError("NOT_FOUND", f"Shortcut not found: @{name}", hint)
    if "://" in href:
        raise StringError("LOAD_ERROR", f"Web pages cannot be opened here: {href}", "Open local files by path.")
    path, _, href_block = href.partition("#")
    block = fragment or href_block or None
    if not path:
        return open_block(ctx, block or "", start)
    return open_path(ctx, posixpath.normpath(posixpath.join(view.folder, path)), block, start)


def open_block(ctx: Context, block: str, start: int) -> Result:
    """`#block` of the open document: no new history entry."""
    view = current_view(ctx)
    if not block:
        return show(ctx, view.with_block(None), "Opened", start=start)
    resolve_block(view, block)
    ctx.session.document = shown = view.with_block(block)
    return show(ctx, shown, "Opened", start=start)


@handler("open")
def open_(ctx: Context) -> Result:
    target, start = split_from(ctx, "open")
    if target is None:
        view = ctx.session.document
        if not isinstance(view, DocumentView):
            raise StringError("INVALID_TARGET", USAGE)
        if getattr(view, "reload_remote", None) is not None:  # a page an HTTP action returned (commands/act.py)
            ctx.session.document = view = reload(ctx, view)
            return show(ctx, view, "Opened", start=start)
        return open_path(ctx, "", view.block, start)
    if target.startswith("@"):
        return open_shortcut(ctx, target, start)
    if target.startswith("#"):
        return open_block(ctx, target[1:], start)
    path, _, block = target.partition("#")
    return open_path(ctx, path, block or None, start)


def reload(ctx: Context, view: DocumentView) -> DocumentView:
    """Read a view's file again; the block and the watch carry over."""
    if getattr(view, "reload_remote", None) is not None:  # a page an HTTP action returned (commands/act.py)
        return view.reload_remote()  # type: ignore[attr-defined]
    fresh = load_view(ctx.dispatcher.workspace, view.path, root=ctx.dispatcher.root, watch_file=view.watcher is None)
    if fresh.watcher is None:
        fresh.watcher = view.watcher
        if fresh.watcher is not None:
            fresh.watcher.changed.clear()
    fresh.block = view.block
    mark_seen(ctx.session.seen, ctx.dispatcher.workspace, fresh.path, fresh.sha256)
    return fresh


@handler("back")
def back(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "Usage: /back")
    session = ctx.session
    if not session.history:
        raise StringError("INVALID_TARGET", "No previous page in history.")
    previous = session.history.pop()
    try:
        view = reload(ctx, previous)
    except StringError:
        view = previous  # gone or unreadable now: show what was read before, as String does
    current = session.document
    if isinstance(current, DocumentView) and current.watcher is not view.watcher:
        current.close()
    session.document = view
    if view.block and view.kind == "markdown" and view.doc.resolve(view.block) is None:
        view.block = None
    return show(ctx, view, "Back to", label=view.path)


@handler("refresh")
def refresh(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "Usage: /refresh")
    view = current_view(ctx)
    fresh = reload(ctx, view)
    block, fresh.block = fresh.block, None
    ctx.session.document = fresh  # the document is reloaded even when its block is gone (the next /refresh shows it)
    if block:
        resolve_block(fresh, block)
        ctx.session.document = fresh = fresh.with_block(block)
    return show(ctx, fresh, "Refreshed", label=fresh.path)
