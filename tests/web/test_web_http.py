"""`stringsh web` over HTTP, a real server on loopback and real agents (`python -m stringsh -c`) beside it: the
guards (token, Host, Origin, body size, the security headers), the read side (change sets with `/changes ID`'s own
masked diff, the request feed and its filters, the live stream) and the two writes (revert, a client's undo), each
refused on conflict and recorded as the web client."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from stringsh.errors import StringError
from stringsh.web.server import CSP
from tests.conftest import default_start, wait_until
from tests.dialects.mcp.client import STRINGSH, server_env, user_env
from tests.web.running import WebServer, agent, web_server


def started() -> list[str]:
    """The start-up line this machine prints before the address, if any (tests/conftest.py: default_start)."""
    return default_start().splitlines()

SECRET = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return user_env(tmp_path_factory.mktemp("webuser"))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("webguards") / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def server(root: Path, env: dict[str, str]) -> Iterator[WebServer]:
    with web_server(root, env) as running:
        yield running


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[WebServer, Path, dict[str, str]]]:
    """A server of its own on an empty workspace, for the tests that change files."""
    root = tmp_path / "ws"
    root.mkdir()
    env = user_env(tmp_path / "user")
    with web_server(root, env) as running:
        yield running, root, env


def test_it_prints_one_address_with_the_token_in_its_fragment(server: WebServer, root: Path) -> None:
    # after the start-up line this machine prints, if any (none where the shell is sandboxed)
    first = started()
    assert server.lines[:len(first) + 2] == [*first, f"stringsh: web serving {root.resolve()}",
                                             f"  open {server.url}#token={server.token}"]
    assert len(server.token) >= 32


def test_every_thread_of_the_server_stands_back_for_the_agents(server: WebServer) -> None:
    """SCHED_BATCH: no wakeup preemption of an agent's request under way (web/cli.stand_back)."""
    policies = set()
    for tid in os.listdir(f"/proc/{server.process.pid}/task"):
        with contextlib.suppress(ProcessLookupError):  # a worker thread that ended meanwhile
            policies.add(os.sched_getscheduler(int(tid)))
    assert policies == {os.SCHED_BATCH}


def test_the_page_and_its_files_come_from_the_package_with_a_strict_policy(server: WebServer) -> None:
    page = httpx.get(server.url, timeout=60)
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CSP
    assert CSP.startswith("default-src 'none'; script-src 'self';") and "unsafe" not in CSP
    assert (page.headers["x-content-type-options"], page.headers["referrer-policy"],
            page.headers["x-frame-options"]) == ("nosniff", "no-referrer", "DENY")
    assert "<script>" not in page.text and " on" not in page.text.replace(" one", "")  # no inline script or handler
    linked = [part.split('"', 1)[0] for part in page.text.split(' src="')[1:] + page.text.split(' href="')[1:]]
    assert linked == ["/static/stream.js", "/static/app.js", "/static/icon.svg", "/static/app.css"]
    for name, kind in (("app.js", "text/javascript"), ("stream.js", "text/javascript"), ("app.css", "text/css"),
                       ("icon.svg", "image/svg+xml")):
        answer = httpx.get(f"{server.url}static/{name}", timeout=60)
        assert (answer.status_code, answer.headers["content-type"].split(";")[0]) == (200, kind)
        text = answer.text.replace("http://www.w3.org/2000/svg", "")  # SVG's namespace: a name, never fetched
        assert "http://" not in text and "https://" not in text
    for name in ("index.html", "..%2Fserver.py", "nope.js"):
        assert httpx.get(f"{server.url}static/{name}", timeout=60).status_code == 404


