"""Bounded capture: head and tail around an exact notice; the spool file holds every byte."""

from __future__ import annotations

import shlex
from pathlib import Path

from stringsh.workspace.shell.capture import OutputCapture, prune_spool


def test_under_the_cap_is_whole_and_writes_nothing(tmp_path: Path) -> None:
    capture = OutputCapture(100, tmp_path / "spool")
    capture.write(b"hello\n")
    capture.write(b"world\n\n")
    assert capture.text() == "hello\nworld"
    assert capture.spool_path is None
    assert not (tmp_path / "spool").exists()


def test_over_the_cap_keeps_head_and_tail(tmp_path: Path) -> None:
    capture = OutputCapture(200, tmp_path / "spool")
    full = "".join(f"line {i:04d}\n" for i in range(1000))
    for start in range(0, len(full), 37):
        capture.write(full[start : start + 37].encode())
    text = capture.text()
    assert text.startswith("line 0000\nline 0001\n")
    assert text.endswith("line 0998\nline 0999")
    assert capture.spool_path is not None
    assert capture.spool_path.read_text() == full
    notice = next(line for line in text.splitlines() if line.startswith("[... "))
    kept = text.replace(notice + "\n", "")
    cut_lines = 1000 - kept.count("\n") - 1
    cut_bytes = len(full) - len(kept) - 1
    assert notice == (
        f"[... {cut_bytes} bytes, {cut_lines} lines cut; "
        f"whole output ({len(full)} bytes, 1000 lines) in {shlex.quote(str(capture.spool_path))} ...]"
    )
    assert len(kept.encode()) <= 200


def test_multibyte_characters_are_never_split(tmp_path: Path) -> None:
    capture = OutputCapture(101, tmp_path)
    capture.write(("é" * 500).encode())
    text = capture.text()
    assert "\ufffd" not in text
    assert set(text.split("\n")[0]) == {"é"}


def test_unwritable_spool_still_cuts(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    capture = OutputCapture(100, blocker / "spool")
    capture.write(b"x" * 1000)
    text = capture.text()
    assert "whole output (1000 bytes, 0 lines) not kept: " in text
    assert len(text) < 300


def test_prune_keeps_the_newest(tmp_path: Path) -> None:
    import os

    for i in range(5):
        path = tmp_path / f"bash-{i}.txt"
        path.write_text(str(i))
        os.utime(path, (i, i))
    prune_spool(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bash-3.txt", "bash-4.txt"]


def test_prune_keeps_within_the_byte_budget(tmp_path: Path) -> None:
    import os

    for i in range(4):
        path = tmp_path / f"bash-{i}.txt"
        path.write_bytes(b"x" * 100)
        os.utime(path, (i, i))
    prune_spool(tmp_path, keep=10, budget=250)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bash-2.txt", "bash-3.txt"]


def test_spool_file_stops_at_its_limit(tmp_path: Path) -> None:
    capture = OutputCapture(100, tmp_path, spool_max=500)
    for _ in range(10):
        capture.write(b"y" * 99 + b"\n")
    text = capture.text()
    assert capture.spool_path is not None
    assert capture.spool_path.read_bytes() == (b"y" * 99 + b"\n") * 5
    assert f"whole output (1000 bytes, 10 lines) first 500 bytes in {shlex.quote(str(capture.spool_path))} ...]" in text
