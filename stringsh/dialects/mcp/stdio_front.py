"""`stringsh mcp` on stdin/stdout, serving while the SDK is imported.

Importing the SDK (its pydantic models for every protocol revision) takes most of a second, and the first things a
client asks need none of it. So a reader thread takes the wire from the start while the main thread imports the
SDK, and answers itself:
- `initialize` (the first message, when well formed): its bytes are fixed by identity.py and the version asked;
- `tools/list` until the SDK serves: the SDK's own result, kept in tools.json (toollist.py);
- `list_directory`, `get_file_info`, `read_text_file`, `list_allowed_directories` and `edit_file`, through the
  same engine request as the SDK's tool would run (shortcut.py), once the connection's client and roots are known:
  at once for a client without the roots capability, else after a first call through the SDK asked for them.
The import starts once the handshake is over (a line after `initialize` and `notifications/initialized`, or
`HANDSHAKE_WAIT` seconds after start), so that it does not hold the interpreter while `initialize` is answered.
Every other line goes to the SDK in order, once it serves; `initialize` too (its session must see the
handshake), its reply to that request dropped on the way out (a reply that differs from the early one is logged
on stderr). Tests hold each early reply byte for byte equal to the SDK's (test_mcp_lazy_start.py,
test_mcp_shortcut.py).

As the SDK's stdio transport does, fd 0 reads the null device and fd 1 writes to stderr while serving, so a
child process (the shell tools) can neither take the client's messages nor write into the stream.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import queue
import signal
import sys
import threading
from typing import IO, TYPE_CHECKING, Any

from stringsh.dialects.mcp.identity import HANDSHAKE_VERSIONS, initialize_reply
from stringsh.dialects.mcp.roots import STDIO
from stringsh.dialects.mcp.stdio_wire import Pending
from stringsh.dialects.mcp.wirecheck import check
from stringsh.protocol.stdinput import InputLines

log = logging.getLogger("stringsh.mcp")

#: Seconds the SDK's import waits for the client's handshake at most.
HANDSHAKE_WAIT = 0.3

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterable, Iterator

    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.calls import Calls
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


#: How the notification that ends the handshake starts (as clients write it; another spelling only starts the
#: SDK's import sooner).
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"'


def tools_list_id(line: bytes) -> int | str | None:
    """The id of a plain `tools/list` request (no cursor, no `_meta`); None for any other line."""
    if b'"tools/list"' not in line:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/list" or message.get("jsonrpc") != "2.0" \
            or message.keys() - {"jsonrpc", "id", "method", "params"} or message.get("params", {}) != {}:
        return None
    request_id = message.get("id")
    return request_id if type(request_id) in (int, str) else None


class Wire:
    """The client's stdout, shared by the SDK (`write`, async: each message written whole and flushed on a worker
    thread, so a client that stops reading blocks that thread, never the event loop) and the reader's own replies
    (`send`); the SDK's reply to an `initialize` answered early is dropped."""

    def __init__(self, out: IO[bytes], answered: tuple[int | str, bytes] | None = None) -> None:
        self.out = out
        self.answered = answered
        self.lock = threading.Lock()
        #: The requests passed to the SDK and not answered yet: the wire's end reaches the SDK once none are left.
        self.pending = Pending()

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


class Front:
    """The reader: what it answers itself, and the lines it queues for the SDK (None: the wire closed)."""

    def __init__(self, calls: Calls, out: Wire) -> None:
        self.calls = calls
        self.out = out
        self.inbox: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.shortcut: Shortcut | None = None
        #: Set once the SDK serves: from then on it answers `tools/list` itself.
        self.serving = threading.Event()
        #: Set when the SDK's import may start: a line past the handshake came, or the wire closed.
        self.wanted = threading.Event()
        self.started = False
        #: Called on the event loop when the wire closed, before the last replies are awaited: ends the
        #: never-ending requests (`subscriptions/listen` streams, listening.py) with their results.
        self.ending: Callable[[], None] | None = None

    def read(self, wire_in: Iterable[bytes]) -> None:
        try:
            for line in wire_in:
                handshake = not self.started or line.lstrip().startswith(INITIALIZED)
                checked = check(line)  # what the SDK would drop unanswered is refused here, as JSON-RPC says
                if checked.reply is not None:
                    self.out.send(checked.reply)
                elif not checked.drop:
                    self.forward(line, checked)
                if not handshake:
                    self.wanted.set()
        finally:
            self.inbox.put(None)
            self.wanted.set()

    def forward(self, line: bytes, checked: Any) -> None:
        """A well-formed line: answered here, or queued for the SDK, which then owes its request a reply."""
        try:
            taken = self.take(line)
        except Exception:  # a bug here must not end the session: the SDK answers the line instead
            log.exception("stringsh mcp: the stdio front failed on a line")
            taken = False
        if not taken:
            self.out.pending.expect(checked)
            self.inbox.put(line.decode("utf-8", "replace"))

    def take(self, line: bytes) -> bool:
        """Whether `line` was answered here (else it goes to the SDK)."""
        if not self.started:
            self.started = True
            self.hello(line)
            return False  # the SDK's session sees the handshake too
        if self.shortcut is None:
            return False
        if not self.serving.is_set():
            request_id = tools_list_id(line)
            if request_id is not None:
                from stringsh.dialects.mcp.toollist import reply

                self.out.send(reply(request_id))
                return True
        if self.shortcut.serve(line, self.out.send):
            return True
        self.shortcut.passing(line)
        return False

    def hello(self, line: bytes) -> None:
        """Answer a first `initialize`; on a handshake-era protocol the shortcut's tools are answered here from now
        on."""
        answered = early_reply(line)
        if answered is None:
            self.wanted.set()
            return
        self.out.answered = answered
        self.out.send(answered[1])
        message = json.loads(line)
        if message["params"]["protocolVersion"] not in HANDSHAKE_VERSIONS:
            return
        from stringsh.dialects.mcp.shortcut import Shortcut

        self.shortcut = Shortcut(self.calls, message)

    async def lines(self) -> AsyncIterator[str]:
        """The SDK's stdin: the queued lines, then each as the reader queues it."""
        import anyio.to_thread

        self.serving.set()
        while True:
            line = self.inbox.get_nowait() if not self.inbox.empty() else await anyio.to_thread.run_sync(
                self.inbox.get)
            if line is None:
                if self.ending is not None:
                    self.ending()
                await self.out.pending.settled()  # every request read is answered before the SDK sees the end
                return
            yield line


