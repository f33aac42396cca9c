"""A client is whoever the caller names (`--client`, `STRINGSH_CLIENT`), else the terminal session of a one-shot
run (`-c`, `run`, `operator`, `tools`), else the process: real processes, real sessions (`setsid` models another
terminal), a canary outside the workspace that nobody's undo touches."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.sessions import run_in_new_session
from tests.conftest import run_stringsh
from tests.dialects.operator.operator_support import allow_changes, b64, block

NOTHING = "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.\n"
NAME_HINT = ("A client name is 1 to 64 printable characters without spaces "
             "(--client agent-1, or STRINGSH_CLIENT=agent-1).")


def c(ws: Path, command: str, *args: str, client: str | None = None) -> str:
    """One `stringsh -c` from this test's terminal session (optionally under a client name)."""
    env = {"STRINGSH_CLIENT": client} if client is not None else None
    return run_stringsh([*args, "-c", command], ws, env=env).stdout.decode()


def created(path: str, text: str) -> str:
    return f"re: /write {path} {text}\nCreated: {path} ({len(text) + 1} bytes, 1 line)\n"


def undone(path: str) -> str:
    return f"re: /undo\nUndo: deleted {path} (was newly created)\n"


#: The real program as a bash function, so `$STRINGSH -c …` holds even where its path has a space.
PROGRAM = f'run_stringsh() {{ {shlex.quote(sys.executable)} -m stringsh "$@"; }}\n'


def agent_shell(tmp_path: Path, ws: Path, script: str) -> str:
    """Run `script` (bash; `STRINGSH` is the real program) as an agent's shell in a terminal session of its own:
    every stringsh it starts shares that session."""
    path = tmp_path / "agent.sh"
    path.write_text(f"{PROGRAM}STRINGSH=run_stringsh\n{script}")
    proc = subprocess.run(["bash", str(path)], cwd=ws, capture_output=True, timeout=120, start_new_session=True,
                          env={**os.environ, "TERM": "dumb"})
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()  # its status is the last command's
    return proc.stdout.decode()


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text("outside\n")
    return path


def test_consecutive_c_calls_from_one_terminal_undo_each_other_in_order(ws: Path, canary: Path) -> None:
    assert c(ws, "/write a.txt one") == created("a.txt", "one")
    assert c(ws, "/write b.txt two") == created("b.txt", "two")
    assert c(ws, "/undo") == undone("b.txt")
    assert (ws / "a.txt").read_text() == "one\n"
    assert c(ws, "/undo") == undone("a.txt")
    assert c(ws, "/undo") == NOTHING
    assert canary.read_text() == "outside\n"


def test_another_terminal_cannot_undo_this_ones_changes_nor_this_one_its(ws: Path, tmp_path: Path,
                                                                         canary: Path) -> None:
    assert c(ws, "/write mine.txt agent") == created("mine.txt", "agent")
    out = agent_shell(tmp_path, ws, "$STRINGSH -c '/undo'\n$STRINGSH -c '/write theirs.txt person'\n")
    assert out == NOTHING + created("theirs.txt", "person")
    assert (ws / "mine.txt").read_text() == "agent\n"
    assert run_in_new_session(["-c", "/undo"], ws).stdout.decode() == NOTHING  # a third terminal: nothing either
    assert c(ws, "/undo") == undone("mine.txt")
    assert c(ws, "/undo") == NOTHING  # the other terminal's file is theirs
    assert (ws / "theirs.txt").read_text() == "person\n"
    assert canary.read_text() == "outside\n"


def test_two_client_names_cannot_undo_each_others_changes(ws: Path) -> None:
    assert c(ws, "/write alice.txt a", client="alice") == created("alice.txt", "a")
    assert c(ws, "/write bob.txt b", client="bob") == created("bob.txt", "b")
    assert c(ws, "/undo", client="alice") == undone("alice.txt")
    assert c(ws, "/undo", client="alice") == NOTHING
    assert c(ws, "/undo") == NOTHING  # this terminal's own client made nothing
    assert (ws / "bob.txt").read_text() == "b\n"
    # a name is the same client from any terminal
    proc = run_in_new_session(["-c", "/undo"], ws, env={"STRINGSH_CLIENT": "bob"})
    assert proc.stdout.decode() == undone("bob.txt")


def test_the_client_flag_overrides_the_environment(ws: Path) -> None:
    assert c(ws, "/write a.txt a", client="alice") == created("a.txt", "a")
    assert c(ws, "/undo", "--client", "bob", client="alice") == NOTHING
    assert c(ws, "/undo", "--client", "alice", client="bob") == undone("a.txt")
    assert c(ws, "/write b.txt b", "--client=carol") == created("b.txt", "b")  # argparse's spelling too
    assert c(ws, "/undo", client="carol") == undone("b.txt")


def test_changes_and_revert_still_reach_every_clients_changes(ws: Path) -> None:
    assert c(ws, "/write a.txt a", client="alice") == created("a.txt", "a")
    listed = c(ws, "/changes", client="bob")
    assert listed.endswith("main  /write a.txt a  a.txt +1 -0\n")
    assert c(ws, "/revert 1", client="bob") == (
        "re: /revert 1\nReverted change 1 as change 2: deleted a.txt (was newly created)\n")


