"""What a sandboxed command writes to the sandbox's own /tmp is named in its reply, since it never reaches the real
/tmp (stringsh/workspace/shell/privatetmp.py): `!touch /tmp/x/outside_probe` exits 0 and says where the file went.
The same line in every front end that runs the topic's shell (String's `!`, MCP's `bash`), the one-shot shells
(`/exec`, the JSON tools' `bash`) say it of their command; the local shell writes the real /tmp, with no note."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import uuid
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings, make_provider, run_once
from stringsh.workspace.shell.privatetmp import PrivateTmp, mount_points, remove_tree
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.tools.client import call
from tests.shell.sandboxnotes import written_note

SANDBOXED = ShellSettings(sandbox="bubblewrap", timeout=20.0, kill_grace=0.3)
LOCAL = ShellSettings(sandbox="none", timeout=20.0, kill_grace=0.3)


def unique() -> str:
    """A name no other test or program uses in /tmp."""
    return f"stringsh-probe-{uuid.uuid4().hex[:12]}"


@pytest.mark.needs("bwrap")
def test_a_write_beside_the_workspace_is_named_and_never_reaches_the_disk(ws: Path) -> None:
    """The issue's probe: the workspace's parent folder is there in the sandbox (bubblewrap made it to bind the
    workspace), so `touch` succeeds; the reply says the file is in the shell's own /tmp."""
    shell = ShellSession(ws, SANDBOXED)
    probe = ws.parent / "outside_probe"
    try:
        assert shell.run("true").output == ""  # the folders bubblewrap made for its binds are not named
        result = shell.run(f"touch {shlex.quote(str(probe))}")
        assert (result.exit_code, result.output) == (0, written_note(str(probe)))
        assert not probe.exists()
        again = shell.run(f"ls -N {shlex.quote(str(probe))}")  # still there for the shell's next commands (-N: a
        # name holding a space, as under a TMPDIR that does, is listed as it is)
        assert (again.exit_code, again.output) == (0, str(probe))
    finally:
        shell.close()


@pytest.mark.needs("bwrap")
def test_new_folders_are_named_once_changed_files_again_and_long_lists_are_cut(ws: Path) -> None:
    shell = ShellSession(ws, SANDBOXED)
    name = unique()
    try:
        made = shell.run(f"mkdir -p /tmp/{name}/a/b && touch /tmp/{name}/a/b/c /tmp/{name}-f && echo done")
        assert made.output == f"done\n{written_note(f'/tmp/{name}/, /tmp/{name}-f')}"
        changed = shell.run(f"echo more >> /tmp/{name}-f; touch /tmp/{name}/a/new; cat /tmp/{name}/a/b/c")
        assert changed.output == written_note(f"/tmp/{name}-f, /tmp/{name}/a/new")
        many = shell.run(" ".join(["touch", *(f"/tmp/{name}-{n}" for n in range(1, 6))]))
        assert many.output == written_note(f"/tmp/{name}-1, /tmp/{name}-2, /tmp/{name}-3 and 2 more")
        gone = shell.run(f"rm -r /tmp/{name} /tmp/{name}-f; ls /tmp/{name}-1")
        assert gone.output == f"/tmp/{name}-1"
        assert not Path(f"/tmp/{name}").exists() and not Path(f"/tmp/{name}-1").exists()
    finally:
        shell.close()


@pytest.mark.needs("bwrap")
def test_the_host_folder_is_private_outside_the_workspace_and_removed_with_the_shell(ws: Path) -> None:
    shell = ShellSession(ws, SANDBOXED)
    try:
        shell.run("mkdir -p /tmp/locked/in && touch /tmp/locked/in/f && chmod 000 /tmp/locked/in /tmp/locked")
        tmp = shell._tmp
        assert tmp is not None
        container = tmp.container
        assert stat.S_IMODE(container.stat().st_mode) == 0o700 and not container.is_relative_to(ws)
        assert stat.S_IMODE(tmp.folder.stat().st_mode) == 0o755  # as bubblewrap's own tmpfs
        assert (tmp.folder / "locked").is_dir()
    finally:
        shell.close()
    assert not container.exists()


