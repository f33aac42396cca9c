"""One tool call on the engine: who asks (the connection's own client and topic, sessions.py, and the client's name
from `initialize`), which folders this connection may use (its MCP roots, roots.py), the call run on a worker thread
as one request of the `mcp` dialect (its tool name, paths and client: `Workspace.request`), and
every failure turned into an MCP tool error (`isError: true`, `ERROR(CODE): message` and a hint) instead of a
protocol error or a traceback."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stringsh.dialects.mcp.roots import ClientRoots
from stringsh.dialects.mcp.sessions import McpClient, Sessions
from stringsh.dialects.mcp.shaped import Shaped, structured, text_of
from stringsh.errors import StringError
from stringsh.escapes import escape_controls

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import Context
    from mcp_types import CallToolResult, ContentBlock

    from stringsh.dialects.mcp.cancelling import Job
    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace import Workspace

#: What a tool's engine work gives: text, text with structure (shaped.py), a whole result, or content blocks.
Work = Callable[["Call"], "str | Shaped | CallToolResult | list[ContentBlock]"]

#: The topic of a call made outside any connection (tests of a tool's work); a connection has its own (sessions.py).
TOPIC = "mcp"

log = logging.getLogger("stringsh.mcp")
#: A coded refusal at the start of a reply's text or of its second line (after a command tool's `re:` line).
ERROR_CODE = re.compile(r"^(?:re: [^\n]*\n)?ERROR\(([A-Z0-9_]+)\)")


def refusal(exc: StringError, tool: str | None = None) -> str:
    """A refusal as the client reads it: the coded message then the hint (what to do next), in MCP's terms
    (hinting.py; `tool`: the tool refused)."""
    from stringsh.dialects.mcp.hinting import mcp_hint

    advice = mcp_hint(exc, tool)
    return f"ERROR({exc.code}): {exc.message}" + (f"\n{advice}" if advice else "")


def error_result(exc: StringError, tool: str | None = None) -> CallToolResult:
    """A refusal as the client sees it: one text block, `refusal(exc, tool)`."""
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=refusal(exc, tool))], is_error=True)


def text_result(text: str) -> CallToolResult:
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=text)])


def internal_error(exc: Exception) -> StringError:
    """What a bug inside a tool becomes (logged on stderr), so it neither ends the session nor leaks a traceback."""
    log.exception("tool call failed")
    return StringError("INTERNAL_ERROR", f"{type(exc).__name__} inside stringsh",
                       "The session goes on; the server's stderr has the details.")


class Call:
    """What a tool's engine work sees: the workspace, the connection's topic, and the path check of its roots."""

    def __init__(self, workspace: Workspace, allowed: tuple[Path, ...] | None, aliases: dict[str, str],
                 topic: str = TOPIC, tool: str | None = None) -> None:
        self.ws = workspace
        self.topic = topic
        #: The tool called, whose refusals' hints name the tools to call next (hinting.py).
        self.tool = tool
        #: None: every policy root; else the client's roots as intersected with the policy's (maybe none).
        self.allowed = allowed
        self.aliases = aliases

    def path(self, path: str) -> str:
        """`path` once it is known to lie in this connection's roots (the engine confines it again), an absolute
        path under the root's other spelling (`--root` through a symlink) put in the real one; under the client's
        roots a relative path is relative to the first one (`from_first`)."""
        if not isinstance(path, str) or not path:
            raise StringError("INVALID_PATH", "Empty path", "Name a file or folder inside an allowed directory "
                              "(list_allowed_directories lists them).")
        for alias, real in self.aliases.items():
            if path == alias or path.startswith(alias + "/"):
                path = real + path[len(alias):]
                break
        if self.allowed is None:
            return path
        if not self.allowed:
            from stringsh.dialects.mcp.roots import none_allowed

            raise none_allowed()
        given, path = path, self.from_first(path)
        where = self.location(path)
        if not any(where == folder or where.is_relative_to(folder) for folder in self.allowed):
            raise StringError(
                "FILE_NOT_ALLOWED", f"{given} is outside the client's roots",
                "Use a path inside one of the client's roots (list_allowed_directories lists them).")
        return path

    def from_first(self, path: str) -> str:
        """A relative path under the client's roots taken relative to the first one, as the server's instructions
        say (identity.py): `in.txt` with roots `[file:///ws/sub]` is `sub/in.txt` of workspace `/ws`; an absolute
        path, or `id:rel` naming another policy root, as it is."""
        assert self.allowed
        roots = self.ws.confiner.root_list()
        if path.startswith("/") or path.partition(":")[0] in {ident for ident, _, _ in roots}:
            return path
        target = Path(os.path.normpath(self.allowed[0] / path))
        main = roots[0][1]
        if target.is_relative_to(main):  # as the workspace names it, so replies read as before: `sub/in.txt`
            return "." if target == main else str(target.relative_to(main))
        return str(target)

    def location(self, path: str) -> Path:
        """The real folder location of a confined path: the engine's resolved path of the nearest existing part."""
        rel = self.ws.relative(path)
        info = self.ws.stat(path)
        if info is not None:
            rel = info.rel
        else:
            parent = rel.rpartition("/")[0] if "/" in rel.split(":", 1)[-1] else ""
            if parent:
                parent_info = self.ws.stat(parent)
                if parent_info is not None:
                    rel = parent_info.rel + "/" + rel.rpartition("/")[2]
        return self.absolute(rel)

    def absolute(self, rel: str) -> Path:
        """The absolute path of a root-relative path (`id:rel` in another root)."""
        roots = self.ws.confiner.root_list()
        main = roots[0][1]
        ident, colon, rest = rel.partition(":")
        for root_id, folder, _ in roots[1:]:
            if colon and root_id == ident:
                return Path(os.path.normpath(folder / rest)) if rest else folder
        return main if rel == "." else Path(os.path.normpath(main / rel))

    def folders(self) -> list[Path]:
        """The folders this connection may use: its roots, or every policy root."""
        if self.allowed is not None:
            return list(self.allowed)
        return [folder for _, folder, _ in self.ws.confiner.root_list()]


