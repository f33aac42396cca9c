"""`subscriptions/listen` (protocol 2026-07-28) carries stringsh's file and folder changes (listening.py): the SDK's
own client on the newest protocol against real `python -m stringsh mcp` processes, over stdio and streamable HTTP.
A change made by another process, another client or the shell reaches the stream that listens to the file or to a
folder holding it; a closed stream hears no more; a URI the client may not read refuses the request as
`resources/subscribe` does; the server's end (stdin closed, SIGTERM) ends each stream with its result."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.subscriptions import ResourceUpdated, Subscription
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceUpdatedNotification

from stringsh.dialects.mcp.listening import MAX_URIS
from tests.conftest import wait_until
from tests.dialects.mcp.client import HttpServer, http_server, server_env
from tests.dialects.mcp.modern import WAIT, Modern, audit, modern_http, modern_stdio

pytestmark = pytest.mark.timeout(120)

ID_KEY = "io.modelcontextprotocol/subscriptionId"


class Frames:
    """Every `notifications/resources/updated` the client read, as (subscription id, URI), in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, str]] = []
        self.lock = threading.Lock()

    async def handle(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            meta = message.params.model_dump(by_alias=True).get("_meta") or {}
            with self.lock:
                self.seen.append((meta.get(ID_KEY), str(message.params.uri)))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = (tmp_path_factory.mktemp("listen") / "ws").resolve()
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    return root


@contextmanager
def over_http(root: Path, env: dict[str, str], frames: Frames) -> Iterator[Modern]:
    with http_server(root, env=env) as server, modern_http(server.url, server.token, frames.handle) as client:
        client.server = server  # type: ignore[attr-defined]
        yield client


@contextmanager
def over_stdio(root: Path, env: dict[str, str], frames: Frames) -> Iterator[Modern]:
    with modern_stdio(root, env, frames.handle) as client:
        yield client


TRANSPORTS: dict[str, Callable[[Path, dict[str, str], Frames], AbstractContextManager[Modern]]] = {
    "http": over_http, "stdio": over_stdio}


@pytest.fixture(scope="module", params=sorted(TRANSPORTS))
def client(request: pytest.FixtureRequest, root: Path, env: dict[str, str]) -> Iterator[Modern]:
    frames = Frames()
    with TRANSPORTS[request.param](root, env, frames) as opened:
        opened.frames = frames  # type: ignore[attr-defined]
        opened.transport = request.param  # type: ignore[attr-defined]
        yield opened


@contextmanager
def other_client(client: Modern, root: Path, env: dict[str, str]) -> Iterator[Modern]:
    """Another client of the workspace: another session of the same server over HTTP, another process on stdio."""
    server: HttpServer | None = getattr(client, "server", None)
    with modern_http(server.url, server.token) if server is not None else modern_stdio(root, env) as other:
        yield other


def honored(subscription: Subscription) -> dict[str, Any]:
    return subscription.honored.model_dump(by_alias=True, exclude_none=True)


def test_a_listened_file_hears_of_a_write_by_another_process(client: Modern, root: Path, env: dict[str, str]
                                                              ) -> None:
    watched = root / "watched.md"
    watched.write_text("one\n")
    uri = watched.as_uri()
    with client.listen(resource_subscriptions=[uri], prompts_list_changed=True) as subscription:
        assert honored(subscription) == {"resourceSubscriptions": [uri]}  # no prompts: not acknowledged
        watched.write_text("two\n")  # this test process is the other writer
        assert client.next_event(subscription) == ResourceUpdated(uri)
        assert client.read(uri) == "two\n"
    record = [record for record in audit(root, env, 5) if record["op"] == "mcp.listen_resource"][-1]
    assert (record["frontend"], record["agent"], record["paths"], record["outcome"]) == (
        "mcp", "modern-client", [str(watched)], "ok")


def test_a_listened_file_hears_of_a_write_by_another_client(client: Modern, root: Path, env: dict[str, str]
                                                             ) -> None:
    shared = root / "shared.md"
    shared.write_text("first\n")
    uri = shared.as_uri()
    with client.listen(resource_subscriptions=[uri]) as subscription, other_client(client, root, env) as other:
        assert other.text("write_file", {"path": str(shared), "content": "second\n"}).startswith("Successfully")
        assert client.next_event(subscription) == ResourceUpdated(uri)
        assert shared.read_text() == "second\n"


def test_a_listened_folder_hears_of_changes_inside_it(client: Modern, root: Path) -> None:
    """The shell's write deep inside one folder, another process's removal inside a second: each folder's URI."""
    src, notes = root / "src", root / "notes"
    (src / "deep").mkdir(exist_ok=True)
    notes.mkdir(exist_ok=True)
    (notes / "old.md").write_text("old\n")
    with client.listen(resource_subscriptions=[src.as_uri(), notes.as_uri()]) as subscription:
        assert client.text("bash", {"command": "echo x > src/deep/made.txt"}).startswith("re: !echo x")
        assert client.next_event(subscription) == ResourceUpdated(src.as_uri())
        (notes / "old.md").unlink()  # this test process
        assert client.next_event(subscription) == ResourceUpdated(notes.as_uri())


def test_each_stream_hears_what_it_listens_to(client: Modern, root: Path) -> None:
    one, two = root / "one.md", root / "two.md"
    one.write_text("1\n")
    two.write_text("2\n")
    with client.listen(resource_subscriptions=[one.as_uri()]) as first, \
            client.listen(resource_subscriptions=[two.as_uri(), one.as_uri()]) as second:
        two.write_text("2b\n")
        assert client.next_event(second) == ResourceUpdated(two.as_uri())
        one.write_text("1b\n")
        assert client.next_event(first) == ResourceUpdated(one.as_uri())
        assert client.next_event(second) == ResourceUpdated(one.as_uri())


def test_a_closed_stream_hears_no_more(client: Modern, root: Path) -> None:
    """On stdio every frame shares the channel, so a closed stream's update would be read there (over HTTP the
    closed response carries nothing by construction). After the close, a second stream listens to the same file:
    both would have been told of the next write together, the first one's frame written first."""
    frames: Frames = client.frames  # type: ignore[attr-defined]
    quiet = root / "quiet.md"
    quiet.write_text("0\n")
    uri = quiet.as_uri()
    with client.listen(resource_subscriptions=[uri]) as closed:
        quiet.write_text("1\n")
        assert client.next_event(closed) == ResourceUpdated(uri)
    with client.listen(resource_subscriptions=[uri]) as marker:
        before = len(frames.seen)
        quiet.write_text("2\n")
        assert client.next_event(marker) == ResourceUpdated(uri)
        with frames.lock:
            assert frames.seen[before:] == [(marker.subscription_id, uri)]
    assert frames.seen.count((closed.subscription_id, uri)) == 1


def test_a_closed_stream_leaves_nothing_watched(ws: Path) -> None:
    """In-process (the SDK's client on the server object, the newest protocol): the stream's watch is in place
    once it is acknowledged, and gone once the client closed it."""
    from anyio.from_thread import start_blocking_portal
    from mcp import Client

    from stringsh.dialects.mcp.listening import STREAMS
    from stringsh.dialects.mcp.server import build_server
    from stringsh.dispatcher import Dispatcher

    (ws / "a.txt").write_text("a\n")
    dispatcher = Dispatcher(ws)
    try:
        server = build_server(dispatcher.workspace, None, dispatcher)
        streams = getattr(server, STREAMS)
        with start_blocking_portal() as portal, \
                portal.wrap_async_context_manager(Client(server, mode="2026-07-28")) as client:
            with portal.wrap_async_context_manager(client.listen(resource_subscriptions=[(ws / "a.txt").as_uri()])):
                assert (streams.subscriptions.watched(), len(streams.open)) == (1, 1)
            wait_until(lambda: (streams.subscriptions.watched(), len(streams.open)) == (0, 0))
    finally:
        dispatcher.close()


@pytest.mark.parametrize(("name", "code", "text"), [
    ("../outside.md", "FILE_NOT_ALLOWED", "Path is outside the workspace: {path}\nOnly paths under {root} can be "
                                          "used."),
    ("missing.md", "NOT_FOUND", "No such file or folder: {path}\nSubscribe to an existing file or folder."),
    (".env", "SECRET_DENIED", "Access to a secret file is denied: {path}\n"),
])
def test_a_uri_the_client_may_not_read_refuses_the_request(client: Modern, root: Path, name: str, code: str,
                                                            text: str) -> None:
    path = Path(str(root / name)).resolve() if name.startswith("..") else root / name
    good, uri = (root / "src").as_uri(), path.as_uri()
    with pytest.raises(MCPError) as caught, client.listen(resource_subscriptions=[good, uri]):
        pass
    error = caught.value.error
    assert error.code == -32602
    assert error.message.startswith(f"ERROR({code}): " + text.format(path=path, root=root)), error.message
    assert error.data == {"uri": uri, "code": code}


def test_too_many_uris_are_refused(client: Modern, root: Path) -> None:
    uris = [(root / f"f{n}.md").as_uri() for n in range(MAX_URIS + 1)]
    with pytest.raises(MCPError) as caught, client.listen(resource_subscriptions=uris):
        pass
    error = caught.value.error
    assert (error.code, error.message, error.data) == (
        -32602, f"ERROR(INVALID_PAYLOAD): {MAX_URIS + 1} resource URIs on one stream, at most {MAX_URIS}\nListen "
        "to a folder they share (changes inside it are reported), or open more streams.",
        {"code": "INVALID_PAYLOAD", "limit": MAX_URIS})


# -- the wire itself: malformed parameters, and the server's end ----------------------------------------------

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-client", "version": "1"}}


def listen_line(request_id: int, notifications: Any) -> str:
    params = {"_meta": META, "notifications": notifications}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": params})


def test_on_stdio_the_end_of_input_ends_each_stream_with_its_result(root: Path, env: dict[str, str]) -> None:
    """A listen stays open until the server ends it: with stdin closed, its result is written and the process
    exits; a malformed filter gets the SDK's invalid-params error."""
    uri = (root / "src").as_uri()
    lines = [listen_line(7, {"resourceSubscriptions": [uri]}), listen_line(8, {"resourceSubscriptions": uri})]
    done = subprocess.run([sys.executable, "-m", "stringsh", "--root", str(root), "mcp"], input="\n".join(lines) + "\n",
                          env=server_env(env), cwd=str(root), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    meta = {ID_KEY: 7}
    info = {"name": "stringsh", "version": replies[-1]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"][
        "version"]} if "result" in replies[-1] else None
    assert sorted(replies, key=json.dumps) == sorted([
        {"jsonrpc": "2.0", "id": 8, "error": {"code": -32602, "message": "Invalid request parameters", "data": ""}},
        {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
         "params": {"_meta": meta, "notifications": {"resourceSubscriptions": [uri]}}},
        {"jsonrpc": "2.0", "id": 7, "result": {"_meta": {**meta, "io.modelcontextprotocol/serverInfo": info},
                                               "resultType": "complete"}},
    ], key=json.dumps)
    assert replies[-1]["id"] == 7  # the result ends the stream: after its acknowledgment


def test_over_http_a_malformed_filter_gets_the_sdks_error(root: Path, env: dict[str, str]) -> None:
    import httpx2

    with http_server(root, env=env) as server:
        answer = httpx2.post(server.url, content=listen_line(3, {"resourceSubscriptions": "file:///x"}), timeout=30,
                             headers={"Authorization": f"Bearer {server.token}", "MCP-Protocol-Version": "2026-07-28",
                                      "Mcp-Method": "subscriptions/listen",
                                      "Accept": "application/json, text/event-stream",
                                      "Content-Type": "application/json"})
    assert (answer.status_code, answer.json()) == (400, {
        "jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid request parameters", "data": ""}})


def test_sigterm_ends_an_http_stream_with_its_result(root: Path, env: dict[str, str]) -> None:
    """The server stops at once, its listen stream ended gracefully (the client's loop ends: no SubscriptionLost)
    rather than held open until the stop's grace runs out."""
    with http_server(root, env=env) as server, modern_http(server.url, server.token) as client, \
            client.listen(resource_subscriptions=[(root / "src").as_uri()]) as subscription:
        server.process.send_signal(signal.SIGTERM)

        async def ends() -> bool:
            with anyio.fail_after(WAIT):
                async for _ in subscription:
                    pass
            return True

        assert client.portal.call(ends)
        assert server.process.wait(timeout=WAIT) == 0
