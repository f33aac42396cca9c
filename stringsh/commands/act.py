"""/act: list the open page's actions, show one's flags, or run it (CLI, HTTP, template or doc response).

Also `default_action_output`, which /open, /back and /refresh call for front matter `default:`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.actions.envstore import EnvStore, scope_for_topic
from stringsh.actions.envvars import REFERENCE, EnvResolver
from stringsh.actions.fences import indexed_fences, parse_actions
from stringsh.actions.flags import needs_schema_only
from stringsh.actions.model import Action
from stringsh.actions.schema import render_action, render_actions
from stringsh.commands.context import Context
from stringsh.commands.nav import current_document, resolve_shortcut, shortcut_ids
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace.models import ChangeSet

if TYPE_CHECKING:
    from stringsh.actions.run import ActionHost, Outcome
    from stringsh.render.view import DocumentView

NO_DOCUMENT = "No document open. Use /open <uri> first."
#: Session variable that sets the HTTP timeout in seconds (default 30).
HTTP_TIMEOUT = "_http_timeout"


def page_actions(view: DocumentView) -> list[Action]:
    """The page's actions; a document a server returned never gets to run commands here (no CLI actions)."""
    from stringsh.actions.remote import RemoteView

    if view.kind != "markdown":
        return []
    actions = parse_actions("", indexed_fences(view.doc.lines, view.index.fences))
    return [a for a in actions if not a.is_cli] if isinstance(view, RemoteView) else actions


def make_host(ctx: Context, view: DocumentView) -> ActionHost:
    from stringsh.actions.http import HttpLimits  # the HTTP and CLI machinery loads when an action runs
    from stringsh.actions.run import ActionHost

    workspace = ctx.dispatcher.workspace
    topic = ctx.session.topic
    folder = view.folder
    cwd = Path(ctx.dispatcher.root) / folder if folder else Path(ctx.dispatcher.root)

    def read_bytes(path: str) -> bytes:
        return workspace.read_bytes(workspace.relative(path), topic=topic)

    def write_file(path: str, data: bytes) -> None:
        workspace.apply(ChangeSet().write(workspace.relative(path), data), topic=topic)

    shell = getattr(getattr(workspace, "policy", None), "shell", None)
    limits = HttpLimits()
    wanted = ctx.session.variables.get(HTTP_TIMEOUT, "").strip()
    if wanted:
        try:
            limits = HttpLimits(timeout=max(float(wanted), 0.05))
        except ValueError:
            raise StringError(
                "INVALID_PAYLOAD", f"{{{HTTP_TIMEOUT}}} must be a number of seconds, got: {wanted}"
            ) from None
    return ActionHost(
        variables=ctx.session.variables,
        env=EnvResolver(EnvStore(), scope_for_topic(topic)),
        cwd=cwd,
        resolve_shortcut=lambda ident: resolve_shortcut(ctx, ident),
        shortcut_ids=lambda: shortcut_ids(ctx),
        read_bytes=read_bytes,
        write_file=write_file,
        exported=ctx.session.exported_variables(),
        cli_timeout=float(getattr(shell, "timeout", 120.0)),
        http_limits=limits,
        cli_wrap=sandbox_wrap(shell, Path(ctx.dispatcher.root)),
    )


def sandbox_wrap(shell: object, root: Path):  # type: ignore[no-untyped-def]
    """The policy's shell sandbox for CLI actions, as the shell's provider builds it; asked for and missing is an
    error (the provider raises it), never a silent fallback."""
    sandbox = getattr(shell, "sandbox", False)
    if not sandbox or sandbox == "none":
        return None
    from stringsh.workspace.shell.providers import make_provider

    provider = make_provider("bubblewrap" if sandbox is True else str(sandbox))
    return lambda argv: provider.wrap(argv, root)


