"""/open, /back, /refresh: show documents, blocks and folders; the topic's document history."""

from __future__ import annotations

import posixpath

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import split_from
from stringsh.documents.linerange import parse_line_target
from stringsh.documents.window import check_range, open_window, split_to
from stringsh.errors import StringError, is_a_folder
from stringsh.hints import command_word
from stringsh.protocol.response import Result, document_fields
from stringsh.render.plain import required_env
from stringsh.render.view import DocumentView, budget_from, masked, render_view, resolve_block

USAGE = (
    "Usage: /open <path | path#block | #block | @shortcut>\n"
    "Examples:\n"
    "  /open README.md\n"
    "  /open docs/setup.md#install\n"
    "  /open #install\n"
    "  /open @home\n"
    "  /open https://example.org/page"
)


def missing_env(ctx: Context, view: DocumentView) -> list[str]:
    """Variables named by `requires:` that are neither session variables nor among the process variables the page
    may use (a trusted workspace's: what the shell's environment rule passes; any other page's: none)."""
    if view.kind != "markdown" or view.block:
        return []
    known = ctx.session.variables
    wanted = [name for name in required_env(view.doc) if not known.get(name)]
    environ = ctx.documents.workspace.page_environment() if wanted and not view.remote else {}
    wanted = [name for name in wanted if not environ.get(name)]
    if not wanted:
        return []
    from stringsh.actions.envstore import EnvStore, scope_for_topic  # persistent `/set $NAME` values count too

    store, scope = EnvStore(), scope_for_topic(ctx.session.topic)
    return [name for name in wanted if not store.get(name, scope)]


def show(ctx: Context, view: DocumentView, verb: str, *, start: int = 0, label: str | None = None,
         end: int | None = None) -> Result:
    """Render a view as `<verb> <label>\\n---\\n<content>`; `end` (`--to`) ends it at that line."""
    documents = ctx.documents
    # Secrets masked line for line in a copy; the open view keeps the file's text, which edits splice.
    shown = masked(view, documents.workspace.redact_lines)
    budget = end - start if end is not None else budget_from(ctx.session.variables)
    wanted = missing_env(ctx, view)
    content = render_view(shown, start=start, budget=budget, missing_env=wanted,
                          load_include=documents.include_loader(view),
                          setup=documents.requirements_file(view) if wanted else None,
                          unfold=documents.unfold_navs(view) if start == 0 else None)  # menus' first view
    if end is not None:  # the limit was the user's own `--to`: say so, not that a limit was hit
        cut, asked = f"[cut] Output limit of {budget} lines reached", f"[--to {end}] Shown up to line {end}"
        content = content.replace(cut, asked, 1)
    view.auto_shortcuts = shown.auto_shortcuts
    extra = documents.default_action_output(view) if start == 0 else None  # front matter `default:`
    if extra:
        content = f"{content}\n\n---\n\n{extra}"
    shown_label = label if label is not None else view.label  # a returned page's label is its URL
    fields = None if view.remote else document_fields(view.path, view.block)
    return Result(f"{verb} {shown_label}", content, fields=fields)


def open_path(ctx: Context, target: str, block: str | None, start: int, end: int | None = None) -> Result:
    documents = ctx.documents
    workspace = documents.workspace
    rel = documents.resolve_path(target) if target else documents.current().path
    info = workspace.stat(rel)
    if info is None:
        with workspace.audited("read", [rel], topic=ctx.session.topic):  # a read of nothing is recorded too
            raise workspace.not_found(rel, target)
    if info.is_dir:
        if block:
            raise is_a_folder(target, f"Use /open {command_word(target)}")
        from stringsh.documents.listing import format_listing, list_directory  # (folders, line ranges and --plain
        # load their modules when used: a repeat /open of a page never needs them)

        display, entries = list_directory(workspace, rel, topic=ctx.session.topic)
        documents.enter_folder(display)  # the topic's folder now, as String's cwd override
        return format_listing(display, entries)
    if not block and info.size > workspace.policy.limits.max_read_bytes:  # too large to read whole: page it
        return open_window(ctx, info.rel, start, end)
    view = documents.open_file(rel, info, block)
    if block and end is not None and not start and view.symbols is not None:
        start = resolve_block(view, block).start  # `--to` alone: from the symbol's first line
    return show(ctx, view, "Opened", start=start, end=end)


def open_shortcut(ctx: Context, target: str, start: int, end: int | None = None) -> Result:
    """`@id[#block]`: a page shortcut of the open document, then an auto-shortcut of its last rendering."""
    from stringsh.documents.shortcuts import menu_href, page_shortcuts  # menus load only when `@` is used

    name, _, fragment = target[1:].partition("#")
    held = value_href(ctx, name) if ctx.documents.current_or_none() is None else None
    if held:  # a value shortcut (`/symbols` numbers its hits `@s1`…) needs no open document
        path, _, href_block = held.partition("#")
        return open_path(ctx, path, fragment or href_block or None, start, end)
    view = ctx.documents.current()
    shortcuts = page_shortcuts(view)
    href = shortcuts.get(name) or value_href(ctx, name) or view.auto_shortcuts.get(name)
    href = href or menu_href(ctx.documents, view, name)
    if not href:
        known = list(dict.fromkeys([*shortcuts, *ctx.session.value_shortcuts, *view.auto_shortcuts]))
        hint = f"Available: {', '.join('@' + k for k in known)}" if known else "This page has no shortcuts."
        raise StringError("NOT_FOUND", f"Shortcut not found: @{name}", hint)
    path, _, href_block = href.partition("#")
    block = fragment or href_block or None
    if "://" in href or view.remote:
        from stringsh.documents.web import web_href  # the web machinery loads only when a page is fetched

        url = web_href(view.path, path) if path else None
        if url is not None:
            return open_web(ctx, url, block, start, end)
        if "://" in href:
            raise StringError(
                "LOAD_ERROR", f"Web pages cannot be opened here: {href}", "Open https:// pages or local files."
            )
    if not path:
        return open_block(ctx, block or "", start, end)
    return open_path(ctx, posixpath.normpath(posixpath.join(view.folder, path)), block, start, end)


