"""stat, list_dir, relative and the stale-write guard helpers."""

from __future__ import annotations

import os

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace, is_seen_unchanged, mark_seen
from stringsh.workspace.seen import seen_sha256


def test_relative_normalises_without_touching_the_disk(engine: Workspace) -> None:
    assert engine.relative("") == "."
    assert engine.relative("./a//b/../c/") == "a/c"
    assert engine.relative(str(engine.root)) == "."
    assert engine.relative(str(engine.root / "x" / "y")) == "x/y"


def test_stat(engine: Workspace) -> None:
    (engine.root / "d").mkdir()
    (engine.root / "d" / "f.txt").write_bytes(b"12345")
    os.chmod(engine.root / "d" / "f.txt", 0o600)
    info = engine.stat("d/f.txt")
    assert info is not None and (info.rel, info.size, info.mode, info.is_dir) == ("d/f.txt", 5, 0o600, False)
    assert engine.stat("d").is_dir and engine.stat(".").rel == "." and engine.stat(".").is_dir
    assert engine.stat("nope") is None and engine.stat("nope/deeper") is None
    with pytest.raises(StringError):
        engine.stat("../x")


def test_list_dir_hides_state_secrets_and_temps(engine: Workspace) -> None:
    root = engine.root
    engine.write_text("a.md", "a\n")  # creates .stringsh/
    for name in (".env", ".env.example", "id_rsa", "id_rsa.pub", ".~stringsh-9-0.tmp", "b.txt", ".hidden"):
        (root / name).write_text("x\n")
    (root / ".ssh").mkdir()
    (root / "sub").mkdir()
    os.symlink("sub", root / "to_sub")
    os.symlink("/etc", root / "to_etc")
    assert [(e.name, e.is_dir) for e in engine.list_dir()] == [
        (".env.example", False), (".hidden", False), ("a.md", False), ("b.txt", False), ("id_rsa.pub", False),
        ("sub", True), ("to_etc", False), ("to_sub", True),
    ]
    with pytest.raises(StringError) as caught:
        engine.list_dir("a.md")
    assert caught.value.code == "INVALID_TARGET"


def test_read_text_of_a_folder_and_a_missing_file(engine: Workspace) -> None:
    (engine.root / "d").mkdir()
    for path, code in (("d", "INVALID_TARGET"), ("missing.md", "NOT_FOUND"), ("no/such/file", "NOT_FOUND")):
        with pytest.raises(StringError) as caught:
            engine.read_text(path)
        assert caught.value.code == code


def test_seen_helpers_follow_content_not_mtime(engine: Workspace) -> None:
    seen: dict[str, object] = {}
    (engine.root / "t.md").write_text("one\n")
    os.symlink("t.md", engine.root / "alias.md")
    assert not is_seen_unchanged(seen, engine, "t.md")
    mark_seen(seen, engine, "t.md")
    assert is_seen_unchanged(seen, engine, "t.md") and is_seen_unchanged(seen, engine, "alias.md")
    os.utime(engine.root / "t.md", (1, 1))  # a touch is not a change
    (engine.root / "t.md").write_text("one\n")  # nor is rewriting the same bytes
    assert is_seen_unchanged(seen, engine, "t.md")
    (engine.root / "t.md").write_text("two\n")
    assert not is_seen_unchanged(seen, engine, "t.md")
    assert seen_sha256(seen, engine, "alias.md") == seen["t.md"]
    mark_seen(seen, engine, "missing.md")
    assert "missing.md" not in seen


def test_redact_masks_keys_for_display(engine: Workspace) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\nxyz\n-----END RSA PRIVATE KEY-----"
    text = "id AKIAABCDEFGHIJKLMNOP and ghp_" + "a" * 36 + "\n" + key + "\n"
    assert engine.redact(text) == "id ***REDACTED*** and ***REDACTED***\n***REDACTED***\n"


def test_a_fifo_is_refused_without_waiting_for_a_writer(engine: Workspace) -> None:
    os.mkfifo(engine.root / "pipe")
    reads = (engine.read_text, engine.read_bytes, engine.fingerprint)
    writes = (lambda p: engine.write_text(p, "x\n"), lambda p: engine.append_text(p, "x\n"))
    for call in (*reads, *writes):
        with pytest.raises(StringError) as caught:
            call("pipe")
        assert (caught.value.code, caught.value.message) == ("INVALID_TARGET", "Not a regular file: pipe")
    assert engine.history() == []


def test_a_unix_socket_is_not_a_file_to_read(engine: Workspace) -> None:
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(engine.root / "sock"))
        for call in (engine.read_text, lambda p: engine.append_text(p, "x\n")):
            with pytest.raises(StringError) as caught:
                call("sock")
            assert (caught.value.code, caught.value.message) == ("INVALID_TARGET", "Not a regular file: sock")
