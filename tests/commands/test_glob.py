"""/glob: files matching a pattern below a folder, newest first, then a summary line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def make_tree(ws: Path) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    for index, rel in enumerate(["src/old.py", "src/pkg/mid.py", "src/new.py", "notes.md"]):
        (ws / rel).write_text("x\n")
        os.utime(ws / rel, ns=(10**18, 10**18 + index * 10**9))


def test_newest_first_with_summary(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/glob '**/*.py'").text == (
        "re: /glob '**/*.py'\nGlob **/*.py in ./: 3 files, newest first\n---\n"
        "src/new.py\nsrc/pkg/mid.py\nsrc/old.py\n\n"
        "3 files"
    )


def test_in_a_folder_and_no_match(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/glob *.py src").text == (
        "re: /glob *.py src\nGlob *.py in src/: 2 files, newest first\n---\n"
        "src/new.py\nsrc/old.py\n\n"
        "2 files"
    )
    assert dispatcher.execute("/glob *.rs").text == (
        "re: /glob *.rs\nGlob *.rs in ./: no files\n---\n0 files"
    )


def test_secrets_state_and_links_out_are_never_listed(ws: Path, dispatcher, tmp_path: Path) -> None:
    (ws / ".env").write_text("A=1\n")
    (ws / ".env.example").write_text("A=\n")
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_ed25519").write_text("k\n")
    (ws / "server.key").write_text("k\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "x.txt").write_text("x\n")
    os.symlink(tmp_path / "outside", ws / "out")
    os.symlink(tmp_path / "outside" / "x.txt", ws / "x-out.txt")
    os.symlink("nothing", ws / "dangling.txt")
    dispatcher.execute("!echo hi")  # the shell may create .stringsh/
    assert dispatcher.execute("/glob '**'").text == (
        "re: /glob '**'\nGlob ** in ./: 1 file, newest first\n---\n.env.example\n\n1 file"
    )
    assert dispatcher.execute("/glob '**' --stats").text == (
        "re: /glob '**' --stats\nGlob ** in ./: 1 file, newest first\n---\n.env.example\n\n"
        "1 file; scanned 1 file (4 entries); skipped 3 symlinks"
    )
    assert dispatcher.execute("/glob '{.env,.env.local,zzz.ts}'").text == (
        "re: /glob '{.env,.env.local,zzz.ts}'\nGlob {.env,.env.local,zzz.ts} in ./: no files\n---\n0 files"
    )


@pytest.mark.parametrize(("request_text", "error"), [
    ("/glob", "ERROR(INVALID_PAYLOAD): Usage: /glob PATTERN [path] [--stats]\n"
              "Quote a pattern or path that contains spaces: /glob '**/*.py' src"),
    ("/glob ''", "ERROR(INVALID_PAYLOAD): Glob pattern is empty.\nGive a pattern such as **/*.py."),
    ("/glob ../*", "ERROR(INVALID_PATH): Glob pattern must not climb out with '..': ../*\n"
                   "Patterns name paths inside the workspace; give a folder as the path argument instead."),
    ("/glob 'src/../../*'", "ERROR(INVALID_PATH): Glob pattern must not climb out with '..': src/../../*\n"
                            "Patterns name paths inside the workspace; give a folder as the path argument instead."),
    ("/glob '{..,x}/*'", "ERROR(INVALID_PATH): Glob pattern must not climb out with '..': {..,x}/*\n"
                         "Patterns name paths inside the workspace; give a folder as the path argument instead."),
    ("/glob /etc/*", "ERROR(INVALID_PATH): Glob pattern must be relative to the search folder, not absolute: "
                     "/etc/*\nDrop the leading /; name the folder as the path argument instead."),
    ("/glob '*' ../..", "ERROR(INVALID_PATH): Path escapes the workspace root: ../..\n"
                        "Use a path inside the workspace."),
    ("/glob '*' .ssh", "ERROR(SECRET_DENIED): Access to a secret file is denied: .ssh\n"
                       "The policy's secret deny list covers this path."),
    ("/glob '*' .stringsh", "ERROR(NOT_PERMITTED): .stringsh/ is stringsh's own state and cannot be used: "
                            ".stringsh\nUse a path outside it; /changes and /undo reach what stringsh keeps there."),
    ("/glob '*' a.txt", "ERROR(INVALID_TARGET): Not a directory\na.txt is a file; give its folder."),
    ("/glob '*' -x", "ERROR(INVALID_PAYLOAD): Unknown flag for /glob: -x\nFlags of /glob: --stats. A path that "
                     "starts with - goes after --: /glob -- -x"),
])
def test_bad_input_is_a_coded_error(ws: Path, dispatcher, request_text: str, error: str) -> None:
    (ws / "a.txt").write_text("x\n")
    assert dispatcher.execute(request_text).text == f"re: {request_text}\n{error}"
    assert dispatcher.execute("/glob '*'").ok  # the loop goes on
