"""Limits an attacker can reach, through the real program: a huge sparse file, a file of NULs, a lost audit log,
a folder the system refuses, a tree swapped while `/rm -r` walks it, and the journal's file modes.

Tests run as root here, and root ignores permission bits, so an unreadable folder is made one the kernel refuses
even to root: owned by a user id that a new user namespace (`unshare --user --map-root-user`) does not map, whose
"root" then has no power over it. As another user a plain `chmod 000` does the same.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from pathlib import Path

from stringsh.workspace.state import state_folder
from tests.conftest import STRINGSH, run_stringsh, unavailable

HUGE = 16 << 30
LINES = b"".join(b"line %d\n" % n for n in range(1, 1001))


def oneshot(ws: Path, command: str) -> str:
    result = run_stringsh(["-c", command], cwd=ws)
    assert b"\x00" not in result.stdout
    return result.stdout.decode()


def sparse(path: Path, head: bytes, size: int) -> None:
    """`head`, then a hole up to `size` bytes; skips the test when the file system stores the hole."""
    path.write_bytes(head)
    try:
        os.truncate(path, size)
    except OSError as exc:
        unavailable(f"this file system refuses a {size}-byte sparse file: {exc}")
    if os.stat(path).st_blocks * 512 > 64 << 20:
        path.unlink()
        unavailable("this file system does not keep files sparse")


def test_a_16_gb_sparse_file_opens_from_line_2_saying_what_it_could_not_count(ws: Path) -> None:
    sparse(ws / "big.log", LINES, HUGE)
    out = oneshot(ws, "/open big.log --from 2")
    assert out.startswith("re: /open big.log --from 2\nOpened big.log\n---\nline 2\nline 3\n")
    assert out.endswith(
        "line 401\n\n[window] Lines 2-401 of a file of at least 1001 lines (17179869184 bytes: past the read limit, "
        "so it is shown in windows; too large to count every line). Read on: /open big.log --from 402\n"
    )
    assert oneshot(ws, "/open big.log:L2-L3") == (
        "re: /open big.log:L2-L3\nOpened big.log:L2-L3\n---\n2 | line 2\n3 | line 3\n\n"
        "(lines 2-3 of a file of at least 1001 lines)\n"
    )
    assert oneshot(ws, "/open big.log --from 5000") == (
        "re: /open big.log --from 5000\nERROR(TOO_LARGE): Line 5000 of big.log is past what a windowed read scans "
        "(it stopped after 1001 lines)\nRead further in the shell: !tail -n +5000 big.log | head\n"
    )


def test_a_20_mb_file_of_nuls_past_the_read_limit_is_binary(ws: Path) -> None:
    (ws / "nul.bin").write_bytes(b"\x00" * 20_000_000)
    refusal = "ERROR(BINARY_FILE): Binary file: nul.bin (20000000 bytes)\nOnly its metadata can be shown.\n"
    assert oneshot(ws, "/open nul.bin") == f"re: /open nul.bin\n{refusal}"
    assert oneshot(ws, "/open nul.bin --from 2") == f"re: /open nul.bin --from 2\n{refusal}"
    assert oneshot(ws, "/open nul.bin:L1-L2") == f"re: /open nul.bin:L1-L2\n{refusal}"


def test_nuls_after_a_text_head_are_shown_escaped_never_raw(ws: Path) -> None:
    head = b"".join(b"%099d\n" % n for n in range(1, 101))  # 10,000 bytes of text: past the binary sniff
    # a read limit the workspace narrows to: the window's line count stops at a time bound, which a 20 MB file
    # can reach on a busy machine, and 210 kB cannot
    (ws / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 100000\n")
    (ws / "tail.log").write_bytes(head + b"\x00" * 200_000)
    out = oneshot(ws, "/open tail.log --from 100")  # oneshot asserts no raw NUL was printed
    assert out.startswith(f"re: /open tail.log --from 100\nOpened tail.log\n---\n{100:099d}\n\\x00\\x00")
    assert out.endswith(
        "[window] Lines 100-101 of 101 (210000 bytes: past the read limit, so it is shown in windows). Line 101 is "
        "cut at 100000 bytes; !cut -c or !fold in the shell shows all of it. NUL bytes are shown as \\x00.\n"
    )


def audit_verify(ws: Path) -> tuple[int, str]:
    result = run_stringsh(["audit", "verify"], cwd=ws)
    return result.returncode, result.stdout.decode()


def test_deleting_the_audit_log_and_its_head_fails_verify_while_the_journal_holds_changes(ws: Path) -> None:
    oneshot(ws, "/write a.txt <<EOF\nhello\nEOF")
    folder = state_folder(ws)
    assert audit_verify(ws)[0] == 0
    (folder / "audit.log").unlink()
    (folder / "audit.head").unlink()
    assert audit_verify(ws) == (1, (
        f"audit log BROKEN: {folder / 'audit.log'} line 1: no records, but the journal holds 1 change set(s) (the "
        "log and its head were removed or emptied); 0 records verified before it\n"))
    oneshot(ws, "/ls")  # a new chain starts; the change the journal anchored is not in it
    assert audit_verify(ws) == (1, (
        f"audit log BROKEN: {folder / 'audit.log'} line 2: change 1 of the journal is not in the log (the log was "
        "removed or cut and started again); 1 record verified before it\n"))


def test_a_log_that_still_holds_the_anchored_change_verifies(ws: Path) -> None:
    oneshot(ws, "/write a.txt <<EOF\nhello\nEOF")
    oneshot(ws, "/write b.txt <<EOF\nhello\nEOF")
    oneshot(ws, "/ls")
    assert audit_verify(ws) == (0, f"audit log ok: 3 records, {os.path.getsize(state_folder(ws) / 'audit.log')} "
                                   f"bytes, in {state_folder(ws)}\n")


def test_the_journal_and_its_wal_are_private(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.txt <<EOF\nhello\nEOF")
    folder = state_folder(ws)
    names = [name for name in ("journal.db", "journal.db-wal", "journal.db-shm") if (folder / name).exists()]
    assert "journal.db" in names
    for name in [*names, "audit.log", "audit.head", "lock"]:
        assert stat.S_IMODE(os.stat(folder / name).st_mode) == 0o600, name


def test_a_journal_an_older_version_left_0644_is_narrowed(ws: Path) -> None:
    oneshot(ws, "/write a.txt <<EOF\nhello\nEOF")
    journal = state_folder(ws) / "journal.db"
    journal.chmod(0o644)
    oneshot(ws, "/write b.txt <<EOF\nhello\nEOF")
    assert stat.S_IMODE(os.stat(journal).st_mode) == 0o600


def refusing_runner(folder: Path) -> list[str]:
    """Make `folder` one the system refuses to this test's stringsh; the command prefix that runs it so."""
    if os.geteuid() != 0:
        folder.chmod(0)
        return []
    os.chown(folder, 12345, 12345)
    folder.chmod(0)
    if shutil.which("unshare") is None or subprocess.run(
        ["unshare", "--user", "--map-root-user", "ls", str(folder)], capture_output=True).returncode == 0:
        folder.chmod(0o700)
        unavailable("no way here to refuse a folder to root (unshare --user is not available)")
    return ["unshare", "--user", "--map-root-user"]