class Calls:
    """The server's calls on one workspace: client names and roots per connection, the worker-thread hop."""

    def __init__(self, workspace: Workspace, aliases: dict[str, str] | None = None,
                 dispatcher: Dispatcher | None = None) -> None:
        self.ws = workspace
        #: The String Command path (tools_commands.py); None where only the engine was given (no command tools).
        self.dispatcher = dispatcher
        self.roots = ClientRoots(workspace)
        #: Each connection's own client and topic, ended with the connection.
        self.sessions = Sessions(workspace, dispatcher, self.roots.forget)
        #: Other spellings of the workspace root (the `--root` given, through a symlink) -> its real path.
        self.aliases = aliases or {}

    async def run(self, ctx: Context[Any, Any], work: Work) -> CallToolResult:
        """Run `work` on a worker thread as one request of the `mcp` dialect (the connection's client and topic,
        under its roots);
        coded errors become tool errors, and the result is masked inside the request, once for every tool
        (masking.py), so the audit record says what the client got."""
        request = ctx.request_context
        agent = client_name(request)
        mine = self.sessions.client(request, agent)
        tool, paths = tool_call(request.params)
        try:
            allowed = await self.roots.allowed(request)
        except StringError as exc:
            with self.ws.request("mcp", f"mcp.{tool}", topic=mine.topic, agent=agent, paths=paths,
                                 client=mine.client) as refused:
                refused.fail(exc.code)
                return _masked(self.ws, error_result(exc, tool))
        from stringsh.dialects.mcp.cancelling import Job, run_job

        job = Job(self.dispatcher, mine.topic)
        return await run_job(request, tool, job, self.answer, mine, agent, allowed, tool, paths, work, job)

    def answer(self, mine: McpClient, agent: str | None, allowed: tuple[Path, ...] | None, tool: str,
               paths: list[str], work: Work, job: Job | None = None) -> CallToolResult:
        """One request of the `mcp` dialect (blocking: a worker thread, or the stdio front's reader for the read
        tools it answers itself, shortcut.py); `job`: how the client's cancel reaches it (cancelling.py)."""
        call = Call(self.ws, allowed, self.aliases, mine.topic, tool)
        command = " ".join([tool, *paths]) if paths else None  # a command tool's own request names it
        try:
            with self.ws.request("mcp", f"mcp.{tool}", topic=mine.topic, command=command, agent=agent,
                                 paths=paths, client=mine.client) as asked:
                if job is not None:
                    job.bind(self.ws, asked)
                result, shaped = _result(job.guarded(work) if job else work, call)
                result = _masked(self.ws, result)
                if shaped is not None and not result.is_error:  # a success carries its structured content
                    result.structured_content = structured(self.ws, shaped, result.content[0].text)
                if result.is_error:
                    asked.fail(asked.outcome or error_code(result))
                if job is not None:
                    job.settle()
                return result
        finally:
            if job is not None:
                job.done.set()

    def answer_text(self, mine: McpClient, agent: str | None, allowed: tuple[Path, ...] | None, tool: str,
                    paths: list[str], work: Callable[[Call], str | Shaped]
                    ) -> tuple[str, bool, dict[str, Any] | None]:
        """`answer` for a tool whose work gives text, without the SDK's models (the stdio front answers such tools
        before the SDK is loaded, shortcut.py): the same request, masking and audit outcome; the text, whether
        it is an error, and a success's structured content."""
        call = Call(self.ws, allowed, self.aliases, mine.topic, tool)
        command = " ".join([tool, *paths]) if paths else None
        with self.ws.request("mcp", f"mcp.{tool}", topic=mine.topic, command=command, agent=agent, paths=paths,
                             client=mine.client) as asked:
            outcome: str | Shaped
            try:
                outcome, failed = work(call), None
            except StringError as exc:
                outcome, failed = refusal(exc, tool), exc.code
            except Exception as exc:  # a bug must not end the session or leak a traceback to the client
                coded = internal_error(exc)
                outcome, failed = refusal(coded), coded.code
            text = escape_controls(self.ws.redact_lines(text_of(outcome)))  # as masking.shown, without the SDK
            if failed is not None:
                asked.fail(asked.outcome or failed)
            data = structured(self.ws, outcome, text) if isinstance(outcome, Shaped) else None
            return text, failed is not None, data

    def settled(self, key: str) -> tuple[McpClient, tuple[Path, ...] | None] | None:
        """The connection's client and roots once a call through the SDK has made the one and asked the other;
        None before (the stdio front then leaves the call to the SDK)."""
        mine = self.sessions.live.get(key)
        if mine is None or key not in self.roots.cache:
            return None
        return mine, self.roots.cache[key]


