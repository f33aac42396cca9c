"""Resumable Streamable HTTP streams: every SSE event carries an id, and a client whose stream dropped sends
`GET` with `Last-Event-ID` to get what it missed on that stream (the SDK's EventStore interface).

Each HTTP session has its own store (a stream's id is the request id, which two sessions may both use, so one
shared store could replay one session's replies to another), kept in memory with the session and bounded: the
newest `MAX_EVENTS` events of the session; an id older than that (or unknown) replays nothing. The priming event
of each stream also tells the client to reconnect after `RETRY_MS`."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp_types import JSONRPCMessage

#: Events one session keeps for replay (its newest).
MAX_EVENTS = 512
#: How long a client waits before reconnecting a dropped stream (the SSE `retry` field), in milliseconds.
RETRY_MS = 1000


class SessionEvents(EventStore):
    """One session's events, oldest first: id -> (stream, message or None for a stream's priming event)."""

    def __init__(self, limit: int = MAX_EVENTS) -> None:
        self.limit = limit
        self._prefix = secrets.token_hex(6)  # ids are not guessable across sessions or runs
        self._next = 0
        self._events: OrderedDict[EventId, tuple[StreamId, JSONRPCMessage | None]] = OrderedDict()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        self._next += 1
        event_id = f"{self._prefix}-{self._next}"
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self.limit:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None
        stream = found[0]
        later = False
        for event_id, (stream_id, message) in list(self._events.items()):
            if later and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
            later = later or event_id == last_event_id
        return stream


def per_session(manager: StreamableHTTPSessionManager) -> None:
    """Give each session the manager starts a store of its own: the SDK's manager hands every session the one
    `event_store` it holds, so here that attribute makes a fresh store each time it is read (once per session)."""

    class PerSessionManager(type(manager)):  # type: ignore[misc]
        @property  # type: ignore[override]
        def event_store(self) -> EventStore:
            return SessionEvents()

        @event_store.setter
        def event_store(self, value: Any) -> None:
            del value

    manager.__class__ = PerSessionManager