DENIED = ("ERROR(NOT_PERMITTED): Permission denied: {}\nThe operating system refuses stringsh (your own rights) "
          "there; check its owner and mode with !ls -ld, or leave it out.\n")


def test_an_unreadable_folder_is_not_permitted_with_its_path(ws: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("canary\n")
    locked = ws / "lockdir"
    locked.mkdir()
    (locked / "f.txt").write_text("x\n")
    prefix = refusing_runner(locked)
    try:
        def run(command: str) -> str:
            result = subprocess.run([*prefix, *STRINGSH, "-c", command], cwd=ws, capture_output=True,
                                    env={**os.environ, "TERM": "dumb"}, timeout=60)
            return result.stdout.decode()

        assert run("/ls lockdir") == "re: /ls lockdir\n" + DENIED.format("lockdir")
        assert run("/open lockdir/f.txt") == "re: /open lockdir/f.txt\n" + DENIED.format("lockdir/f.txt (at lockdir)")
        assert run("/grep x lockdir") == "re: /grep x lockdir\n" + DENIED.format("lockdir")
        assert run("/glob * lockdir") == "re: /glob * lockdir\n" + DENIED.format("lockdir")
        assert run("/write lockdir/n.txt <<EOF\nn\nEOF") == (
            "re: /write lockdir/n.txt\n" + DENIED.format("lockdir/n.txt (at lockdir)"))
        assert run("/rm -r lockdir") == "re: /rm -r lockdir\n" + DENIED.format("lockdir")
        assert run("/glob lockdir/** --stats") == (
            "re: /glob lockdir/** --stats\nGlob lockdir/** in ./: no files\n---\n0 files; scanned 0 files (1 entry); "
            "skipped 1 unreadable\n")
        assert run("/glob lockdir/**") == "re: /glob lockdir/**\nGlob lockdir/** in ./: no files\n---\n0 files\n"
    finally:
        locked.chmod(0o700)
    assert canary.read_text() == "canary\n"
    assert sorted(p.name for p in locked.iterdir()) == ["f.txt"]


def test_rm_r_racing_a_symlink_swap_is_a_coded_error_naming_the_path(ws: Path, tmp_path: Path, dispatcher) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text("canary\n")
    stop = threading.Event()

    def swap() -> None:
        sub = ws / "d" / "sub"
        while not stop.is_set():
            try:
                if sub.is_symlink():
                    sub.unlink()
                    sub.mkdir()
                    for n in range(20):
                        (sub / f"f{n}").write_text("x")
                else:
                    shutil.rmtree(sub, ignore_errors=True)
                    sub.symlink_to(outside)
            except OSError:
                pass

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    codes = set()
    try:
        for _ in range(100):
            (ws / "d").mkdir(exist_ok=True)
            for n in range(30):
                (ws / "d" / f"a{n}").write_text("y")
            reply = dispatcher.execute("/rm -r d").text.split("\n")
            if reply[1].startswith("ERROR("):
                code = reply[1][6 : reply[1].index(")")]
                codes.add(code)
                assert code in ("CONFLICT", "NOT_FOUND", "INVALID_PATH"), reply  # INVALID_PATH: met the link
                assert ": d" in reply[1], reply
    finally:
        stop.set()
        swapper.join()
    assert "INTERNAL_ERROR" not in codes
    assert sorted(p.name for p in outside.iterdir()) == ["canary.txt"]
    assert (outside / "canary.txt").read_text() == "canary\n"