@pytest.mark.parametrize("given", [None, "Bearer wrong-token-wrong-token", "Basic abc"])
def test_the_api_needs_the_token(server: WebServer, given: str | None) -> None:
    headers = {} if given is None else {"Authorization": given}
    for path in ("api/overview", "api/changes", "api/audit", "api/events", "api/verify"):
        answer = httpx.get(server.url + path, headers=headers, timeout=60)
        assert (answer.status_code, answer.json()) == (401, {
            "error": "ERROR(AUTH_REQUIRED): a bearer token is required",
            "hint": "Send the token stringsh printed at start (or the one in its config folder): "
                    "Authorization: Bearer TOKEN"})
        assert answer.headers["www-authenticate"].startswith('Bearer realm="stringsh"')


def test_two_authorization_headers_are_refused(server: WebServer) -> None:
    answer = httpx.get(server.url + "api/overview", timeout=60, headers=[
        ("Authorization", f"Bearer {server.token}"), ("Authorization", f"Bearer {server.token}")])
    assert (answer.status_code, answer.json()["error"]) == (400, "ERROR(INVALID_PAYLOAD): more than one "
                                                                 "Authorization header")


@pytest.mark.parametrize("host", ["evil.example:80", "attacker.test", "127.0.0.2:1"])
def test_a_foreign_host_is_refused_even_with_the_token(server: WebServer, host: str) -> None:
    """DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own name as Host."""
    for path in ("", "api/overview"):
        answer = httpx.get(server.url + path, headers=server.auth(Host=host), timeout=60)
        assert (answer.status_code, answer.json()) == (421, {
            "error": "ERROR(NOT_PERMITTED): this server does not answer to that Host",
            "hint": "Open the address stringsh web printed."})


def test_the_loopback_names_of_the_port_are_all_accepted(server: WebServer) -> None:
    port = server.url.rsplit(":", 1)[1].rstrip("/")
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert httpx.get(server.url + "api/overview", headers=server.auth(Host=host), timeout=60).status_code == 200


FOREIGN = {"error": "ERROR(NOT_PERMITTED): a request from another site",
           "hint": "Only the page stringsh web serves may call it."}