@pytest.mark.needs("bwrap")
def test_a_link_planted_in_the_sandbox_tmp_is_named_not_followed(ws: Path) -> None:
    shell = ShellSession(ws, SANDBOXED)
    try:
        result = shell.run("ln -s / /tmp/root && ln -s /etc/passwd /tmp/pw")
        assert result.output == written_note("/tmp/pw, /tmp/root")
    finally:
        shell.close()


@pytest.mark.needs("bwrap")
def test_the_one_shot_shell_says_its_writes_went_with_the_command(ws: Path) -> None:
    name = unique()
    result = run_once(f"touch /tmp/{name} && echo ok", ws, SANDBOXED, provider=make_provider("bubblewrap"))
    assert (result.exit_code, result.output) == (0, f"ok\n{written_note(f'/tmp/{name}', 'when the command ended')}")
    assert not Path(f"/tmp/{name}").exists()


def test_the_local_shell_writes_the_real_tmp_without_a_note(ws: Path) -> None:
    name = unique()
    shell = ShellSession(ws, LOCAL)
    try:
        assert shell.run(f"touch /tmp/{name} && echo ok").output == "ok"
        assert Path(f"/tmp/{name}").is_file()
    finally:
        shell.close()
        os.unlink(f"/tmp/{name}")


@pytest.mark.needs("bwrap")
def test_every_front_end_names_the_write_alike(ws: Path) -> None:
    """String's `!` (`stringsh -c`) and MCP's `bash` run the topic's shell: the same reply, note included; the JSON
    tools' `bash` adds the one-shot's note to stderr, where its notes go."""
    root = ws.resolve()
    probe = f"{root.parent}/outside_probe"
    line = f"touch {shlex.quote(probe)}"
    shown = f"exit: 0 | cwd: {root}\n---\n{written_note(probe)}"
    done = run_stringsh(["-c", f"!{line}"], cwd=ws).stdout.decode()
    assert done.partition("\n")[2] == f"{shown}\n"  # after the `re:` line, which is cut at its width
    with stdio_session(ws) as client:
        assert client.text("bash", {"command": line}) == done.removesuffix("\n")
    reply = call(ws, "bash", {"command": line})
    assert reply["result"]["stderr"] == f"{written_note(probe, 'when the command ended')}\n"
    assert not Path(probe).exists()


def test_the_mount_points_of_the_sandbox_command_line_are_read_whole(ws: Path) -> None:
    """Every option's values are skipped by its arity: a value that looks like an option is never read as one."""
    argv = ["bwrap", "--ro-bind", "/", "/", "--bind", "/h/tmp", "/tmp", "--bind", "/tmp/a/ws", "/tmp/a/ws",
            "--ro-bind", "/dev/null", "/tmp/h/.netrc", "--tmpfs", "/tmp/c/d", "--remount-ro", "/tmp/c/d",
            "--chdir", "/tmp/e", "--cap-drop", "ALL", "--", "bash", "--bind", "/x", "/tmp/f"]
    assert mount_points(argv) == {"a", "a/ws", "h", "h/.netrc", "c", "c/d"}


def test_what_a_command_made_unreadable_is_removed_too(tmp_path: Path) -> None:
    tmp = PrivateTmp.make([tmp_path])
    assert tmp is not None
    locked = tmp.folder / "a" / "b"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    locked.chmod(0)
    locked.parent.chmod(0)
    remove_tree(tmp.container)
    assert not tmp.container.exists()


@pytest.mark.needs("bwrap")
def test_a_container_outside_the_real_tmp_is_hidden_from_the_sandbox(ws: Path) -> None:
    """With /tmp itself a root, the folder goes elsewhere (never inside a root) and the sandbox cannot read it
    there: another shell's /tmp stays its own."""
    tmp = PrivateTmp.make([ws, Path("/tmp")])
    assert tmp is not None
    try:
        assert not tmp.container.is_relative_to("/tmp")
        provider = make_provider("bubblewrap")
        done = subprocess.run(provider.wrap(["/bin/bash", "-c", f"touch /tmp/f; ls -A {tmp.container}; echo end"],
                                            ws, tmp=tmp), capture_output=True, text=True, timeout=30, check=False)
        assert (done.returncode, done.stdout) == (0, "end\n")  # an empty folder there: not its contents
        assert tmp.note("when the command ended") == written_note("/tmp/f", "when the command ended")
    finally:
        tmp.remove()
    assert not tmp.container.exists()