def open_response(ctx: Context, outcome: Outcome) -> Result:
    """A doc response becomes the open document (pushed on history): `Opened <uri>` + the rendering."""
    from stringsh.actions.remote import RemoteView
    from stringsh.render.document import Document
    from stringsh.render.view import DocumentView, budget_from, render_view

    session = ctx.session
    text = outcome.content or ""
    view = RemoteView(
        outcome.uri or "response", "markdown", Document.parse(text), len(text.encode()), refetch=outcome.refetch
    )
    previous = session.document
    if isinstance(previous, DocumentView):
        from stringsh.commands.open import push_history  # bounded, and the dropped views stop being watched

        push_history(session, previous, view)
    session.document = view
    content = render_view(view, budget=budget_from(session.variables))
    return Result(outcome.message, content)


def refuse_remote_secrets(view: DocumentView, action: Action) -> None:
    """A page a server returned must not send the user's `$NAME` values (env store, environment) anywhere."""
    from stringsh.actions.remote import RemoteView

    if not isinstance(view, RemoteView):
        return
    texts = [action.uri, action.body or "", *(value for _, value in action.headers)]
    texts += [f.default for f in action.fields if f.default]
    names = list(dict.fromkeys(f"${m.group(1)}" for text in texts for m in REFERENCE.finditer(text)))
    if names:
        raise StringError(
            "NOT_PERMITTED",
            f"/act.{action.id}: a page a server returned cannot use $NAME values ({', '.join(names)}).",
            "Only documents of this workspace can; copy the action into one if you trust it.",
        )


def invoke(ctx: Context, view: DocumentView, action: Action, flag_text: str, *, navigate: bool = True) -> Result:
    if needs_schema_only(action, flag_text):
        return Result(f"Action: {action.id}", render_action(action))
    refuse_remote_secrets(view, action)
    from stringsh.actions.run import run_action

    outcome = run_action(action, flag_text, make_host(ctx, view))
    if outcome.kind == "help":
        return Result(outcome.message, render_action(action))
    if outcome.kind == "doc":
        if navigate:
            return open_response(ctx, outcome)
        return Result(outcome.message, outcome.content)
    if outcome.kind == "template":
        return Result(render_template_output(view, outcome.message))
    return Result(outcome.message, outcome.content, outcome.ok, outcome.code)


def render_template_output(view: DocumentView, text: str) -> str:
    """Template output is SFMD: rendered like a page, its web links become `@id`s merged into the page's."""
    from stringsh.render.document import Document
    from stringsh.render.plain import render_document

    rendered = render_document(Document.parse(text), budget=0)
    view.auto_shortcuts.update(rendered.shortcuts)
    return rendered.text or "(no output)"


@handler("act")
def act(ctx: Context) -> Result:
    view = current_document(ctx)
    if view is None:
        raise StringError("INVALID_TARGET", NO_DOCUMENT)
    text = ctx.arg_text.strip()
    actions = page_actions(view)
    if not text or text in ("--help", "-h"):
        return Result("Actions", render_actions(actions))
    ident, _, flag_text = text.partition(" ")
    action = next((a for a in actions if a.id == ident), None)
    if action is None:
        available = ", ".join(a.id for a in actions) or "none"
        tail = "Use /act.<name> --help to inspect an action." if actions else "No actions defined on current document."
        raise StringError("NOT_FOUND", f'Action not found: "{ident}"', f"Available: {available}\n{tail}")
    return invoke(ctx, view, action, flag_text.strip())


def default_action_output(ctx: Context, view: DocumentView) -> str | None:
    """Front matter `default: <action>`: its output, to append after `\\n\\n---\\n\\n`; None when there is none.

    A failing default is reported as a line, not an error: the document itself opened fine.
    """
    from stringsh.actions.remote import RemoteView

    if view.kind != "markdown" or view.block or isinstance(view, RemoteView):
        return None
    name = view.index.front_matter.get("default")
    if not isinstance(name, str) or not name.strip():
        return None
    name = name.strip().removeprefix("/act.").removeprefix("act.")
    action = next((a for a in page_actions(view) if a.id == name), None)
    if action is None:
        return f'[!] default action not found: "{name}"'
    if any(f.required and f.default is None for f in action.fields):
        return f"Action: {action.id}\n---\n{render_action(action)}"
    try:
        result = invoke(ctx, view, action, "", navigate=False)
    except StringError as exc:
        return f"ERROR({exc.code}): {exc.text}"
    return result.text if result.ok else f"ERROR({result.code}): {result.text}"
