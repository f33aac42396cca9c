"""`stringsh mcp` on stdin/stdout, answering `initialize` before the SDK is imported.

Importing the SDK (its pydantic models for every protocol revision) takes most of a second, and the reply to
`initialize` needs none of it: its bytes are fixed by identity.py and the version the client asks for. So the
first message is read here; when it is a well-formed `initialize` request it is answered at once, then the SDK is
imported and handed every message from the first on, `initialize` included (its session must see the handshake),
and the SDK's own reply to that request is dropped on the way out (a reply that differs from the one sent is
logged on stderr: tests/dialects/mcp/test_mcp_lazy_start.py keeps them equal). Anything else as the first message
(another method, a malformed line, the 2026 protocol's `server/discover`) goes to the SDK untouched and waits for
it. The messages a client sends meanwhile wait in the pipe; the first tool call pays for the import.

As the SDK's stdio transport does, fd 0 reads the null device and fd 1 writes to stderr while serving, so a
child process (the shell tools) can neither take the client's messages nor write into the stream.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import threading
from typing import IO, TYPE_CHECKING

from stringsh.dialects.mcp.identity import HANDSHAKE_VERSIONS, initialize_reply

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterable

    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.shortcut import Shortcut


def claim_wire() -> tuple[IO[bytes], IO[bytes], Callable[[], None]]:
    """The client's stdin and stdout on private descriptors, fd 0 and 1 diverted; and how to restore them."""
    private_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    private_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)

    def restore() -> None:
        os.dup2(private_in, 0)
        os.dup2(private_out, 1)

    return os.fdopen(private_in, "rb", closefd=False), os.fdopen(private_out, "wb", closefd=False), restore


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def early_reply(line: bytes) -> tuple[int | str, bytes] | None:
    """The request id and reply line for `line` when it is an `initialize` request the SDK accepts as well
    (every field the SDK's params model requires, with its type); None for anything else."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "initialize":
        return None
    request_id, params = message.get("id"), message.get("params")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str) or not isinstance(params, dict):
        return None
    info, capabilities = params.get("clientInfo"), params.get("capabilities")
    if not _is_str(params.get("protocolVersion")) or not isinstance(capabilities, dict) \
            or any(not isinstance(value, dict) for value in capabilities.values()) \
            or not isinstance(info, dict) or not _is_str(info.get("name")) or not _is_str(info.get("version")):
        return None
    return request_id, initialize_reply(request_id, params["protocolVersion"])


class Wire:
    """The client's stdout, shared by the SDK (`write`, async: each message written whole and flushed on a worker
    thread, so a client that stops reading blocks that thread, never the event loop) and the reader's shortcut
    replies (`send`); the SDK's reply to an `initialize` answered early is dropped."""

    def __init__(self, out: IO[bytes], answered: tuple[int | str, bytes] | None) -> None:
        self.out = out
        self.answered = answered
        self.lock = threading.Lock()

    async def write(self, text: str) -> None:
        import anyio.to_thread

        data = text.encode()
        if self.answered is not None and self._is_answered(data):
            return
        await anyio.to_thread.run_sync(self.send, data)

    async def flush(self) -> None:
        """Every write is flushed already."""

    def send(self, data: bytes) -> None:
        with self.lock:
            self.out.write(data)
            self.out.flush()

    def _is_answered(self, data: bytes) -> bool:
        assert self.answered is not None
        request_id, sent = self.answered
        try:
            message = json.loads(data)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != request_id or "method" in message:
            return False
        self.answered = None
        if data != sent:
            print(f"stringsh mcp: the SDK's initialize reply differs from the early one: {data[:300]!r}",
                  file=sys.stderr)
        return True


def serve(build: Callable[[], MCPServer]) -> int:
    """Serve stdio until the client closes it; `build` imports the SDK and makes the server."""
    wire_in, wire_out, restore = claim_wire()
    try:
        first = wire_in.readline()
        if not first:
            return 0  # the client left before saying anything
        answered = early_reply(first)
        if answered is not None:
            wire_out.write(answered[1])
            wire_out.flush()
        try:
            import anyio

            server = build()
        except ImportError as exc:
            print(f"stringsh: the MCP server needs the mcp extra ({exc.name} is missing): pip install "
                  "'stringsh[mcp]'", file=sys.stderr)
            return 2
        shortcut = None
        if answered is not None and json.loads(first)["params"]["protocolVersion"] in HANDSHAKE_VERSIONS:
            from stringsh.dialects.mcp.shortcut import Shortcut

            shortcut = Shortcut(server.calls, json.loads(first))
        anyio.run(run_wire, server, first, wire_in, Wire(wire_out, answered), shortcut)
        return 0
    finally:
        restore()


def read_wire(wire_in: Iterable[bytes], out: Wire, shortcut: Shortcut | None, forward: Callable[[str], None]) -> None:
    """The reader (a worker thread): each line to the SDK (`forward`), but the calls the shortcut answers."""
    for line in wire_in:
        if shortcut is not None:
            if shortcut.serve(line, out.send):
                continue
            shortcut.passing(line)
        forward(line.decode("utf-8", "replace"))


async def run_wire(server: MCPServer, first: str | bytes, wire_in: Iterable[bytes], out: Wire,
                   shortcut: Shortcut | None = None) -> None:
    """The SDK's server on the wire: `first` (already read), then every line `read_wire` forwards."""
    import anyio
    import anyio.from_thread
    import anyio.to_thread
    from mcp.server.stdio import stdio_server

    send, receive = anyio.create_memory_object_stream[str](16)
    first_text = first.decode("utf-8", "replace") if isinstance(first, bytes) else first

    async def lines() -> AsyncIterator[str]:
        yield first_text
        async for line in receive:
            yield line

    def forward(line: str) -> None:
        anyio.from_thread.run(send.send, line)

    async def pump() -> None:
        async with send:
            await anyio.to_thread.run_sync(read_wire, wire_in, out, shortcut, forward, abandon_on_cancel=True)

    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs, on these streams
    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        async with stdio_server(Lines(lines()), out) as (read_stream, write_stream):  # type: ignore[arg-type]
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        group.cancel_scope.cancel()


class Lines:
    """An async iterator as the SDK's stdio transport iterates its stdin."""

    def __init__(self, source: AsyncIterator[str]) -> None:
        self.source = source

    def __aiter__(self) -> AsyncIterator[str]:
        return self.source