def test_a_forged_cross_origin_request_is_refused_and_changes_nothing(
        fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write a.txt\nhello\n").returncode == 0
    port = server.url.rsplit(":", 1)[1].rstrip("/")
    for origin in ("http://evil.example", "null", f"http://localhost.evil.example:{port}", f"https://127.0.0.1:{port}"):
        answer = server.post("api/revert", {"change": 1}, origin=origin)
        assert (answer.status_code, answer.json()) == (403, FOREIGN)
        answer = httpx.get(server.url + "api/overview", headers=server.auth(Origin=origin), timeout=60)
        assert (answer.status_code, answer.json()) == (403, FOREIGN)
    bare = httpx.post(server.url + "api/revert", headers=server.auth(), json={"change": 1}, timeout=60)
    assert (bare.status_code, bare.json()) == (403, {
        "error": "ERROR(NOT_PERMITTED): a write without the page's Origin",
        "hint": "Changes are made from the page stringsh web serves."})
    no_token = httpx.post(server.url + "api/revert", headers={"Origin": server.origin}, json={"change": 1},
                          timeout=60)
    assert no_token.status_code == 401
    assert (root / "a.txt").read_text() == "hello\n"
    assert [row["id"] for row in server.get("api/changes").json()["rows"]] == [1]


def test_a_big_body_is_refused_before_it_is_read(server: WebServer) -> None:
    answer = httpx.post(server.url + "api/revert", headers=server.auth(Origin=server.origin),
                        content=b"{" + b" " * 5000 + b"}", timeout=60)
    assert (answer.status_code, answer.json()["error"]) == (
        413, "ERROR(TOO_LARGE): a request body over 4096 bytes, or of no stated length")


def test_a_change_shows_with_the_diff_changes_shows_masked_alike(
        fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, f"/write keys.txt\nuser = ann\nkey = {SECRET}\n").returncode == 0
    rows = server.get("api/changes").json()
    assert [(row["id"], row["command"], row["paths"], row["dialect"], row["status"]) for row in rows["rows"]] == [
        (1, "/write keys.txt", ["keys.txt"], "string", "")]
    assert rows["next"] is None
    detail = server.get("api/changes/1").json()
    shown = agent(root, env, "/changes 1").stdout
    assert shown == f"re: /changes 1\n{detail['head']}\n---\n" + "\n".join(detail["diff"]) + "\n"
    assert detail["diff"][:3] == ["--- /dev/null", "+++ b/keys.txt", "@@ -0,0 +1,2 @@"]
    assert SECRET not in json.dumps(detail) and SECRET not in json.dumps(server.get("api/audit").json())
    missing = server.get("api/changes/99")
    assert (missing.status_code, missing.json()["error"]) == (404, "ERROR(NOT_FOUND): No change 99 in the journal.")


def test_the_request_feed_pages_and_filters(fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write one.txt\n1\n", "--client", "alpha").returncode == 0
    assert agent(root, env, "/write two.txt\n2\n", "--client", "beta").returncode == 0
    assert agent(root, env, "/open .git/config", "--client", "beta").returncode == 1
    every = server.get("api/audit").json()
    assert [(r["client"], r["op"], r["outcome"], r["kind"]) for r in every["records"]] == [
        ("beta", "/open", "NOT_FOUND", "refused"), ("beta", "/write", "ok", "ok"),
        ("alpha", "/write", "ok", "ok")]
    assert every["next"] is None
    assert [r["paths"] for r in server.get("api/audit", client="alpha").json()["records"]] == [["one.txt"]]
    assert [r["op"] for r in server.get("api/audit", outcome="refused").json()["records"]] == ["/open"]
    assert [r["client"] for r in server.get("api/audit", path="two").json()["records"]] == ["beta"]
    first = server.get("api/audit", limit="2").json()
    second = server.get("api/audit", limit="2", before=first["next"]).json()
    assert [r["id"] for r in first["records"] + second["records"]] == [r["id"] for r in every["records"]]
    rows: list[dict[str, object]] = []

    def both_counted() -> bool:
        """The follower has read the three records, and the two changes as done (read at most once a second: a
        read between a change's commit and its done mark counts it, not yet undoable)."""
        rows[:] = server.get("api/overview").json()["clients"]
        return (sum(row.get("requests", 0) for row in rows) == 3 and sum(row["changes"] for row in rows) == 2
                and sum(row["undo_depth"] for row in rows) == 2)  # a row the log has not reached has no requests

    wait_until(both_counted)
    clients = {(row["client"], row["topic"]): row for row in rows}
    assert {key: (row["changes"], row["undo_depth"], row["requests"], row["refusals"])
            for key, row in clients.items()} == {("alpha", "main"): (1, 1, 1, 0), ("beta", "main"): (1, 1, 2, 1)}
    chart = clients[("beta", "main")]["activity"]  # the last hour in twelve bars, the newest last
    assert len(chart) == 12 and [sum(bar[0] for bar in chart), sum(bar[1] for bar in chart)] == [2, 1]
    assert chart[-1][0] + chart[-2][0] == 2  # made just now (the newest bar, or the one before if a bar began since)


def test_a_files_timeline_names_every_change_that_wrote_it(fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write t.txt\none\n", "--client", "alpha").returncode == 0
    assert agent(root, env, "/write other.txt\nx\n", "--client", "alpha").returncode == 0
    assert agent(root, env, "/write --force t.txt\ntwo\n", "--client", "beta").returncode == 0
    assert server.post("api/revert", {"change": 3}).status_code == 200
    shown = server.get("api/history", path="t.txt").json()
    assert [(row["id"], row["dialect"], row["command"], row["status"]) for row in shown["rows"]] == [
        (4, "web", "/revert 3", "(reverts 3)"), (3, "string", "/write --force t.txt", "(reverted by 4)"),
        (1, "string", "/write t.txt", "")]
    assert [row["client"] for row in shown["rows"][1:]] == ["beta", "alpha"]
    assert server.get("api/history", path="none.txt").json() == {"path": "none.txt", "rows": []}


def test_a_new_record_is_streamed_live(fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    got: list[dict[str, object]] = []
    hello = threading.Event()
    done = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", server.url + "api/events", headers=server.auth(), timeout=60) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    message = json.loads(line[6:])
                    if message["type"] == "hello":
                        hello.set()
                    elif message["type"] == "batch":
                        got.append(message)
                        # the clients' change counts come with the record, or a second after it at most (feed.SLOW)
                        if any(r["paths"] == ["live.txt"] for batch in got for r in batch["records"]) and [
                                c["changes"] for c in message.get("clients", [])] == [1]:
                            done.set()
                            return

    reader = threading.Thread(target=listen, daemon=True)
    reader.start()
    assert hello.wait(60)
    assert agent(root, env, "/write live.txt\nnow\n").returncode == 0
    assert done.wait(60)
    batch = next(batch for batch in got if batch["records"])
    assert [(c["id"], c["command"]) for c in batch["changes"]] == [(1, "/write live.txt")]  # type: ignore[index]
    assert [c["requests"] for c in got[-1]["clients"]] == [1]  # type: ignore[index]


def test_revert_from_the_page_is_recorded_as_the_web_client_and_refused_on_conflict(
        fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write a.txt\nfirst\n").returncode == 0
    assert agent(root, env, "/write b.txt\nb\n").returncode == 0
    done = server.post("api/revert", {"change": 1})
    assert (done.status_code, done.json()) == (200, {
        "message": "Reverted change 1 as change 3: deleted a.txt (was newly created)", "change": 3})
    assert not (root / "a.txt").exists()
    record = server.get("api/audit", client="").json()["records"][0]
    assert (record["dialect"], record["op"], record["agent"], record["topic"], record["changes"]) == (
        "web", "web.revert", "stringsh web", "web", [3])
    row = server.get("api/changes/3").json()["row"]
    assert (row["dialect"], row["topic"], row["command"], row["status"]) == ("web", "web", "/revert 1", "(reverts 1)")
    (root / "b.txt").write_text("changed by hand\n")
    refused = server.post("api/revert", {"change": 2})
    by_cli = agent(root, env, "/revert 2")
    assert refused.status_code == 409
    assert by_cli.stdout.startswith(f"re: /revert 2\n{refused.json()['error']}\n{refused.json()['hint']}")
    assert (root / "b.txt").read_text() == "changed by hand\n"


def test_undo_of_one_client_takes_back_its_newest_change_only(
        fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write n.txt\none\n", "--client", "agent-a").returncode == 0
    assert agent(root, env, "/write --force n.txt\ntwo\n", "--client", "agent-a").returncode == 0
    assert agent(root, env, "/write m.txt\nm\n", "--client", "agent-b").returncode == 0
    preview = server.get("api/undo-preview", client="agent-a", topic="main").json()
    assert (preview["id"], preview["diff"][-2:]) == (2, ["-one", "+two"])
    stale = server.post("api/undo", {"client": "agent-a", "topic": "main", "change": 1})
    assert (stale.status_code, stale.json()["error"]) == (
        409, "ERROR(CONFLICT): Client agent-a's newest change in topic main is now change 2, not change 1.")
    done = server.post("api/undo", {"client": "agent-a", "topic": "main", "change": 2})
    assert (done.status_code, done.json()) == (200, {"message": "Undo: reverted n.txt (1 line)", "change": 4})
    assert ((root / "n.txt").read_text(), (root / "m.txt").read_text()) == ("one\n", "m\n")
    record = server.get("api/audit").json()["records"][0]
    assert (record["dialect"], record["op"], record["client"], record["agent"]) == (
        "web", "web.undo", "agent-a", "stringsh web")
    (root / "n.txt").write_text("by hand\n")
    conflict = server.post("api/undo", {"client": "agent-a", "topic": "main", "change": 1})
    assert (conflict.status_code, conflict.json()["code"]) == (409, "CONFLICT")
    assert (root / "n.txt").read_text() == "by hand\n"
    nothing = server.get("api/undo-preview", client="agent-c", topic="main")
    assert (nothing.status_code, nothing.json()["error"]) == (
        404, "ERROR(NOT_FOUND): Client agent-c has nothing to undo in topic main.")


def test_verify_and_health(fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    server, root, env = fresh
    assert agent(root, env, "/write v.txt\nv\n").returncode == 0
    assert server.get("api/verify").json() == {"ok": True, "records": 1, "bad_line": None, "reason": "", "file": ""}
    health = server.get("api/overview").json()["health"]
    assert health["read_only"] is None and health["free_bytes"] > 0


def test_health_shows_the_lock_holder_and_another_process_degraded(
        server: WebServer, root: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock's holder from the kernel's table (this test's process, on a file of its own); the BUSY a
    workspace in this process runs into while it holds it, from the note it leaves; the note over once a change
    gets through; a note that is not one (untrusted input) shown as none."""
    import fcntl
    import os

    from stringsh.workspace import Workspace
    from stringsh.workspace.healthstate import DEGRADED_FILE

    for name, value in env.items():
        monkeypatch.setenv(name, value)  # the server's state folder

    def health() -> dict[str, object]:
        return server.get("api/overview").json()["health"]  # type: ignore[no-any-return]

    assert health()["degraded"] is None
    workspace = Workspace(root)
    try:
        workspace.state.lock_wait = 0.2
        other = os.open(workspace.state.dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(other, fcntl.LOCK_EX)
            held = health()["lock"]
            assert (held["held"], held["pid"]) == (True, os.getpid())  # type: ignore[index]
            command = Path("/proc/self/cmdline").read_bytes().split(b"\0")[0].decode()
            assert held["program"].startswith(command) and held["since"] > 0  # type: ignore[index]
            with pytest.raises(StringError) as busy:
                workspace.write_text("busy.txt", "x\n")
            assert busy.value.code == "BUSY"
        finally:
            os.close(other)
    finally:
        workspace.close()
    shown = health()
    assert shown["lock"] == {"held": False, "pid": None, "program": None, "since": None}
    degraded = shown["degraded"]
    assert (degraded["code"], degraded["why"], degraded["pid"]) == (  # type: ignore[index]
        "BUSY", "the workspace is locked by another process", os.getpid())
    note = workspace.state.path / DEGRADED_FILE
    saved = note.read_bytes()
    for planted in (saved.replace(b'"BUSY"', b'"SHUTDOWN"'), saved.replace(b'"pid": ', b'"pid": true, "_": '),
                    b"[1]", saved[:-1], saved[:-1] + b', "pad": "' + b"x" * 5000 + b'"}'):
        note.write_bytes(planted)
        assert health()["degraded"] is None, planted
    note.write_bytes(saved)
    assert health()["degraded"] is not None
    assert agent(root, env, "/write after-busy.txt\nok\n").returncode == 0  # a change got through: it cleared
    assert health()["degraded"] is None


def test_an_older_page_whose_place_was_rotated_out_says_so(server: WebServer, root: Path,
                                                            env: dict[str, str]) -> None:
    """A place in a file the log no longer keeps (its inode gone, or given to a newer file where no record starts
    at that offset) answers an empty page with a note, never another file's bytes."""
    from stringsh.web.server import ROTATED_OUT

    for n in range(2):
        assert agent(root, env, f"/open rotated-{n}.txt").returncode == 1
    first = server.get("api/audit", limit="1").json()
    ino, offset = first["next"].split(":")
    assert server.get("api/audit", limit="1", before=first["next"]).json()["records"]
    for stale in ("1:0", f"{ino}:{int(offset) + 1}", f"{ino}:{10**12}"):
        assert server.get("api/audit", limit="1", before=stale).json() == {
            "records": [], "next": None, "note": ROTATED_OUT}


@pytest.mark.parametrize(("port", "error"), [
    ("70000", "stringsh: ERROR(INVALID_PAYLOAD): --port wants a port from 0 to 65535, got 70000\n"
              "Give one: stringsh web --port 8766\n"),
])
def test_a_bad_port_is_refused(tmp_path: Path, port: str, error: str) -> None:
    import subprocess

    done = subprocess.run([*STRINGSH, "--root", str(tmp_path), "web", "--port", port], env=server_env(),
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (2, default_start() + error)


def test_a_port_another_program_holds_is_refused_before_the_address_is_printed(tmp_path: Path) -> None:
    import socket
    import subprocess

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        done = subprocess.run([*STRINGSH, "--root", str(tmp_path), "web", "--port", str(port)], env=server_env(),
                              capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (2, default_start() + (
        f"stringsh: ERROR(BUSY): cannot listen on 127.0.0.1:{port}: Address already in use\n"
        "Name another port: stringsh web --port 0 takes any free one\n"))


def test_a_daemon_and_an_mcp_client_show_as_clients_of_their_own(
        fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    import subprocess

    from tests.dialects.mcp.client import stdio_session

    server, root, env = fresh
    with stdio_session(root, name="claude-code", env=env) as mcp:
        assert "Successfully wrote" in mcp.text("write_file", {"path": str(root / "m.txt"), "content": "m\n"})
    request = json.dumps({"id": 1, "cmd": "/write d.txt <<EOF\nd\nEOF", "topic": "t1"})
    done = subprocess.run([*STRINGSH, "--root", str(root), "daemon", "--json"], input=request + "\n",
                          env=server_env(env), cwd=str(root), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen: list[dict[str, object]] = []

    def both_counted() -> bool:
        """The page's follower has read both clients' records, and their changes (read at most once a second; a
        client whose change the journal shows before its record is read has no `last_op` yet)."""
        seen[:] = server.get("api/overview").json()["clients"]
        return len(seen) == 2 and all(row["changes"] == 1 and "last_op" in row for row in seen)

    wait_until(both_counted)
    daemon, session = seen  # the most recently active first
    assert [(row["dialect"], row["agent"], row["last_op"], row["changes"], row["undo_depth"], row["next_undo"])
            for row in (daemon, session)] == [("string", None, "/write", 1, 1, 2),
                                               ("mcp", "claude-code", "mcp.write_file", 1, 1, 1)]
    assert daemon["topic"] == "t1" and session["topic"].startswith("mcp-claude-code-")
    assert session["client"] != daemon["client"]
    undone = server.post("api/undo", {"client": session["client"], "topic": session["topic"], "change": 1})
    assert (undone.status_code, undone.json()["message"]) == (200, "Undo: deleted m.txt (was newly created)")
    assert not (root / "m.txt").exists() and (root / "d.txt").read_text() == "d\n"


def test_sigterm_ends_the_open_streams_and_exits_0(fresh: tuple[WebServer, Path, dict[str, str]]) -> None:
    import signal

    server, _, _ = fresh
    hello, ended = threading.Event(), threading.Event()

    def listen() -> None:
        with httpx.stream("GET", server.url + "api/events", headers=server.auth(), timeout=60) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: ") and json.loads(line[6:])["type"] == "hello":
                    hello.set()
        ended.set()

    threading.Thread(target=listen, daemon=True).start()
    assert hello.wait(60)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=60) == 0
    assert ended.wait(60)
    assert server.reader is not None
    server.reader.join(timeout=60)
    assert server.lines[len(started()) + 2:] == ["stringsh: SIGTERM: finishing the requests under way, then closing"]
