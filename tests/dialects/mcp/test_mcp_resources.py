"""The workspace as MCP resources on `stringsh mcp` (real stdio, the SDK's client): a template per root, reads
with the same confinement, secret refusal and masking as read_text_file, and subscriptions that report a change
made on disk by another process, until the client unsubscribes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, ResourceUpdatedNotification

from tests.dialects.mcp.client import STRINGSH, HttpServer, http_server, server_env

CLIENT = "resources-test-client"
WAIT = 20  # seconds to wait for a notification; a correct run sees it in a fraction of a second


class Updates:
    """The `notifications/resources/updated` URIs a client received, in order, and a way to wait for the next."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self.arrived = threading.Condition()

    async def handle(self, message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            with self.arrived:
                self.uris.append(str(message.params.uri))
                self.arrived.notify_all()

    def wait_for(self, count: int) -> list[str]:
        """The URIs once at least `count` have arrived (fails after WAIT seconds)."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.uris) >= count, WAIT), self.uris
            return list(self.uris)


class ResourceClient:
    def __init__(self, portal: BlockingPortal, session: ClientSession, updates: Updates) -> None:
        self.portal = portal
        self.session = session
        self.updates = updates

    def __getattr__(self, name: str) -> Any:
        """The session's method `name`, called through the portal."""
        method = getattr(self.session, name)

        def call(*args: Any) -> Any:
            with warnings.catch_warnings():  # resources/subscribe is deprecated from protocol 2026-07-28 on
                warnings.simplefilter("ignore")
                return self.portal.call(method, *args)

        return call

    def refusal(self, uri: str) -> tuple[str, Any]:
        """The JSON-RPC error text and data of a read that must be refused."""
        with pytest.raises(MCPError) as caught:
            self.portal.call(self.session.read_resource, uri)
        return caught.value.error.message, caught.value.error.data


@contextmanager
def resource_session(root: Path, env: dict[str, str], http: HttpServer | None = None) -> Iterator[ResourceClient]:
    """`python -m stringsh --root ROOT mcp` over real pipes (or a session on the running `http` server), its
    client recording resource updates."""
    updates = Updates()
    params = StdioServerParameters(command=sys.executable, args=["-m", "stringsh", "--root", str(root), "mcp"],
                                   env=server_env(env), cwd=str(root))

    @asynccontextmanager
    async def transport() -> Any:
        if http is None:
            async with stdio_client(params) as streams:
                yield streams
            return
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {http.token}"}, timeout=30) as client, \
                streamable_http_client(http.url, http_client=client) as streams:
            yield streams

    @asynccontextmanager
    async def opened() -> Any:
        async with transport() as streams, \
                ClientSession(streams[0], streams[1], client_info=Implementation(name=CLIENT, version="1.0"),
                              message_handler=updates.handle) as session:
            await session.initialize()
            yield session

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(opened()) as session:
        yield ResourceClient(portal, session, updates)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace `ws` beside a canary file outside it."""
    folder = tmp_path_factory.mktemp("mcpres")
    (folder / "ws").mkdir()
    (folder / "canary.txt").write_text("canary\n")
    return folder


@pytest.fixture(scope="module")
def root(base: Path) -> Path:
    root = base / "ws"
    (root / "notes.md").write_text("# Notes\r\nline two\r\n")
    (root / "creds.txt").write_text('aws = "AKIAIOSFODNN7EXAMPLE"\n')
    (root / ".env").write_text("KEY=1\n")
    (root / "pixel.bin").write_bytes(b"\x00\x01\x02binary")
    (root / "secret.bin").write_bytes(b"\x00\x01aws AKIAIOSFODNN7EXAMPLE\x00")
    (root / "sub").mkdir()
    return root.resolve()


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[ResourceClient]:
    with resource_session(root, env) as session:
        yield session


def test_a_template_per_root_and_the_subscribe_capability(client: ResourceClient, root: Path) -> None:
    templates = client.list_resource_templates().resource_templates
    assert [template.uri_template for template in templates] == [root.as_uri() + "/{+path}"]
    assert templates[0].name == root.name
    capabilities = client.session.server_capabilities
    assert capabilities is not None and capabilities.resources is not None
    assert capabilities.resources.subscribe is True


def test_read_gives_the_text_as_read_text_file_masked(client: ResourceClient, root: Path) -> None:
    uri = (root / "notes.md").as_uri()
    contents = client.read_resource(uri).contents
    assert [(str(item.uri), item.mime_type, item.text) for item in contents] == [  # type: ignore[union-attr]
        (uri, "text/markdown", "# Notes\nline two\n")]
    masked = client.read_resource((root / "creds.txt").as_uri()).contents[0]
    assert masked.text == 'aws = "***REDACTED***"\n'  # type: ignore[union-attr]


def test_a_binary_file_is_a_blob_and_one_holding_a_secret_is_refused(client: ResourceClient, root: Path) -> None:
    blob = client.read_resource((root / "pixel.bin").as_uri()).contents[0]
    assert (blob.mime_type, blob.blob) == ("application/octet-stream", "AAECYmluYXJ5")  # type: ignore[union-attr]
    message, data = client.refusal((root / "secret.bin").as_uri())
    assert message.startswith("ERROR(SECRET_DENIED): The file's bytes hold a secret")
    assert data == {"uri": (root / "secret.bin").as_uri(), "code": "SECRET_DENIED"}


def test_secrets_outside_paths_and_other_uris_are_refused(client: ResourceClient, root: Path, base: Path) -> None:
    message, data = client.refusal((root / ".env").as_uri())
    assert message == ("ERROR(SECRET_DENIED): Access to a secret file is denied: " + str(root / ".env") +
                       "\nThe policy's secret deny list covers this path.")
    assert data["code"] == "SECRET_DENIED"
    message, _ = client.refusal((base / "canary.txt").as_uri())
    assert message.startswith("ERROR(FILE_NOT_ALLOWED): ")
    message, _ = client.refusal(root.as_uri() + "/../canary.txt")
    assert message == (f"ERROR(INVALID_PATH): Path escapes the workspace root: {root}/../canary.txt\n"
                       "Use a path inside the workspace.")
    message, _ = client.refusal("https://example.com/notes.md")
    assert message == ("ERROR(INVALID_PATH): Not a file:// URI of a workspace file: https://example.com/notes.md\n"
                       "Name a file as file:///absolute/path inside an allowed directory "
                       "(resources/templates/list shows them).")
    message, _ = client.refusal((root / "missing.md").as_uri())
    assert message.startswith("ERROR(NOT_FOUND): ")
    assert (base / "canary.txt").read_text() == "canary\n"


def test_subscribing_to_a_secret_or_a_missing_path_is_refused(client: ResourceClient, root: Path) -> None:
    for uri, text in (((root / ".env").as_uri(), "ERROR(SECRET_DENIED): "),
                      ((root / "gone").as_uri(), f"ERROR(NOT_FOUND): No such file or folder: {root / 'gone'}\n"
                                                 "Subscribe to an existing file or folder.")):
        with pytest.raises(MCPError) as caught:
            client.subscribe_resource(uri)
        assert caught.value.error.message.startswith(text)


def test_a_folders_subscriber_hears_of_changes_inside_it(client: ResourceClient, root: Path) -> None:
    """Another process makes a file two levels down: one update naming the folder. stringsh's own `.stringsh/`
    inside it and a change beside the folder are not reported (a later change to a subscribed file is the
    marker: an update about them would have come first)."""
    folder, marker = root / "tree", root / "tree-marker.md"
    (folder / "deep").mkdir(parents=True)
    (folder / ".stringsh").mkdir()
    marker.write_text("0\n")
    uri = folder.as_uri()
    client.subscribe_resource(uri)
    before = len(client.updates.uris)
    subprocess.run(["sh", "-c", "echo made > deep/new.txt"], cwd=folder, check=True, timeout=60)
    assert client.updates.wait_for(before + 1)[before:] == [uri]
    (folder / ".stringsh" / "spool.txt").write_text("own\n")
    (root / "beside.md").write_text("beside\n")
    client.subscribe_resource(marker.as_uri())
    marker.write_text("1\n")
    assert client.updates.wait_for(before + 2)[before:] == [uri, marker.as_uri()]
    client.unsubscribe_resource(uri)
    client.unsubscribe_resource(marker.as_uri())


def test_reads_are_audited_with_the_client_name(client: ResourceClient, root: Path, env: dict[str, str]) -> None:
    uri = (root / "notes.md").as_uri()
    client.read_resource(uri)
    done = subprocess.run([*STRINGSH, "--root", str(root), "audit", "tail", "--json", "-n", "1"],
                          env=server_env(env), capture_output=True, text=True, timeout=60)
    record = json.loads(done.stdout.splitlines()[-1])
    assert (record["op"], record["frontend"], record["agent"], record["paths"]) == (
        "mcp.read_resource", "mcp", CLIENT, [str(root / "notes.md")])


def test_a_subscriber_hears_of_changes_from_another_process_until_it_unsubscribes(
        client: ResourceClient, root: Path) -> None:
    watched, other = root / "watched.md", root / "other.md"
    watched.write_text("one\n")
    other.write_text("x\n")
    uri = watched.as_uri()
    client.subscribe_resource(uri)
    before = len(client.updates.uris)
    watched.write_text("two\n")  # this test process is the other writer
    assert client.updates.wait_for(before + 1)[before:] == [uri]
    assert client.read_resource(uri).contents[0].text == "two\n"  # type: ignore[union-attr]
    client.unsubscribe_resource(uri)
    watched.write_text("three\n")
    # a change to a file subscribed afterwards is the marker: the update about `watched` would have come first
    client.subscribe_resource(other.as_uri())
    other.write_text("y\n")
    assert client.updates.wait_for(before + 2)[before + 1:] == [other.as_uri()]
    client.unsubscribe_resource(other.as_uri())


def test_a_burst_of_changes_is_one_notification_per_file(client: ResourceClient, root: Path) -> None:
    """Twenty writes in a row, then one write to a second subscribed file: the second file's update comes right
    after a single update of the first (a burst folded into one), not after twenty."""
    burst, marker = root / "burst.md", root / "marker.md"
    burst.write_text("0\n")
    marker.write_text("0\n")
    client.subscribe_resource(burst.as_uri())
    before = len(client.updates.uris)
    for n in range(20):
        burst.write_text(f"{n}\n")
    assert client.updates.wait_for(before + 1)[before:] == [burst.as_uri()]
    client.subscribe_resource(marker.as_uri())
    marker.write_text("1\n")
    assert client.updates.wait_for(before + 2)[before:] == [burst.as_uri(), marker.as_uri()]
    client.unsubscribe_resource(burst.as_uri())
    client.unsubscribe_resource(marker.as_uri())


def test_http_sessions_hear_only_of_their_own_subscriptions(root: Path, env: dict[str, str]) -> None:
    """Two HTTP sessions of one server, each subscribed to its own file: each is told of its file only (the
    second change of the first file comes after any stray update about the other file would have)."""
    mine, theirs = root / "mine.md", root / "theirs.md"
    mine.write_text("0\n")
    theirs.write_text("0\n")
    with http_server(root, env=env) as server, resource_session(root, env, server) as first, \
            resource_session(root, env, server) as second:
        first.subscribe_resource(mine.as_uri())
        second.subscribe_resource(theirs.as_uri())
        mine.write_text("1\n")
        assert first.updates.wait_for(1) == [mine.as_uri()]
        theirs.write_text("1\n")
        assert second.updates.wait_for(1) == [theirs.as_uri()]
        mine.write_text("2\n")
        assert first.updates.wait_for(2) == [mine.as_uri(), mine.as_uri()]
        assert second.updates.uris == [theirs.as_uri()]


def test_a_folder_subscription_over_http(root: Path, env: dict[str, str]) -> None:
    """The same over streamable HTTP: another process writes inside the folder, the session hears the folder."""
    folder = root / "http-tree"
    (folder / "inner").mkdir(parents=True)
    with http_server(root, env=env) as server, resource_session(root, env, server) as session:
        session.subscribe_resource(folder.as_uri())
        subprocess.run(["sh", "-c", "echo x > inner/made.txt"], cwd=folder, check=True, timeout=60)
        assert session.updates.wait_for(1) == [folder.as_uri()]


def test_a_file_is_watched_while_someone_subscribes(tmp_path: Path) -> None:
    """The registry on a real watcher: one watch per file whatever the number of subscribers, released (its
    folder unwatched) when the last one unsubscribes or its connection is dropped."""
    import anyio.lowlevel

    from stringsh.dialects.mcp.watching import Subscriber, Subscriptions
    from stringsh.render.watch import Watcher

    watcher = Watcher()
    subscriptions = Subscriptions(lambda: watcher)
    got: list[str] = []
    arrived = threading.Event()

    async def send(uri: str) -> None:
        got.append(uri)
        arrived.set()

    doc = tmp_path / "doc.md"
    doc.write_text("0\n")
    try:
        with start_blocking_portal() as portal:
            token = portal.call(anyio.lowlevel.current_token)
            first, second = Subscriber(send, token), Subscriber(send, token)
            subscriptions.subscribe(first, "uri:first", str(doc))
            subscriptions.subscribe(second, "uri:second", str(doc))
            assert subscriptions.watched() == 1 and list(watcher._dirs) == [str(tmp_path.resolve())]
            subscriptions.unsubscribe(first, "uri:first")
            assert subscriptions.watched() == 1
            doc.write_text("1\n")
            assert arrived.wait(WAIT) and got == ["uri:second"]
            subscriptions.drop(second)
            assert subscriptions.watched() == 0 and watcher._dirs == {}
            subscriptions.subscribe(first, "uri:folder", str(tmp_path), folder=True)  # one recursive watch
            assert subscriptions.watched() == 1 and list(watcher._trees) == [str(tmp_path.resolve())]
            subscriptions.drop(first)
            assert subscriptions.watched() == 0 and watcher._trees == {}
    finally:
        watcher.stop()
