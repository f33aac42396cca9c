"""Running the open page's actions: CLI, HTTP, template or doc response; and front matter `default:`.

/act runs an action by name; /open, /back and /refresh append the `default:` action's output after the page
(through `DocumentService.default_action_output`). Both come here, so neither command imports the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.actions.envstore import EnvStore, scope_for_topic
from stringsh.actions.envvars import REFERENCE, EnvResolver
from stringsh.actions.fences import indexed_fences, parse_actions
from stringsh.actions.flags import needs_schema_only
from stringsh.actions.model import Action
from stringsh.actions.schema import render_action
from stringsh.documents.shortcuts import page_shortcuts, resolve_shortcut, shortcut_ids
from stringsh.errors import StringError, is_a_folder
from stringsh.hints import command_word
from stringsh.protocol.response import Result
from stringsh.workspace import ChangeSet

if TYPE_CHECKING:
    from stringsh.actions.http import HttpLimits
    from stringsh.actions.run import ActionHost, Outcome
    from stringsh.documents.service import DocumentService
    from stringsh.render.view import DocumentView
    from stringsh.workspace import Workspace

#: Session variable that sets the HTTP timeout in seconds (default 30).
HTTP_TIMEOUT = "_http_timeout"


def page_actions(view: DocumentView) -> list[Action]:
    """The page's actions; a document a server returned never gets to run commands here (no CLI actions)."""
    if view.kind != "markdown":
        return []
    actions = parse_actions("", indexed_fences(view.doc.lines, view.index.fences))
    return [a for a in actions if not a.is_cli] if view.remote else actions


def remote_cli_action(view: DocumentView, ident: str) -> bool:
    """True when a page a server returned names a CLI action `ident`, which it may not run (String's refusal)."""
    if not view.remote or view.kind != "markdown":
        return False
    actions = parse_actions("", indexed_fences(view.doc.lines, view.index.fences))
    return any(a.id == ident and a.is_cli for a in actions)


def http_limits(variables: dict[str, str]) -> HttpLimits:
    """The HTTP limits of a topic: `{_http_timeout}` seconds when set (a bad value is refused, not ignored)."""
    from stringsh.actions.http import HttpLimits

    wanted = variables.get(HTTP_TIMEOUT, "").strip()
    if not wanted:
        return HttpLimits()
    try:
        return HttpLimits(timeout=max(float(wanted), 0.05))
    except ValueError:
        raise StringError(
            "INVALID_PAYLOAD", f"{{{HTTP_TIMEOUT}}} must be a number of seconds, got: {wanted}"
        ) from None


def flag_shortcut(documents: DocumentService, ident: str) -> str | None:
    """A flag value `@id`, String's order: the page's shortcuts, then value shortcuts (a tuple is its items joined
    with commas, which `{field[N]}` picks apart), then auto-shortcuts and menu entries."""
    view = documents.current_or_none()
    page = page_shortcuts(view) if view is not None else {}
    if ident in page:
        return page[ident]
    held = documents.session.value_shortcuts.get(ident)
    if held is not None:
        return held if isinstance(held, str) else ",".join(held)
    return resolve_shortcut(documents, ident)


def write_output(documents: DocumentService, path: str, data: bytes) -> None:
    """A template's `to: path`: through the change journal (so `/undo` reverts it) and under the stale-write guard:
    an existing file is replaced only when this topic read it and it has not changed since (an earlier run's
    output counts as read). Refusals are worded for the template's `to: write failed:` line."""
    import hashlib

    from stringsh.documents.guard import require_seen

    workspace = documents.workspace
    rel = workspace.relative(path)
    info = workspace.stat(rel)
    if info is not None and info.is_dir:
        raise is_a_folder(rel)
    try:
        overwrite = require_seen(documents.session.seen, info.rel if info is not None else None, label=rel)
        with overwrite.checked():
            workspace.apply(
                ChangeSet().write(rel, data, expected_prev_sha256=overwrite.expected), topic=documents.session.topic
            )
    except StringError as exc:
        if exc.code != "CONFLICT":
            raise
        what = "it changed since this topic read it" if info is not None and info.rel in documents.session.seen else (
            "this topic has not read it"
        )
        raise StringError(
            "CONFLICT", f"refusing to overwrite {rel}: {what} (/open {command_word(rel)}, then run the action again)"
        ) from None
    documents.after_write(rel, hashlib.sha256(data).hexdigest())


#: Why a variable of stringsh's environment is not used, when a `$NAME` is left unresolved.
UNTRUSTED_ENV = "a page of a workspace you have not trusted uses only /set values (or run 'stringsh trust')"
WITHHELD_ENV = ("the policy's [shell_environment] does not pass it (a name like *KEY*, *SECRET* or *TOKEN* only "
                "when your own policy's include writes it out)")


def page_resolver(workspace: Workspace, view: DocumentView, topic: str) -> EnvResolver:
    """The `$NAME` values a page's actions may use: `/set` ones, and of stringsh's environment what the shell gets
    when the workspace is trusted (`Workspace.page_environment`); a page a server returned uses none at all."""
    if view.remote:
        return EnvResolver(EnvStore(), scope_for_topic(topic))
    note = WITHHELD_ENV if workspace.trusted else UNTRUSTED_ENV
    return EnvResolver(EnvStore(), scope_for_topic(topic), environ=workspace.page_environment(), environ_note=note)


