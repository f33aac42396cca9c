"""Run one action invocation: flags → payload → CLI or HTTP → template output or a document to open.

Everything the run needs from the session and the workspace comes in an ActionHost, so this stays testable
without the command layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from stringsh.actions.body import fill_body
from stringsh.actions.cli import CliRun, Command, build_command, cli_run, refusal_error
from stringsh.actions.envstore import mask_values
from stringsh.actions.envvars import REFERENCE, EnvResolver, unresolved_error, unresolved_names
from stringsh.actions.flags import bind, missing_required, parse_flags
from stringsh.actions.html2md import html_to_markdown, looks_like_html
from stringsh.actions.http import FetchedResponse, HttpClients, HttpLimits, fetch, fill_headers, fill_url
from stringsh.actions.model import Action
from stringsh.actions.template import MISSING, HttpResponse, ShortcutValue, run_template
from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace import ActionRequest, ActionRun


@dataclass
class ActionHost:
    variables: MutableMapping[str, str]
    env: EnvResolver
    cwd: Path
    resolve_shortcut: Callable[[str], str | None] = lambda _: None
    shortcut_ids: Callable[[], list[str]] = list
    read_bytes: Callable[[str], bytes] = lambda path: (_ for _ in ()).throw(FileNotFoundError(path))
    write_file: Callable[[str, bytes], None] = lambda path, data: None
    exported: Mapping[str, str] = field(default_factory=dict)
    http_limits: HttpLimits = field(default_factory=HttpLimits)
    #: The dispatcher's HTTP clients (kept connections); None: one client per request.
    http_clients: HttpClients | None = None
    #: The engine's run of a CLI action (`Workspace.run_action`: permission, sandbox, watch, audit, the one process
    #: runner); without a workspace, a CLI action does not run.
    cli_run: Callable[[ActionRequest], ActionRun] = lambda _request: _no_workspace()
    #: The audit record of one HTTP request (the engine's `audited` context), given the summary to keep
    #: (`act.<id>: <METHOD> <scheme://host>`); a refused or failed one records its error code; by default nothing is
    #: recorded. A CLI run is recorded by `cli_run`.
    audited: Callable[[str], AbstractContextManager[Any]] = lambda _: nullcontext(SimpleNamespace(outcome=None))
    #: The topic's value shortcuts, which `{@name} = …` template lines register.
    value_shortcuts: MutableMapping[str, ShortcutValue] = field(default_factory=dict)
    #: The URL of the page a server returned, which a relative HTTP action URL is resolved against (String's rule);
    #: None for a workspace document, whose actions must name a full URL.
    base_url: str | None = None


@dataclass
class Outcome:
    """`kind` is `help`, `cli`, `template` or `doc`; a doc outcome carries the markdown and its URI."""

    kind: str
    message: str
    content: str | None = None
    ok: bool = True
    code: str | None = None
    uri: str | None = None
    #: For a GET doc response: fetches the page again (for /refresh and /back), returning its markdown.
    refetch: Callable[[], str] | None = None


def _masked(host: ActionHost, text: str) -> str:
    return mask_values(text, host.env.used + host.env.store.secrets(host.env.scope))


def _template(host: ActionHost, template: str, response: HttpResponse, inputs: dict[str, str]) -> str:
    """Run a response template; values it assigns to session variables are masked too (they reach /info)."""
    before = dict(host.variables)
    shortcuts_before = dict(host.value_shortcuts)
    text = run_template(template, response, inputs, host.variables, host.write_file, host.value_shortcuts)
    for name, value in list(host.variables.items()):
        if before.get(name) != value:
            host.variables[name] = _masked(host, value)
    for slug, held in list(host.value_shortcuts.items()):
        if shortcuts_before.get(slug) != held:
            masked = _masked(host, held) if isinstance(held, str) else tuple(_masked(host, v) for v in held)
            host.value_shortcuts[slug] = masked
    return _masked(host, text.rstrip())


def run_action(action: Action, flag_text: str, host: ActionHost) -> Outcome:
    shorts = {f.short: f.name for f in action.fields if f.short}
    parsed = parse_flags(flag_text, shorts)
    if parsed.help:
        return Outcome("help", f"Action: {action.id}")
    if action.problems:  # refused as written, whatever the flags: no value may become code
        raise refusal_error(action.id, action.problems[0])
    payload, defaulted = bind(
        action, parsed, host.variables, host.resolve_shortcut, host.shortcut_ids, read_bytes=host.read_bytes
    )
    for name in defaulted:
        if "$" in payload[name]:
            payload[name] = host.env.resolve(payload[name])
    unset = unresolved_names(*(payload[name] for name in defaulted))
    if unset:
        raise unresolved_error(unset, context=" in field default", action_id=action.id,
                               withheld=host.env.withheld(unset), note=host.env.environ_note)
    missing_required(action, payload, host.variables)
    inputs = dict(payload)
    if action.is_cli:
        return _run_cli(action, payload, inputs, host)
    return _run_http(action, payload, inputs, host)


def _run_cli(action: Action, payload: dict[str, str], inputs: dict[str, str], host: ActionHost) -> Outcome:
    command = build_command(action.uri, payload, host.variables, action.id)
    run = _run_bash(action, command, host)
    if action.response is not None and run.exit == 0:
        text = _template(host, action.response, cli_response(run), inputs)
        return Outcome("template", text or "(no output)")
    code = None if run.exit == 0 else f"EXIT_{run.exit}"
    return Outcome("cli", run.message, _masked(host, run.output) or "(no output)", run.exit == 0, code)


def _run_bash(action: Action, command: Command, host: ActionHost) -> CliRun:
    """The action's command line, run by the engine; refused, failed or run, it leaves an audit line with its
    command line (secret values masked)."""
    from stringsh.workspace import ActionRequest

    env = dict(host.exported)
    for match in REFERENCE.finditer(action.uri):
        value = host.env.lookup(match.group(1))
        if value is not None and match.group(1) not in host.env.extra:
            env[match.group(1)] = value
            host.env.used.append(value)
    separate = action.response is not None  # a template reads stdout and stderr apart
    summary = _masked(host, f"act.{action.id}: {command.shown}")
    raw = host.cli_run(ActionRequest(command.script, command.args, host.cwd, env, summary, separate=separate))
    return cli_run(raw, host.cwd, separate=separate)


def _no_workspace() -> ActionRun:
    raise StringError("NOT_PERMITTED", "CLI actions run only in a workspace", "Open the page from a workspace.")


def cli_response(run: CliRun) -> HttpResponse:
    """What a template sees of a CLI run: `Response.body` is stdout (its JSON when it is JSON), `Response.status`
    and `Response.exit_code` the exit status, `Response.stdout` and `Response.stderr` each stream, as in String."""
    import json

    try:
        parsed: Any = json.loads(run.stdout) if run.stdout.strip() else MISSING
    except ValueError:
        parsed = MISSING
    fields = {"stdout": run.stdout, "stderr": run.stderr, "exit_code": run.exit}
    return HttpResponse(run.exit, run.stdout, parsed, fields)


def _run_http(action: Action, payload: dict[str, str], inputs: dict[str, str], host: ActionHost) -> Outcome:
    template_uri = host.env.resolve(action.uri)
    header_templates = [(key, host.env.resolve(value)) for key, value in action.headers]
    body_template = host.env.resolve(action.body) if action.body is not None else None
    unset = unresolved_names(template_uri, *(value for _, value in header_templates), body_template or "")
    if unset:
        raise unresolved_error(unset, withheld=host.env.withheld(unset), note=host.env.environ_note)
    named = fill_url(action.uri, dict(payload), host.variables)  # as sent, each `$NAME` where its value went
    url = fill_url(template_uri, payload, host.variables)
    if host.base_url is not None and not urlsplit(url).scheme:
        url, named = urljoin(host.base_url, url), urljoin(host.base_url, named)
    headers = fill_headers(header_templates, host.variables)
    body = None
    if body_template is not None and action.method in ("POST", "PUT", "PATCH"):
        body = fill_body(body_template, inputs, host.variables, host.read_bytes)
    try:
        types = {f.name: f.type for f in action.fields}
        parts = urlsplit(url)  # the audit log keeps no credentials, paths or queries (a token can ride in each)
        where = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        with host.audited(_masked(host, f"act.{action.id}: {action.method} {where}")):
            response = fetch(
                action.method, url, headers=headers, payload=payload, body=body, limits=host.http_limits,
                types=types, clients=host.http_clients,
            )
    except Exception as exc:
        if isinstance(exc, StringError):  # the URL as sent, each `$NAME` named where its value went
            exc.message = _masked(host, exc.message.replace(url, named))
        raise
    if action.response is not None:
        text = _template(host, action.response, response, inputs)
        return Outcome("template", text or "(no output)")
    refetch = None
    if action.method == "GET":

        def refetch() -> str:
            again = fetch("GET", url, headers=headers, payload=dict(payload), body=None, limits=host.http_limits,
                          clients=host.http_clients)
            return _masked(host, doc_markdown(again))

    shown = _masked(host, named)  # `k=$OPENAI_API_KEY`: what left, named, never hidden behind a mask
    return Outcome("doc", f"Opened {shown}", _masked(host, doc_markdown(response)), uri=shown, refetch=refetch)


def doc_markdown(response: FetchedResponse) -> str:
    """The document a response becomes: HTML converted, JSON pretty-printed in a fence, text as it is."""
    content_type = response.content_type
    if looks_like_html(content_type, response.text):
        return html_to_markdown(response.text)
    if response.json is not MISSING and "markdown" not in content_type:
        import json

        return "```json\n" + json.dumps(response.json, indent=2, ensure_ascii=False) + "\n```"
    return response.text.strip()