def serve(calls: Calls, build: Callable[[], MCPServer]) -> int:
    """Serve stdio until the client closes it; `build` imports the SDK and makes the server on `calls`."""
    from stringsh.dialects.mcp import shortcut, toollist  # the reader imports nothing: the SDK's import holds locks

    toollist.result_bytes()
    del shortcut
    wire_in, wire_out, restore = claim_wire()
    front = Front(calls, Wire(wire_out))
    lines = InputLines(wire_in.readline)  # a read error ends the wire as its end does (stdinput.py)
    reader = threading.Thread(target=front.read, args=(lines,), name="stringsh-mcp-stdin", daemon=True)
    reader.start()
    front.wanted.wait(HANDSHAKE_WAIT)
    try:
        try:
            import anyio

            server = build()
            from stringsh.dialects.mcp.listening import end_streams

            front.ending = lambda: end_streams(server)
        except ImportError as exc:
            print(f"stringsh: the MCP server needs the mcp extra ({exc.name} is missing): pip install "
                  "'stringsh[mcp]'", file=sys.stderr)
            return 2
        from stringsh import serving

        serving.settle()
        with stopped_by_sigterm(front, calls):
            anyio.run(run_sdk, server, front.lines(), front.out)
        return lines.status(0)
    finally:
        calls.sessions.end(STDIO)  # the connection's topic and shell, when the front made its client
        restore()


@contextlib.contextmanager
def stopped_by_sigterm(front: Front, calls: Calls) -> Iterator[None]:
    """SIGTERM ends the session as the client closing stdin does (every call read is answered first), and its shell
    commands still running after GRACE seconds get Ctrl-C, as `mcp --http` stops (running.py); a second SIGTERM ends
    the process at once. Not an exception from the handler: it would leave the event loop half cancelled."""
    from stringsh.dialects.mcp.running import GRACE, interrupt_shells

    def on_sigterm(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print("stringsh: SIGTERM: finishing the calls in flight, then closing", file=sys.stderr, flush=True)
        front.inbox.put(None)
        if calls.dispatcher is not None:
            overdue = threading.Timer(GRACE, interrupt_shells, args=(calls.dispatcher,))
            overdue.daemon = True
            overdue.start()

    before = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


async def run_sdk(server: MCPServer, lines: AsyncIterator[str], out: Wire) -> None:
    """The SDK's server on the wire: what MCPServer.run_stdio_async runs, on stdio_wire's streams."""
    from stringsh.dialects.mcp.stdio_wire import wire_streams

    lowlevel = server._lowlevel_server
    async with wire_streams(lines, out, out.pending) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def run_lines(server: MCPServer, lines: list[str], expected: int) -> list[bytes]:
    """What the SDK's server writes for `lines` (no line answered early), the wire closed once `expected` lines
    came: for tools.json (toollist.py) and the tests that compare the early replies with the SDK's."""
    import io

    import anyio
    import anyio.from_thread

    out = io.BytesIO()
    got = anyio.Event()

    class Collect(Wire):
        def send(self, data: bytes) -> None:
            super().send(data)
            if out.getvalue().count(b"\n") >= expected:
                anyio.from_thread.run_sync(got.set)

    async def feed() -> AsyncIterator[str]:
        for line in lines:
            yield line
        await got.wait()

    await run_sdk(server, feed(), Collect(out))
    return out.getvalue().splitlines(keepends=True)