def make_host(documents: DocumentService, view: DocumentView) -> ActionHost:
    from stringsh.actions.run import ActionHost  # the HTTP and CLI machinery loads when an action runs

    workspace = documents.workspace
    session = documents.session
    topic = session.topic
    root = Path(documents.root)
    cwd = root / view.folder if view.folder else root

    def read_bytes(path: str) -> bytes:
        return workspace.read_bytes(workspace.relative(path), topic=topic)

    def write_file(path: str, data: bytes) -> None:
        write_output(documents, path, data)

    limits = http_limits(session.variables)
    return ActionHost(
        variables=session.variables,
        env=page_resolver(workspace, view, topic),
        cwd=cwd,
        resolve_shortcut=lambda ident: flag_shortcut(documents, ident),
        shortcut_ids=lambda: list(dict.fromkeys([*session.value_shortcuts, *shortcut_ids(documents)])),
        value_shortcuts=session.value_shortcuts,
        read_bytes=read_bytes,
        write_file=write_file,
        exported=session.exported_variables(),
        http_limits=limits,
        http_clients=documents.state.http_clients,
        cli_run=lambda request: workspace.run_action(request._replace(paths=(view.path,), topic=topic)),
        audited=lambda summary: workspace.audited("action", [view.path], topic=topic, command=summary),
        base_url=view.path if view.remote else None,
    )


def open_response(documents: DocumentService, outcome: Outcome) -> Result:
    """A doc response becomes the open document (pushed on history): `Opened <uri>` + the rendering."""
    from stringsh.actions.remote import RemoteView
    from stringsh.render.document import Document
    from stringsh.render.view import budget_from, masked, render_view

    text = outcome.content or ""
    view = RemoteView(
        outcome.uri or "response", "markdown", Document.parse(text), len(text.encode()), refetch=outcome.refetch
    )
    documents.navigate(view)  # bounded history, and the dropped views stop being watched
    shown = masked(view, documents.workspace.redact_lines)
    content = render_view(shown, budget=budget_from(documents.session.variables))
    view.auto_shortcuts = shown.auto_shortcuts
    return Result(outcome.message, content)


def refuse_remote_secrets(view: DocumentView, action: Action) -> None:
    """A page a server returned must not send the user's `$NAME` values (env store, environment) anywhere."""
    if not view.remote:
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


def invoke(
    documents: DocumentService, view: DocumentView, action: Action, flag_text: str, *, navigate: bool = True
) -> Result:
    """Run one action of the page with its flags; a doc response opens (unless `navigate` is False). What it
    answers can carry a token: it is masked with the reply it ends up in (protocol/response.py)."""
    try:
        result = _invoke(documents, view, action, flag_text, navigate)
    except StringError as exc:  # a failed action points at the page's setup document, as String's does
        setup = documents.requirements_file(view)
        if setup:
            info = f"Setup info: /open {command_word(setup)}"
            exc.hint = f"{exc.hint}\n\n{info}" if exc.hint else f"\n{info}"
        raise
    if not result.ok and (setup := documents.requirements_file(view)):
        result = Result(result.message, f"{result.content or ''}\n\nSetup info: /open {command_word(setup)}",
                        result.ok, result.code)
    return result


def _invoke(documents: DocumentService, view: DocumentView, action: Action, flag_text: str, navigate: bool) -> Result:
    if needs_schema_only(action, flag_text):
        return Result(f"Action: {action.id}", render_action(action))
    refuse_remote_secrets(view, action)
    from stringsh.actions.run import run_action

    outcome = run_action(action, flag_text, make_host(documents, view))
    if outcome.kind == "help":
        return Result(outcome.message, render_action(action))
    if outcome.kind == "doc":
        if navigate:
            return open_response(documents, outcome)
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


def default_refusal(workspace: Workspace, action: Action) -> str | None:
    """Why a page's `default:` action does not run when the page is opened, None when it may.

    Opening a page is not consent to run anything it ships: a default action (a shell command or an HTTP
    request alike) runs only in a workspace the user trusts, and a CLI one only where the policy allows the shell.
    `/act.<name>` is the user's explicit consent and runs it (a CLI action still obeys `[permissions] shell` and
    the sandbox)."""
    if action.is_cli and not workspace.policy.permissions.shell:
        return f"(default action {action.id} not run: shell is disabled by policy)"
    if not workspace.trusted:
        return f"(default action {action.id} not run: this workspace is not trusted — run /act.{action.id} to run it)"
    return None


def run_default(documents: DocumentService, view: DocumentView, name: str) -> str:
    """Front matter `default: <name>`: the action's output, to append after `\\n\\n---\\n\\n` (see
    `DocumentService.default_action_output`, which decides whether a page has one), or a line saying why it did
    not run (`default_refusal`).

    A failing default is reported as a line, not an error: the document itself opened fine.
    """
    name = name.strip().removeprefix("/act.").removeprefix("act.")
    action = next((a for a in page_actions(view) if a.id == name), None)
    if action is None:
        return f'[!] default action not found: "{name}"'
    if any(f.required and f.default is None for f in action.fields):
        return f"Action: {action.id}\n---\n{render_action(action)}"
    refusal = default_refusal(documents.workspace, action)
    if refusal is not None:
        return refusal
    try:
        result = invoke(documents, view, action, "", navigate=False)
    except StringError as exc:
        return f"ERROR({exc.code}): {exc.text}"
    return result.text if result.ok else f"ERROR({result.code}): {result.text}"
