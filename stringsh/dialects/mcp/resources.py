"""The workspace as MCP resources: a `file:///ROOT/{+path}` template per allowed folder, `resources/read` through
the very engine calls `read_text_file` makes (confinement, the client's roots, secret refusal, limits, masking,
one audited request each), a binary file as a blob (refused when its bytes hold a secret, as `read_media_file`),
and `resources/subscribe`: the client hears `notifications/resources/updated` when the file changes on disk,
whoever changed it, or for a folder's URI, when anything inside it changes (watching.py, foldering.py).

A refusal is a JSON-RPC error (resources have no `isError` result): INVALID_PARAMS with the message
`ERROR(CODE): message` and its hint line, and `data` naming the URI and the code."""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import anyio.lowlevel
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    EmptyResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    ResourceTemplate,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    UnsubscribeRequestParams,
)

from stringsh.dialects.mcp.calls import Call, Calls
from stringsh.dialects.mcp.tools_files import read_text
from stringsh.dialects.mcp.watching import Subscriber, Subscriptions
from stringsh.errors import StringError
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import MCPServer

    from stringsh.render.watch import Watcher

#: Where a connection keeps its Subscriber (the SDK's per-connection scratch state).
SUBSCRIBER = "stringsh.resources.subscriber"
URI_HINT = "Name a file as file:///absolute/path inside an allowed directory (resources/templates/list shows them)."


def resource_path(uri: str) -> str:
    """The absolute path a `file://` URI names, as given (the engine confines it); INVALID_PATH otherwise."""
    parts = urlsplit(uri)
    path = unquote(parts.path)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or parts.query or parts.fragment:
        raise StringError("INVALID_PATH", f"Not a file:// URI of a workspace file: {uri[:200]}", URI_HINT)
    if not path.startswith("/") or "\0" in path:
        raise StringError("INVALID_PATH", f"Not an absolute file path: {uri[:200]}", URI_HINT)
    return path


def read_resource(call: Call, uri: str) -> list[ContentBlock]:
    """The file as `read_text_file` shows it (masked with the result, masking.py); a binary file as a blob."""
    path = resource_path(uri)
    mime = mimetypes.guess_type(path)[0]
    try:
        text = read_text(call, path, None, None)
    except StringError as exc:
        if exc.code != "BINARY_FILE":
            raise
    else:
        contents = TextResourceContents(uri=uri, mime_type=mime or "text/plain", text=text)
        return [EmbeddedResource(type="resource", resource=contents)]
    data = call.ws.read_bytes(call.path(path), topic=call.topic)
    blob = BlobResourceContents(uri=uri, mime_type=mime or "application/octet-stream",
                                blob=base64.b64encode(data).decode("ascii"))
    return [EmbeddedResource(type="resource", resource=blob)]


def subscribable(call: Call, uri: str) -> tuple[str, bool]:
    """The real location of the file or folder `uri` names, once the engine allows reading it (not a secret, not
    its state, inside the roots), and whether it is a folder (its changes inside are reported); NOT_FOUND for a
    missing one."""
    path = call.path(resource_path(uri))
    info = call.ws.stat(path, topic=call.topic)
    if info is None:
        raise StringError("NOT_FOUND", f"No such file or folder: {path}", "Subscribe to an existing file or folder.")
    return str(call.location(path)), info.is_dir


def refused(result: CallToolResult, uri: str) -> MCPError:
    """A failed call as the JSON-RPC error a resource request answers with."""
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, TextContent) else "ERROR(INTERNAL_ERROR): no reply"
    code = text[6:text.find(")")] if text.startswith("ERROR(") else "ERROR"
    return MCPError(code=INVALID_PARAMS, message=text, data={"uri": uri, "code": code})


def watcher_of(calls: Calls) -> Callable[[], Watcher]:
    """The watcher open documents use (the dispatcher's), or, with no dispatcher, one of the server's own."""
    own: list[Watcher] = []

    def watcher() -> Watcher:
        if calls.dispatcher is not None:
            return calls.dispatcher.documents.watcher
        if not own:
            from stringsh.render.watch import Watcher

            own.append(Watcher())
        return own[0]

    return watcher


def register(server: MCPServer, calls: Calls) -> None:
    """Serve resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe."""
    subscriptions = Subscriptions(watcher_of(calls))

    async def run(ctx: ServerRequestContext[Any, Any], name: str, uri: str, work: Any) -> CallToolResult:
        """`work` as one audited request (named `name`, the URI's path as its path), under the connection's roots."""
        try:
            named = resource_path(uri)
        except StringError:
            named = uri
        asked = replace(ctx, params={"name": name, "arguments": {"path": named}})
        result = await calls.run(Context(request_context=asked, mcp_server=server), work)
        if result.is_error:
            raise refused(result, uri)
        return result

    def subscriber(ctx: ServerRequestContext[Any, Any]) -> Subscriber:
        """This connection's Subscriber, made on its first subscribe and dropped when the connection ends."""
        connection = ctx.session._connection  # the SDK keeps per-connection state and teardown there
        found = connection.state.get(SUBSCRIBER)
        if found is None:
            found = Subscriber(connection.send_resource_updated, anyio.lowlevel.current_token())
            connection.state[SUBSCRIBER] = found
            connection.exit_stack.callback(subscriptions.drop, found)
        return found  # type: ignore[no-any-return]

    async def templates(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams
                        ) -> ListResourceTemplatesResult:
        try:
            allowed = await calls.roots.allowed(ctx)
        except StringError as exc:
            raise MCPError(code=INVALID_PARAMS, message=f"ERROR({exc.code}): {exc.text}") from None
        folders = Call(calls.ws, allowed, calls.aliases).folders()
        return ListResourceTemplatesResult(resource_templates=[
            ResourceTemplate(uri_template=folder.as_uri().rstrip("/") + "/{+path}",
                             name=shown_name(folder.name or str(folder)),
                             title=f"Files under {shown_name(str(folder))}",
                             description="A file's text as read_text_file shows it (secrets masked); subscribe "
                                         "to hear when it changes on disk.")
            for folder in folders])

    async def read(ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        uri = str(params.uri)
        result = await run(ctx, "read_resource", uri, lambda call: read_resource(call, uri))
        return ReadResourceResult(contents=[block.resource for block in result.content
                                            if isinstance(block, EmbeddedResource)])

    async def subscribe(ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        uri = str(params.uri)
        listener = subscriber(ctx)

        def watch(call: Call) -> str:
            subscriptions.subscribe(listener, uri, *subscribable(call, uri))
            return "subscribed"

        await run(ctx, "subscribe_resource", uri, watch)
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        found = ctx.session._connection.state.get(SUBSCRIBER)
        if found is not None:
            await anyio.to_thread.run_sync(subscriptions.unsubscribe, found, str(params.uri))
        return EmptyResult()

    lowlevel = server._lowlevel_server  # the SDK's request-handler registry: MCPServer serves no subscriptions
    lowlevel.add_request_handler("resources/templates/list", PaginatedRequestParams, templates)
    lowlevel.add_request_handler("resources/read", ReadResourceRequestParams, read)
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)
    from stringsh.dialects.mcp.listening import serve

    serve(server, subscriptions, run)  # subscriptions/listen (2026-07-28), on the same watches