def make_calls(workspace: Workspace, root_spelling: str | None = None, dispatcher: Dispatcher | None = None
               ) -> Calls:
    """`root_spelling`: the workspace folder as the user named it, accepted in absolute paths as its real path;
    `dispatcher`: the one owning `workspace`, for the String Command tools."""
    aliases = {}
    if root_spelling is not None:
        given, real = os.path.abspath(root_spelling), str(workspace.confiner.root_list()[0][1])
        if given != real and os.path.realpath(given) == real:  # a stale $PWD names some other folder
            aliases[given] = real
    return Calls(workspace, aliases, dispatcher)


def _masked(ws: Workspace, result: CallToolResult) -> CallToolResult:
    from stringsh.dialects.mcp.masking import masked_result

    try:
        return masked_result(ws, result)
    except StringError as exc:  # a media block holding a secret: refused whole
        return masked_result(ws, error_result(exc))


def error_code(result: CallToolResult) -> str:
    """The code of a failed call for its audit record: `ERROR(CODE)` in its text, else `ERROR`."""
    from mcp_types import TextContent

    first = result.content[0] if result.content else None
    match = ERROR_CODE.search(first.text[:400]) if isinstance(first, TextContent) else None
    return match.group(1) if match else "ERROR"


def _result(work: Work, call: Call) -> tuple[CallToolResult, Shaped | None]:
    """The work's result, and its Shaped outcome when it has structure (shown once the text is masked)."""
    try:
        result = work(call)
    except StringError as exc:
        return error_result(exc, call.tool), None
    except Exception as exc:  # a bug must not end the session or leak a traceback to the client
        return error_result(internal_error(exc)), None
    if isinstance(result, Shaped):
        return text_result(result.text), result
    if isinstance(result, str):
        return text_result(result), None
    if isinstance(result, list):
        from mcp_types import CallToolResult

        return CallToolResult(content=result), None
    return result, None


#: The arguments of the tools that name files or targets, recorded with the call (never contents).
PATH_ARGUMENTS = ("path", "paths", "source", "destination", "target")


def tool_call(params: Mapping[str, Any] | None) -> tuple[str, list[str]]:
    """The tool a `tools/call` request names, and the paths its arguments name."""
    params = params or {}
    name = params.get("name")
    arguments = params.get("arguments") or {}
    paths: list[str] = []
    if isinstance(arguments, Mapping):
        for key in PATH_ARGUMENTS:
            value = arguments.get(key)
            values = value if isinstance(value, list) else [value]
            paths.extend(item[:200] for item in values if isinstance(item, str))
    return (name[:80] if isinstance(name, str) and name else "tool"), paths


def client_name(request: ServerRequestContext[Any, Any]) -> str | None:
    """The client's own name from `initialize` (clientInfo), for the journal and audit records."""
    params = request.session.client_params
    if params is None:
        return None
    name = params.client_info.name.strip()
    return name[:80] if name else None
