"""`subscriptions/listen` (protocol 2026-07-28): a client on the newest protocol hears of changes to files and
folders on a stream it opens, as an older one does after `resources/subscribe` (watching.py, foldering.py).

One listen request is one stream. The SDK's `ListenHandler` serves it (the acknowledgment as its first frame, every
frame stamped with the request's id, the result sent when the server ends it), on a bus of the stream's own
(`Stream`): each URI of its `resourceSubscriptions` is checked as `resources/subscribe` checks one (an existing file
or folder the client may read: confined, under its roots, not a secret; one audited request `mcp.listen_resource`
each) and watched on the server's one watcher while the stream is open, its changes told as
`notifications/resources/updated` naming that URI (a burst folded into one, a folder's for anything inside it). A
URI refused refuses the whole request with the error `resources/subscribe` gives (INVALID_PARAMS, `ERROR(CODE): …`
and its hint, `data` naming the URI and the code), so nothing is listened to in part.

The stream ends, its watches with it, when the client closes it (over HTTP it closes the response stream, on stdio
it sends `notifications/cancelled` naming it), or, with its result sent (the protocol's graceful end), when the
server stops: SIGTERM over HTTP, the end of stdin on stdio (whose every request is answered before the process
exits). `toolsListChanged` and `resourcesListChanged` are honored as the SDK honors them (stringsh's tool list
never changes and its resources are templates, so neither fires); `promptsListChanged` is left out of the
acknowledgment, as the protocol asks for a kind not served (stringsh has no prompts)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, SubscriptionsListenRequestParams, SubscriptionsListenResult

from stringsh.dialects.mcp.resources import subscribable
from stringsh.dialects.mcp.watching import Subscriber, Subscriptions

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import MCPServer
    from mcp.server.subscriptions import SubscriptionBus

    from stringsh.dialects.mcp.calls import Call

#: Listen streams open at once on one server, at most.
MAX_STREAMS = 256
#: Resource URIs one stream may listen to, at most (a folder's URI covers everything inside it).
MAX_URIS = 256
#: Where the server keeps its open streams (`end_streams` reaches them through it).
STREAMS = "stringsh_listen_streams"

#: `run(ctx, name, uri, work)` of resources.py: `work(call)` as one audited request, refused as INVALID_PARAMS.
Run = Callable[["ServerRequestContext[Any, Any]", str, str, Callable[["Call"], str]], Awaitable[Any]]


class Stream:
    """One listen stream's bus: what the SDK publishes server-wide, and this stream's own file changes. A change
    told before the SDK's handler listens (between the watch and the acknowledgment) waits for it."""

    def __init__(self, shared: SubscriptionBus, token: EventLoopToken) -> None:
        self.shared = shared
        self.token = token
        self.own = InMemorySubscriptionBus()
        self.early: dict[ServerEvent, None] = {}
        #: Set once the SDK's handler listens (it registers its stream in the same step, before it awaits).
        self.listening = anyio.Event()
        #: Set when the server ends the stream gracefully.
        self.ending = anyio.Event()

    async def publish(self, event: ServerEvent) -> None:
        if not self.listening.is_set():
            self.early[event] = None
            return
        await self.own.publish(event)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        mine, everyone = self.own.subscribe(listener), self.shared.subscribe(listener)
        self.listening.set()
        for event in self.early:
            listener(event)
        self.early.clear()

        def unsubscribe() -> None:
            mine()
            everyone()

        return unsubscribe

    async def changed(self, uri: str) -> None:
        """A watched file or folder changed (the watcher's notifying thread sends this onto the stream's loop)."""
        await self.publish(ResourceUpdated(uri))


class Streams:
    """The open streams of one server, and whether it is stopping (a stream opened then ends at once)."""

    def __init__(self, subscriptions: Subscriptions) -> None:
        self.open: set[Stream] = set()
        self.stopping = False
        #: What the streams watch (shared with resources/subscribe): how many files it watches, for the checks.
        self.subscriptions = subscriptions

    def end(self) -> None:
        """On the event loop: end every stream gracefully, and any opened from now on."""
        self.stopping = True
        for stream in list(self.open):
            stream.ending.set()

    def end_from_thread(self) -> None:
        """`end` from another thread (a signal's)."""
        self.stopping = True
        for stream in list(self.open):
            with contextlib.suppress(RuntimeError):  # its event loop is gone: so is the stream
                anyio.from_thread.run_sync(stream.ending.set, token=stream.token)


def end_streams(server: MCPServer, from_thread: bool = False) -> None:
    """End the server's listen streams gracefully (it is stopping): on its event loop, or `from_thread`."""
    streams: Streams | None = getattr(server, STREAMS, None)
    if streams is not None:
        (streams.end_from_thread if from_thread else streams.end)()


def serve(server: MCPServer, subscriptions: Subscriptions, run: Run) -> None:
    """Serve `subscriptions/listen` in place of the SDK's handler, on the subscriptions resources.py keeps."""
    streams = Streams(subscriptions)
    setattr(server, STREAMS, streams)
    shared: SubscriptionBus = server._subscriptions  # the SDK's bus (`ctx.notify_*`): its events reach every stream

    async def listen(ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
                     ) -> SubscriptionsListenResult:
        asked = params.notifications
        uris = list(dict.fromkeys(asked.resource_subscriptions or ()))
        if len(uris) > MAX_URIS:
            raise MCPError(INVALID_PARAMS, f"ERROR(INVALID_PAYLOAD): {len(uris)} resource URIs on one stream, at "
                           f"most {MAX_URIS}\nListen to a folder they share (changes inside it are reported), or "
                           "open more streams.", data={"code": "INVALID_PAYLOAD", "limit": MAX_URIS})
        if len(streams.open) >= MAX_STREAMS:
            raise MCPError(INTERNAL_ERROR, f"ERROR(BUSY): {MAX_STREAMS} listen streams are open, the most this "
                           "server takes\nClose one, or listen to more URIs on one stream.",
                           data={"code": "BUSY", "limit": MAX_STREAMS})
        stream = Stream(shared, anyio.lowlevel.current_token())
        subscriber = Subscriber(stream.changed, stream.token)
        streams.open.add(stream)
        try:
            for uri in uris:
                await run(ctx, "listen_resource", uri, _watch(subscriptions, subscriber, uri))
            if streams.stopping:
                stream.ending.set()
            honored = asked.model_copy(update={"prompts_list_changed": None, "resource_subscriptions": uris or None})
            handler = ListenHandler(stream)
            async with anyio.create_task_group() as group:
                group.start_soon(_end_when_asked, handler, stream)
                try:
                    return await handler(ctx, params.model_copy(update={"notifications": honored}))
                finally:
                    group.cancel_scope.cancel()
        finally:
            streams.open.discard(stream)
            with anyio.CancelScope(shield=True):  # the client closed the stream: the handler was cancelled
                await anyio.to_thread.run_sync(subscriptions.drop, subscriber)

    server._lowlevel_server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, listen)


def _watch(subscriptions: Subscriptions, subscriber: Subscriber, uri: str) -> Callable[[Call], str]:
    def watch(call: Call) -> str:
        subscriptions.subscribe(subscriber, uri, *subscribable(call, uri))
        return "listening"

    return watch


async def _end_when_asked(handler: ListenHandler, stream: Stream) -> None:
    """End the stream gracefully once the server asks (the handler then sends its result); the handler's stream
    is registered by the time `listening` is seen, since the handler registers it before it first awaits."""
    await stream.listening.wait()
    await stream.ending.wait()
    handler.close()
