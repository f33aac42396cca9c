"""The bubblewrap provider: writable workspace only, protected state, no network; missing bwrap is an error."""

from __future__ import annotations

import http.server
import shlex
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace.shell import ShellSession, ShellSettings, make_provider, run_once
from tests.shell.sandboxnotes import READ_ONLY_NOTE

SANDBOXED = ShellSettings(sandbox="bubblewrap", timeout=20.0, kill_grace=0.3)
LOCAL = ShellSettings(sandbox="none", timeout=20.0, kill_grace=0.3)


@pytest.fixture
def jail(ws: Path) -> Iterator[ShellSession]:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    session = ShellSession(ws, SANDBOXED)
    yield session
    session.close()


@pytest.fixture
def web() -> Iterator[int]:
    """A loopback HTTP server on the host."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.mark.needs("bwrap")
def test_workspace_is_writable(jail: ShellSession, ws: Path) -> None:
    result = jail.run("mkdir -p out && echo data > out/file.txt && cat out/file.txt")
    assert (result.exit_code, result.output) == (0, "data")
    assert (ws / "out" / "file.txt").read_text() == "data\n"


@pytest.mark.needs("bwrap")
def test_cannot_write_outside_the_workspace(jail: ShellSession, ws: Path) -> None:
    outside = ws.parent / "outside.txt"  # under /tmp: the sandbox's /tmp is private, so it never reaches the host
    assert jail.run(f"touch {shlex.quote(str(outside))}").exit_code == 0
    assert not outside.exists()
    result = jail.run("touch /etc/stringsh-probe; echo $?; touch ~/stringsh-probe; echo $?; touch /var/tmp/probe")
    assert result.exit_code == 1
    # a home under /tmp is not there at all (the sandbox's /tmp is its own); elsewhere it is there, read-only
    home_hidden = Path.home().resolve().is_relative_to("/tmp")
    assert result.output.count("Read-only file system") == (2 if home_hidden else 3)
    assert result.output.count("No such file or directory") == (1 if home_hidden else 0)
    assert result.output.splitlines()[1:4:2] == ["1", "1"]
    assert not (Path.home() / "stringsh-probe").exists()
    assert not Path("/etc/stringsh-probe").exists()
    assert not Path("/var/tmp/probe").exists()


@pytest.mark.needs("bwrap")
def test_no_capabilities_even_as_root(jail: ShellSession) -> None:
    assert jail.run("grep CapEff /proc/self/status").output == "CapEff:\t0000000000000000"
    remount = jail.run("mount -o remount,rw / ; touch /etc/stringsh-probe")
    assert remount.exit_code == 1
    assert not Path("/etc/stringsh-probe").exists()
    assert jail.run("unshare -r true").exit_code != 0  # no nested user namespace to regain them


@pytest.mark.needs("bwrap")
def test_private_tmp(jail: ShellSession) -> None:
    assert jail.run("echo x > /tmp/stringsh-sandbox-probe && ls /tmp").exit_code == 0
    assert not Path("/tmp/stringsh-sandbox-probe").exists()


@pytest.mark.needs("bwrap")
def test_engine_state_and_git_hooks_are_read_only(jail: ShellSession, ws: Path) -> None:
    for target in (".stringsh/journal.db", ".git/hooks/pre-commit", ".git/config"):
        result = jail.run(f"echo evil >> {target}")
        assert result.exit_code == 1, target
        assert "Read-only file system" in result.output
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / ".git" / "config").read_text() == "[core]\n"
    assert jail.run("rm -rf .stringsh").exit_code != 0
    assert (ws / ".stringsh").is_dir()


@pytest.mark.needs("bwrap")
def test_the_policy_file_is_read_only(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    session = ShellSession(ws, SANDBOXED)
    try:
        result = session.run("printf '[shell]\\nsandbox = false\\n' > stringsh.toml; rm -f stringsh.toml")
        assert result.exit_code == 1
        assert result.output.count("Read-only file system") + result.output.count("Device or resource busy") == 2
    finally:
        session.close()
    assert (ws / "stringsh.toml").read_text() == "[shell]\nsandbox = true\n"


@pytest.mark.needs("bwrap")
def test_no_network(jail: ShellSession, ws: Path, web: int) -> None:
    fetch = f"python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{web}/').status)\""
    local = ShellSession(ws, LOCAL)
    try:
        assert local.run(fetch).output == "200"
    finally:
        local.close()
    blocked = jail.run(fetch)
    assert blocked.exit_code == 1
    assert "Connection refused" in blocked.output or "unreachable" in blocked.output
    assert jail.run(f"echo > /dev/tcp/127.0.0.1/{web}").exit_code == 1
    assert jail.run("ls /proc/sys/net/ipv4/conf").output.split() == ["all", "default", "lo"]


@pytest.mark.needs("bwrap")
def test_own_process_namespace(jail: ShellSession) -> None:
    assert jail.run("sleep 30 &").exit_code == 0
    names = jail.run("cat /proc/[0-9]*/comm | sort -u").output.split()
    assert {"bwrap", "bash", "sleep", "cat"} <= set(names)
    assert not {"python3", "pytest", "python"} & set(names)  # the host's processes are invisible


@pytest.mark.needs("bwrap")
def test_writable_folders_follow_the_policy_roots(ws: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    settings = ShellSettings(sandbox="bubblewrap", writable=(str(other),))
    shell = ShellSession(ws, settings)
    try:
        refused = shell.run(f"touch here.txt; touch {shlex.quote(f'{other}/there.txt')}; ls {shlex.quote(str(other))}")
        assert refused.output == f"touch: cannot touch 'here.txt': Read-only file system\nthere.txt\n{READ_ONLY_NOTE}"
        assert refused.cwd == str(ws)
    finally:
        shell.close()
    assert not (ws / "here.txt").exists()
    assert (other / "there.txt").exists()


@pytest.mark.needs("bwrap")
def test_exec_is_sandboxed_too(ws: Path, web: int) -> None:
    outside = ws.parent / "exec-outside.txt"
    command = f"touch {shlex.quote(str(outside))} /etc/probe; echo > /dev/tcp/127.0.0.1/{web}; touch inside.txt"
    result = run_once(command, ws, SANDBOXED)
    assert result.exit_code == 0
    assert "touch: cannot touch '/etc/probe': Read-only file system" in result.output
    assert "Connection refused" in result.output
    assert not outside.exists()
    assert (ws / "inside.txt").exists()


def test_missing_bwrap_is_an_error_never_a_fallback(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for attempt in (
        lambda: make_provider("bubblewrap"),
        lambda: ShellSession(ws, SANDBOXED),
        lambda: run_once("touch ran", ws, SANDBOXED),
    ):
        with pytest.raises(StringError) as caught:
            attempt()
        assert caught.value.code == "NOT_PERMITTED"
        assert caught.value.message == "The policy asks for the bubblewrap shell sandbox, but bwrap is not installed."
    assert not (ws / "ran").exists()


def test_unknown_sandbox_is_refused() -> None:
    with pytest.raises(StringError) as caught:
        ShellSettings(sandbox="docker")
    assert caught.value.code == "INVALID_PAYLOAD"
