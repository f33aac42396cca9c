"""The SDK's server on the stdio wire: the transport `mcp.server.stdio.stdio_server` would be, with two promises it
does not make.

- Every request read is answered before the process exits: the SDK ends its loop, and cancels whatever is still
  running, as soon as stdin closes, so a client that closes stdin right after its last call lost the reply.
  Here stdin's end reaches the SDK only once every request passed to it has had its reply written
  (`Pending`); a cancelled request (`notifications/cancelled`) is not waited for.
- Writing a reply never fails: a value UTF-8 cannot encode (a lone surrogate, from a name that is not UTF-8 or an
  id sent as `"\\ud800"`) makes pydantic's serializer raise, which would end the process; such a message is written
  with that value as its JSON escape instead (`jsonbounds.dumps`: the same JSON value).
"""

from __future__ import annotations

import collections
import json
import logging
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from stringsh.dialects.mcp.wirecheck import INVALID_REQUEST, NOTHING_DONE, Checked, error_line
from stringsh.protocol.jsonbounds import dumps

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import anyio

log = logging.getLogger("stringsh.mcp")


class Pending:
    """The requests passed to the SDK and not answered yet, by id (counted: a client may reuse one)."""

    def __init__(self) -> None:
        self._ids: collections.Counter[tuple[type, int | str]] = collections.Counter()
        self._lock = threading.Lock()
        self._settled: anyio.Event | None = None

    def expect(self, checked: Checked) -> None:
        """A line passed to the SDK: its request is now awaited; a cancellation frees the one it names."""
        with self._lock:
            if checked.request_id is not None:
                self._ids[_key(checked.request_id)] += 1
            if checked.cancels is not None:
                self._drop(_key(checked.cancels))

    def answered(self, request_id: object) -> None:
        with self._lock:
            if isinstance(request_id, int | str):
                self._drop(_key(request_id))
            if not self._ids and self._settled is not None:
                self._settled.set()

    def _drop(self, key: tuple[type, int | str]) -> None:
        if self._ids[key] > 1:
            self._ids[key] -= 1
        else:
            self._ids.pop(key, None)

    async def settled(self) -> None:
        """Return once every request passed on has been answered (or cancelled)."""
        import anyio

        while True:
            with self._lock:
                if not self._ids:
                    return
                self._settled = anyio.Event()
                event = self._settled
            await event.wait()


def _key(request_id: int | str) -> tuple[type, int | str]:
    return type(request_id), request_id


def encode(message: Any) -> str:
    """One message as the SDK's stdio transport writes it; a value pydantic cannot serialize as UTF-8 escaped."""
    try:
        return str(message.model_dump_json(by_alias=True, exclude_unset=True))
    except ValueError:  # PydanticSerializationError: a lone surrogate somewhere in the message
        return dumps(message.model_dump(mode="json", by_alias=True, exclude_unset=True), separators=(",", ":"))


@asynccontextmanager
async def wire_streams(lines: AsyncIterator[str], out: Any, pending: Pending) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams the SDK's server runs on: `lines` in, each message written by `out.write`."""
    import anyio
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)

    async def reader() -> None:
        async with read_writer:
            async for line in lines:
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except Exception as exc:
                    await refused(line, str(exc).splitlines()[-1].strip())
                    continue
                await read_writer.send(SessionMessage(message))

    async def refused(line: str, reason: str) -> None:
        """A line the stdio front passed as a message and the SDK's model refuses: a request is answered."""
        message = json.loads(line)
        if "method" in message and "id" in message:
            await out.write(error_line(message["id"], INVALID_REQUEST, f"Invalid Request: {reason[:200]}"
                                       f"{NOTHING_DONE}").decode())
            pending.answered(message["id"])
        else:
            log.warning("stringsh mcp: dropped a message the server cannot read: %s", reason[:200])

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                message = session_message.message
                await out.write(encode(message) + "\n")
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.answered(message.id)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        yield read_stream, write_stream
