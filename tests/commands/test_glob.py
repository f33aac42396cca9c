"""/glob: files matching a pattern below a folder, by path (or newest first with --sort mtime), then a summary
line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher


def make_tree(ws: Path) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    for index, rel in enumerate(["src/old.py", "src/pkg/mid.py", "src/pkg-b.py", "src/new.py", "notes.md"]):
        (ws / rel).write_text("x\n")
        os.utime(ws / rel, ns=(10**18, 10**18 + index * 10**9))


def test_by_path_with_summary(ws: Path, dispatcher) -> None:
    """Folder by folder, as `rg --sort path`: src/pkg/ before src/pkg-b.py (a `/` sorts before any character)."""
    make_tree(ws)
    assert dispatcher.execute("/glob '**/*.py'").text == (
        "re: /glob '**/*.py'\nGlob **/*.py in ./: 4 files, by path\n---\n"
        "src/new.py\nsrc/old.py\nsrc/pkg/mid.py\nsrc/pkg-b.py\n\n"
        "4 files"
    )
    default = dispatcher.execute("/glob '**/*.py'").text
    named = dispatcher.execute("/glob '**/*.py' --sort path").text
    assert named == default.replace("'**/*.py'", "'**/*.py' --sort path", 1)


def test_newest_first_with_sort_mtime(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/glob '**/*.py' --sort mtime").text == (
        "re: /glob '**/*.py' --sort mtime\nGlob **/*.py in ./: 4 files, newest first\n---\n"
        "src/new.py\nsrc/pkg-b.py\nsrc/pkg/mid.py\nsrc/old.py\n\n"
        "4 files"
    )


def test_past_max_results_the_first_by_path_or_the_newest(ws: Path) -> None:
    make_tree(ws)
    (ws / "policy.toml").write_text("[limits]\nmax_results = 2\n")
    served = Dispatcher(ws, policy_file=ws / "policy.toml")
    try:
        by_path, newest = (served.execute(f"/glob '**/*.py'{order}").text for order in ("", " --sort mtime"))
    finally:
        served.close()
    assert by_path == (
        "re: /glob '**/*.py'\nGlob **/*.py in ./: 4 files, by path\n---\nsrc/new.py\nsrc/old.py\n\n4 files\n"
        "Showing the first 2 of 4 (the policy's max_results): narrow the pattern or the folder."
    )
    assert newest == (
        "re: /glob '**/*.py' --sort mtime\nGlob **/*.py in ./: 4 files, newest first\n---\nsrc/new.py\n"
        "src/pkg-b.py\n\n4 files\nShowing the newest 2 of 4 (the policy's max_results): narrow the pattern or the "
        "folder."
    )


def test_in_a_folder_and_no_match(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/glob *.py src").text == (
        "re: /glob *.py src\nGlob *.py in src/: 3 files, by path\n---\n"
        "src/new.py\nsrc/old.py\nsrc/pkg-b.py\n\n"
        "3 files"
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
        "re: /glob '**'\nGlob ** in ./: 1 file, by path\n---\n.env.example\n\n1 file"
    )
    assert dispatcher.execute("/glob '**' --stats").text == (
        "re: /glob '**' --stats\nGlob ** in ./: 1 file, by path\n---\n.env.example\n\n"
        "1 file; scanned 1 file (4 entries); skipped 3 symlinks"
    )
    assert dispatcher.execute("/glob '{.env,.env.local,zzz.ts}'").text == (
        "re: /glob '{.env,.env.local,zzz.ts}'\nGlob {.env,.env.local,zzz.ts} in ./: no files\n---\n0 files"
    )


@pytest.mark.parametrize(("request_text", "error"), [
    ("/glob", "ERROR(INVALID_PAYLOAD): Usage: /glob PATTERN [path] [--stats] [--sort path|mtime]\n"
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
    ("/glob '*' -x", "ERROR(INVALID_PAYLOAD): Unknown flag for /glob: -x\nFlags of /glob: --stats, --sort. A path "
                     "that starts with - goes after --: /glob -- -x"),
    ("/glob '*' --sort size", "ERROR(INVALID_PAYLOAD): --sort takes path or mtime, got: size\n"
                              "For example --sort mtime (newest first); by path is the default."),
    ("/glob '*' --sort", "ERROR(INVALID_PAYLOAD): --sort needs a value.\nUsage: see /help glob."),
])
def test_bad_input_is_a_coded_error(ws: Path, dispatcher, request_text: str, error: str) -> None:
    (ws / "a.txt").write_text("x\n")
    assert dispatcher.execute(request_text).text == f"re: {request_text}\n{error}"
    assert dispatcher.execute("/glob '*'").ok  # the loop goes on