def test_a_daemon_keeps_a_client_of_its_own(ws: Path) -> None:
    assert c(ws, "/write a.txt a") == created("a.txt", "a")
    out = run_stringsh(["daemon"], ws, stdin="/undo\n/write d.txt d\n").stdout.decode()
    assert "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.\n</𝒞>" in out
    assert c(ws, "/undo") == undone("a.txt")
    assert c(ws, "/undo") == NOTHING  # the daemon's d.txt is the daemon's
    assert (ws / "d.txt").read_text() == "d\n"
    named = run_stringsh(["--client", "agent-7", "daemon"], ws, stdin="/write n.txt n\n").stdout.decode()
    assert "Created: n.txt" in named
    assert c(ws, "/undo", client="agent-7") == undone("n.txt")  # unless it is given a name


def test_undo_in_main_takes_back_this_terminals_operator_and_tools_runs_newest_first(ws: Path, tmp_path: Path) -> None:
    allow_changes()
    (tmp_path / "op.txt").write_text(block("version: 1", "id: w1", "action: fs.write", "path: op.md",
                                           "content_b64: " + b64("from a block\n")))
    (tmp_path / "tools.jsonl").write_text(json.dumps(
        {"id": 1, "tool": "write", "args": {"file_path": "tool.md", "content": "from a tool\n"}}) + "\n")
    out = agent_shell(tmp_path, ws, (
        f"$STRINGSH -c '/write first.md x' >/dev/null\n"
        f"$STRINGSH operator < {shlex.quote(str(tmp_path / 'op.txt'))} >/dev/null\n"
        f"$STRINGSH tools < {shlex.quote(str(tmp_path / 'tools.jsonl'))} >/dev/null\n"
        "$STRINGSH -c '/undo'\n$STRINGSH -c '/undo'\n$STRINGSH -c '/undo'\n$STRINGSH -c '/undo'\n"
    ))
    assert out == undone("tool.md") + undone("op.md") + undone("first.md") + NOTHING
    assert sorted(p.name for p in ws.iterdir()) == [".stringsh"]


def last_client(ws: Path) -> str:
    return json.loads(run_stringsh(["audit", "tail", "-n", "1", "--json"], ws).stdout.decode())["client"]


def boot_id() -> str:
    return Path("/proc/sys/kernel/random/boot_id").read_text().strip().replace("-", "")[:8]


def test_the_terminal_client_is_the_session_leader_with_its_start_time(ws: Path, tmp_path: Path) -> None:
    out = agent_shell(tmp_path, ws, "$STRINGSH -c '/write a.txt a' >/dev/null\necho $$\ncat /proc/$$/stat\n")
    sid, stat = out.split("\n", 1)
    start = stat[stat.rfind(")") + 2:].split()[19]
    assert last_client(ws) == f"sid-{sid}-{start}-{boot_id()}"


@pytest.mark.needs("bwrap")
def test_a_session_led_from_outside_the_pid_namespace_is_the_namespace(ws: Path, tmp_path: Path) -> None:
    """A container started without a terminal: `getsid` answers 0 (the leader is not in this pid namespace). The
    `-c` calls of one container still undo each other in order; another container's cannot."""
    def container(script: str) -> str:
        proc = subprocess.run(
            ["bwrap", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "bash", "-c",
             f"{PROGRAM}S=run_stringsh\n{script}"],
            cwd=ws, capture_output=True, timeout=120, env={**os.environ, "TERM": "dumb"})
        assert b"Traceback" not in proc.stderr, proc.stderr.decode()
        return proc.stdout.decode()

    out = container("$S -c '/write a.txt a' >/dev/null\n$S -c '/write b.txt b' >/dev/null\n"
                    "python3 -c 'import os; print(os.getsid(0))'\nreadlink /proc/self/ns/pid\n$S -c '/undo'\n")
    sid, namespace, undo = out.split("\n", 2)
    assert sid == "0"
    assert undo == undone("b.txt")
    inode = namespace[namespace.index("[") + 1:-1]
    assert last_client(ws) == f"sid-0-ns{inode}-{boot_id()}"
    assert container("$S -c '/undo'\n") == NOTHING  # another container: another namespace
    assert sorted(p.name for p in ws.iterdir()) == [".stringsh", "a.txt"]


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--client", "a b"], {}, "Invalid client name 'a b' (--client): it has whitespace."),
    (["--client", "x" * 65], {}, f"Invalid client name '{'x' * 65}' (--client): it has 65 characters, more than 64."),
    ([], {"STRINGSH_CLIENT": "tab\there"}, "Invalid client name 'tab\\there' (STRINGSH_CLIENT): it has whitespace."),
    ([], {"STRINGSH_CLIENT": "esc\x1b[31m"},
     "Invalid client name 'esc\\x1b[31m' (STRINGSH_CLIENT): it has a character that is not printable."),
], ids=["space", "too-long", "env-tab", "env-escape"])
def test_a_bad_client_name_is_a_usage_error(ws: Path, args: list[str], env: dict[str, str], message: str) -> None:
    proc = run_stringsh([*args, "-c", "/write a.txt a"], ws, env=env)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode() == f"stringsh: ERROR(INVALID_PAYLOAD): {message}\n{NAME_HINT}\n"
    assert not (ws / "a.txt").exists()