def value_href(ctx: Context, name: str) -> str | None:
    """A value shortcut a response template registered (`{@name} = …`), as a target to open."""
    held = ctx.session.value_shortcuts.get(name)
    if held is None or isinstance(held, str):
        return held
    raise StringError(
        "INVALID_TARGET", f"@{name} holds {len(held)} values ({', '.join(held)}), not one place to open.",
        f"Pass it to an action instead: /act.<name> --<flag> @{name}",
    )


def open_block(ctx: Context, block: str, start: int, end: int | None = None) -> Result:
    """`#block` of the open document: no new history entry."""
    return show(ctx, ctx.documents.show_block(block or None), "Opened", start=start, end=end)


def is_web(target: str) -> bool:
    return target[:8].lower().startswith(("http://", "https://"))


def open_web(ctx: Context, url: str, block: str | None, start: int, end: int | None = None) -> Result:
    """A web page becomes the open document (on history): `Opened <url>` and its markdown."""
    from stringsh.documents.web import fetch_view

    view = fetch_view(ctx.documents, url)
    if block:
        resolve_block(view, block)
        view = view.with_block(block)
    ctx.documents.navigate(view)
    return show(ctx, view, "Opened", start=start, end=end)


@handler("open")
def open_(ctx: Context) -> Result:
    args, end = split_to(ctx.args)
    args, plain = split_plain(args)
    target, start = split_from(args, "open")
    check_range(start, end)
    if plain:
        return open_plain(ctx, target, start, end)
    if target is None:
        view = ctx.documents.current(USAGE, None)
        if view.remote:  # a page an HTTP action returned: fetched again, not read from a file
            return show(ctx, ctx.documents.reload_current(), "Opened", start=start, end=end)
        return open_path(ctx, "", view.block, start, end)
    if target.startswith("@"):
        return open_shortcut(ctx, target, start, end)
    if target.startswith("#"):
        return open_block(ctx, target[1:], start, end)
    if is_web(target):
        url, _, fragment = target.partition("#")
        return open_web(ctx, url, fragment or None, start, end)
    line = None if "#" in target else parse_line_target(target, lambda p: exists(ctx, p))
    if line is not None:
        if end is not None:
            raise StringError("INVALID_PAYLOAD", f"--to does not go with a line range: {target}",
                              f"Name the last line in the range: /open {command_word(line.path)}:L{line.start}-L{end}")
        from stringsh.documents.rangeview import range_view

        return range_view(ctx, line, ctx.documents.resolve_path(line.path), "/open", start)
    path, _, block = target.partition("#")
    return open_path(ctx, path, block or None, start, end)


def split_plain(args: list[str]) -> tuple[list[str], bool]:
    """(the other words, whether `--plain` was given); words after `--` are never flags."""
    head = args[: args.index("--")] if "--" in args else args
    if "--plain" not in head:
        return args, False
    rest = list(args)
    del rest[head.index("--plain")]
    return rest, True


def open_plain(ctx: Context, target: str | None, start: int, end: int | None) -> Result:
    """`/open … --plain` (documents/plainview.py): the target's exact text; a window, a folder or a web page
    refused with the way to read it."""
    from stringsh.documents.plainview import plain_view, refuse_web, refuse_window

    current = ctx.documents.current(USAGE, None) if target is None or target.startswith("#") else None
    if current is not None and current.remote:
        raise refuse_web(current.path)
    path, block = (current.path, target[1:] if target else current.block) if current is not None else (None, None)
    if target is not None and target.startswith("@"):
        name, _, fragment = target[1:].partition("#")
        held = value_href(ctx, name)
        if not held:
            raise StringError("INVALID_TARGET", f"--plain follows a value shortcut (/symbols numbers its hits @s1…), "
                              f"not a page's: @{name}",
                              f"Open it first (/open {command_word(target)}), then /open --plain.")
        target = held if not fragment else f"{held.partition('#')[0]}#{fragment}"
    if target is not None and not target.startswith("#"):
        if is_web(target):
            raise refuse_web(target)
        path, _, named = target.partition("#")
        block = named or None
    line = None if block or target is None or "#" in target else parse_line_target(target, lambda p: exists(ctx, p))
    if start or end is not None:  # the lines asked for, named as a range
        raise refuse_window(path, start, end) if line is None else \
            refuse_window(line.path, start or line.start - 1, end or line.end)
    if line is not None:
        return plain_view(ctx, line.path, None, line)
    return plain_view(ctx, path or "", block or None)


def exists(ctx: Context, target: str) -> bool:
    """Whether `target` names a file or folder (a file may be called `x:Ly`)."""
    try:
        return ctx.documents.workspace.stat(ctx.documents.resolve_path(target)) is not None
    except StringError:
        return False


@handler("back")
def back(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "Usage: /back")
    view = ctx.documents.back()
    return show(ctx, view, "Back to")  # its label: the block it returns to (`Back to a.md#setup`), or the URL


@handler("refresh")
def refresh(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "Usage: /refresh")
    fresh = ctx.documents.refresh()
    return show(ctx, fresh, "Refreshed", label=fresh.path)
