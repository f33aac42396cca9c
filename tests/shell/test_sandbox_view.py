"""What a sandboxed command sees outside the workspace, and the note a reply ends with when a command failed on
it: the shell's own /tmp (a folder of the real /tmp is not there unless the user's policy adds it as a read-only
root) and a read-only system (stringsh/workspace/shell/hidden.py; docs/security.md)."""

from __future__ import annotations

import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings, make_provider
from tests.shell.sandboxnotes import READ_ONLY_NOTE, tmp_note

SANDBOXED = ShellSettings(sandbox="bubblewrap", timeout=20.0, kill_grace=0.3)


def real_tmp_folder(prefix: str, name: str, text: str) -> Iterator[Path]:
    """A folder of the real /tmp (outside the workspace, hidden by the sandbox) holding the file `name`."""
    folder = Path(tempfile.mkdtemp(dir="/tmp", prefix=prefix))
    (folder / name).write_text(text)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder in the real /tmp, outside the workspace, holding one file."""
    yield from real_tmp_folder("stringsh-venv-", "marker", "hello\n")


@pytest.mark.needs("bwrap")
def test_a_folder_of_the_real_tmp_is_not_there_and_the_reply_says_why(ws: Path, outside: Path) -> None:
    shell = ShellSession(ws, SANDBOXED)
    try:
        marker = f"{outside}/marker"
        result = shell.run(f"cat {shlex.quote(marker)}")
        assert result.output == f"cat: {marker}: No such file or directory\n{tmp_note(marker)}"
        missing = shell.run("cat nope.txt; cat " + shlex.quote(f"{ws}/nope.txt"))  # the workspace's own: no note
        lines = missing.output.splitlines()  # cat quotes a path holding a space: the lines are its own
        assert len(lines) == 2 and all(line.endswith(": No such file or directory") for line in lines)
        written = shell.run("touch /etc/stringsh-probe; echo end")
        assert written.output == f"touch: cannot touch '/etc/stringsh-probe': Read-only file system\nend\n" \
                                 f"{READ_ONLY_NOTE}"
    finally:
        shell.close()


@pytest.mark.needs("bwrap")
def test_a_home_in_the_real_tmp_is_named_when_a_command_fails_on_it(ws: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's `!ls $HOME` with HOME under /tmp: the failure stays the command's, the note says why."""
    home = tmp_path / "home"
    (home / "sub").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    shell = ShellSession(ws, SANDBOXED)
    try:
        listed = shell.run('ls "$HOME"')  # quoted: a TMPDIR may hold a space
        assert (listed.exit_code, listed.output) == (
            2, f"ls: cannot access '{home}': No such file or directory\n{tmp_note(str(home))}")
        made = shell.run('touch "$HOME/sub/new"')  # the nearest folder there on this machine is named
        assert made.output == f"touch: cannot touch '{home}/sub/new': No such file or directory\n" \
                              f"{tmp_note(str(home / 'sub'))}"
        assert shell.run('ls "$HOME/missing"').output == \
            f"ls: cannot access '{home}/missing': No such file or directory\n{tmp_note(str(home))}"
    finally:
        shell.close()


@pytest.mark.needs("bwrap")
def test_a_read_only_root_of_the_policy_is_seen_and_not_written(ws: Path, outside: Path) -> None:
    settings = ShellSettings(sandbox="bubblewrap", timeout=20.0, kill_grace=0.3, readonly=(str(outside),))
    shell = ShellSession(ws, settings, provider=make_provider("bubblewrap", readonly=settings.readonly))
    try:
        result = shell.run(f"cat {shlex.quote(str(outside / 'marker'))}; touch {shlex.quote(str(outside / 'x'))}")
        assert result.output == f"hello\ntouch: cannot touch '{outside}/x': Read-only file system\n{READ_ONLY_NOTE}"
        assert not (outside / "x").exists()
    finally:
        shell.close()


@pytest.fixture
def spaced() -> Iterator[Path]:
    """A folder of the real /tmp whose name holds spaces, holding `m`."""
    yield from real_tmp_folder("stringsh view ", "m", "")


def test_the_note_names_only_what_the_sandbox_hid(outside: Path, spaced: Path) -> None:
    """A path of the real /tmp is named when it is there and the sandbox does not show it: the path itself, or the
    nearest folder above it that is there; not when it is missing here too, nor a root, inside one or holding one."""
    from stringsh.workspace.shell.hidden import sandbox_note

    marker, missing = f"{outside}/marker", f"{outside}-gone/m"
    cases = [
        (f"cat: {marker}: No such file or directory", ["/work"], tmp_note(marker)),
        (f"touch: cannot touch '{outside}/new/x': No such file or directory", ["/work"], tmp_note(str(outside))),
        (f"cat: {missing}: No such file or directory", ["/work"], None),
        (f"ls: cannot access '{marker}': No such file or directory", [str(outside)], None),
        (f"cat: {outside}/new: No such file or directory", [f"{outside}/ws"], None),
        (f"cat: {marker}: No such file or directory", [f"{outside}/ws"], tmp_note(marker)),
        (f"cat: {spaced}/m: No such file or directory", ["/work"], tmp_note(f"{spaced}/m")),
        (f"cat: {spaced}/m: No such file or directory", [str(spaced)], None),
        (f"/tmp/a: stat: {marker}: No such file or directory", ["/work"], tmp_note(marker)),
        (f"cat: /var{marker}: No such file or directory", ["/work"], None),
        ("touch: cannot touch 'a': Read-only file system", ["/work"], READ_ONLY_NOTE),
        ("all fine", ["/work"], None),
    ]
    for output, roots, expected in cases:
        assert sandbox_note(output, [Path(root) for root in roots]) == expected, output
