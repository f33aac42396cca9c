"""/stat /mkdir /mv /cp /rm: exact replies, /undo naming what it put back byte for byte, and the attack
catalogue of docs/hazards.md through every command: `ERROR(CODE)` + hint, nothing changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_stringsh
from tests.workspace.test_fsops import tree_hash


@pytest.fixture
def files(ws: Path) -> Path:
    (ws / "docs" / "sub").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("# A\n\none\n")
    (ws / "docs" / "sub" / "b.md").write_text("b\n")
    (ws / "notes.md").write_text("notes\n")
    (ws / ".env").write_text("TOKEN=secret\n")
    (ws / "vault").mkdir()
    (ws / "vault" / ".env").write_text("NESTED=secret\n")
    (ws / ".git" / "hooks").mkdir(parents=True)
    os.symlink("/etc", ws / "etc-link")
    os.chmod(ws / "docs" / "sub", 0o750)
    return ws


def reply(dispatcher, command: str) -> str:  # type: ignore[no-untyped-def]
    text: str = dispatcher.execute(command).text
    return text.split("\n", 1)[1]


def test_stat(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    os.utime(files / "notes.md", (0, 1_700_000_000))
    assert reply(dispatcher, "/stat notes.md") == "notes.md: file, 6 bytes, mode 0644, modified 2023-11-14 22:13:20 UTC"
    os.chmod(files / "notes.md", 0o444)
    assert reply(dispatcher, "/stat notes.md").startswith("notes.md: file, 6 bytes, mode 0444, read-only, modified")
    assert reply(dispatcher, "/stat docs/sub").startswith("docs/sub: folder, ")
    assert reply(dispatcher, "/stat nope") == "ERROR(NOT_FOUND): File not found: nope\n/ls shows what is there."
    assert reply(dispatcher, "/stat .env").startswith("ERROR(SECRET_DENIED): ")
    assert reply(dispatcher, "/stat") == "ERROR(INVALID_PAYLOAD): Usage: /stat path\nQuote a path that contains spaces."


def test_mkdir_and_undo(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(files)
    assert reply(dispatcher, "/mkdir new/inner") == (
        "ERROR(NOT_FOUND): Folder not found: new\nUse /mkdir -p new/inner to make new as well."
    )
    assert reply(dispatcher, "/mkdir -p new/inner") == "Created folder: new/inner (and new)"
    assert reply(dispatcher, "/mkdir -p new/inner") == "Folder exists: new/inner (nothing changed)"
    assert reply(dispatcher, "/mkdir new") == (
        "ERROR(CONFLICT): Folder exists already: new\nNothing was changed; /ls it to see it."
    )
    assert reply(dispatcher, "/mkdir solo") == "Created folder: solo"
    assert reply(dispatcher, "/undo") == "Undo: removed folder solo"
    assert reply(dispatcher, "/undo") == "Undo: removed folder new/inner; removed folder new"
    assert tree_hash(files) == before


def test_mv_file_folder_link_and_undo(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(files)
    assert reply(dispatcher, "/mv notes.md docs/") == "Moved: notes.md → docs/notes.md"
    assert reply(dispatcher, "/mv docs archive") == "Moved: docs → archive (folder, 3 files)"
    assert reply(dispatcher, "/mv etc-link archive/etc") == (
        "Moved: etc-link → archive/etc (symbolic link; its target is untouched)"
    )
    assert reply(dispatcher, "/undo") == "Undo: put back link etc-link → /etc; removed link archive/etc"
    assert reply(dispatcher, "/undo") == (
        "Undo: put back folder docs; put back folder docs/sub; restored docs/a.md (3 lines); "
        "deleted archive/a.md (was newly created); restored docs/notes.md (1 line); "
        "deleted archive/notes.md (was newly created); restored docs/sub/b.md (1 line); "
        "deleted archive/sub/b.md (was newly created); removed folder archive/sub; removed folder archive"
    )
    assert reply(dispatcher, "/undo") == "Undo: restored notes.md (1 line); deleted docs/notes.md (was newly created)"
    assert tree_hash(files) == before


def test_mv_force_replaces_and_undo_puts_the_old_file_back(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(files)
    assert reply(dispatcher, "/mv notes.md docs/a.md") == (
        "ERROR(CONFLICT): Destination exists: docs/a.md\n"
        "Nothing was changed; /mv --force notes.md docs/a.md replaces it."
    )
    assert reply(dispatcher, "/mv --force notes.md docs/a.md") == (
        "Moved: notes.md → docs/a.md (replaced the old docs/a.md)"
    )
    assert (files / "docs" / "a.md").read_text() == "notes\n"
    assert reply(dispatcher, "/undo") == "Undo: restored notes.md (1 line); reverted docs/a.md (3 lines)"
    assert tree_hash(files) == before


def test_cp_and_undo(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(files)
    assert reply(dispatcher, "/cp notes.md copy.md") == "Copied: notes.md → copy.md (6 bytes)"
    assert reply(dispatcher, "/cp notes.md copy.md") == (
        "ERROR(CONFLICT): Destination exists: copy.md\nNothing was changed; /cp --force notes.md copy.md replaces it."
    )
    assert reply(dispatcher, "/cp --force docs/sub/b.md copy.md") == (
        "Copied: docs/sub/b.md → copy.md (2 bytes, replaced the old copy.md)"
    )
    assert reply(dispatcher, "/cp docs x") == (
        "ERROR(INVALID_TARGET): Only a regular file can be copied: docs is a dir\n"
        "Nothing was changed; copy the files inside it one by one."
    )
    assert reply(dispatcher, "/undo") == "Undo: reverted copy.md (1 line)"
    assert reply(dispatcher, "/undo") == "Undo: deleted copy.md (was newly created)"
    assert tree_hash(files) == before


def test_rm_and_undo(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(files)
    assert reply(dispatcher, "/rm docs") == (
        "ERROR(INVALID_TARGET): Is a directory: docs\nNothing was changed; /rm -r docs deletes it and everything in it."
    )
    assert reply(dispatcher, "/rm etc-link") == "Deleted: etc-link (symbolic link; its target is untouched)"
    assert reply(dispatcher, "/rm -r docs") == "Deleted: docs (folder, 2 files, 2 folders)"
    assert reply(dispatcher, "/rm notes.md") == "Deleted: notes.md"
    assert reply(dispatcher, "/undo") == "Undo: restored notes.md (1 line)"
    assert reply(dispatcher, "/undo") == (
        "Undo: put back folder docs; put back folder docs/sub; restored docs/a.md (3 lines); "
        "restored docs/sub/b.md (1 line)"
    )
    assert reply(dispatcher, "/undo") == "Undo: put back link etc-link → /etc"
    assert tree_hash(files) == before
    assert (files / "docs" / "sub").stat().st_mode & 0o777 == 0o750


ATTACKS = [
    # onto itself, into itself
    ("/mv docs docs", "ERROR(INVALID_TARGET): Source and destination are the same: docs\n"
     "Nothing was changed; name a different destination."),
    ("/mv docs docs/sub/deeper", "ERROR(INVALID_TARGET): Cannot move a folder into itself: docs → docs/sub/deeper\n"
     "Nothing was changed; choose a destination outside the folder."),
    ("/cp notes.md notes.md", "ERROR(INVALID_TARGET): Source and destination are the same: notes.md\n"
     "Nothing was changed; name a different destination."),
    # onto and from secrets
    ("/mv notes.md .env", "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    ("/cp .env leaked.txt", "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    ("/rm .env", "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    ("/stat .env", "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    # protected paths
    ("/mv notes.md .git/hooks/pre-commit", "ERROR(NOT_PERMITTED): .git/hooks/pre-commit is protected: it can run "
     "code later\nstringsh protects paths that run code later; edit it outside stringsh if you mean it."),
    ("/cp notes.md .git/hooks/", "ERROR(NOT_PERMITTED): .git/hooks/ is protected: it can run code later\n"
     "stringsh protects paths that run code later; edit it outside stringsh if you mean it."),
    ("/mkdir .git/hooks/x", "ERROR(NOT_PERMITTED): .git/hooks/x is protected: it can run code later\n"
     "stringsh protects paths that run code later; edit it outside stringsh if you mean it."),
    ("/rm -r .git", "ERROR(NOT_PERMITTED): .git is protected: it can run code later\n"
     "stringsh protects paths that run code later; edit it outside stringsh if you mean it."),
    ("/rm -r .stringsh", "ERROR(NOT_PERMITTED): .stringsh/ is stringsh's own state and cannot be used: .stringsh\n"
     "Use a path outside it; /changes and /undo reach what stringsh keeps there."),
    ("/mkdir .stringsh/x", "ERROR(NOT_PERMITTED): .stringsh/ is stringsh's own state and cannot be used: .stringsh/x\n"
     "Use a path outside it; /changes and /undo reach what stringsh keeps there."),
    # out of the root: `..`, absolute, through a symlink
    ("/mv notes.md ../out.md", "ERROR(INVALID_PATH): Path escapes the workspace root: ../out.md\n"
     "Use a path inside the workspace."),
    ("/cp ../x notes2.md", "ERROR(INVALID_PATH): Path escapes the workspace root: ../x\n"
     "Use a path inside the workspace."),
    ("/rm -r ..", "ERROR(INVALID_PATH): Path escapes the workspace root: ..\nUse a path inside the workspace."),
    ("/mkdir ../x", "ERROR(INVALID_PATH): Path escapes the workspace root: ../x\nUse a path inside the workspace."),
    ("/stat ../", "ERROR(INVALID_PATH): Path escapes the workspace root: ../\nUse a path inside the workspace."),
    ("/mv etc-link/passwd p", "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: etc-link\n"
     "Symlinks are followed only while they point inside the workspace."),
    ("/cp notes.md etc-link/planted", "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: "
     "etc-link\nSymlinks are followed only while they point inside the workspace."),
    ("/rm etc-link/passwd", "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: etc-link\n"
     "Symlinks are followed only while they point inside the workspace."),
    ("/mkdir etc-link/x", "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: etc-link\n"
     "Symlinks are followed only while they point inside the workspace."),
    ("/stat etc-link/passwd", "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: etc-link/passwd\n"
     "Symlinks are followed only while they point inside the workspace."),
    ("/stat .stringsh/x", "ERROR(NOT_PERMITTED): .stringsh/ is stringsh's own state and cannot be used: .stringsh/x\n"
     "Use a path outside it; /changes and /undo reach what stringsh keeps there."),
    ("/mkdir .env", "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    ("/rm -r vault", "ERROR(SECRET_DENIED): Access to a secret file is denied: vault/.env\n"
     "The policy's secret deny list covers this path."),
    ("/mv vault moved", "ERROR(SECRET_DENIED): Access to a secret file is denied: vault/.env\n"
     "The policy's secret deny list covers this path."),
    # the root itself
    ("/rm -r .", "ERROR(INVALID_TARGET): Refusing to act on the workspace root itself.\n"
     "Name a file or folder inside the workspace."),
    ("/mv . x", "ERROR(INVALID_TARGET): Refusing to act on the workspace root itself.\n"
     "Name a file or folder inside the workspace."),
    # names with line breaks or tabs, unknown flags, wrong counts
    ("/mv notes.md 'a\tb'", "ERROR(INVALID_PATH): Path contains a line break or control character: 'a\\tb'\n"
     "Nothing was changed; name files without line breaks or tabs."),
    ("/rm --recursive docs", "ERROR(INVALID_PAYLOAD): Unknown flag for /rm: --recursive\n"
     "Flags of /rm: -r, --force. A path that starts with - goes after --: /rm -- --recursive"),
    ("/mv notes.md", "ERROR(INVALID_PAYLOAD): Usage: /mv [--force] from to\nQuote a path that contains spaces."),
    ("/cp a b c", "ERROR(INVALID_PAYLOAD): Usage: /cp [--force] from to\nQuote a path that contains spaces."),
    ("/mkdir", "ERROR(INVALID_PAYLOAD): Usage: /mkdir [-p] path\nQuote a path that contains spaces."),
    ("/rm nope.md", "ERROR(NOT_FOUND): File not found: nope.md\nNothing was changed; /ls shows what is there."),
    ("/mv nope.md x.md", "ERROR(NOT_FOUND): File not found: nope.md\nNothing was changed; /ls shows what is there."),
    ("/cp nope.md x.md", "ERROR(NOT_FOUND): File not found: nope.md\nNothing was changed; /ls shows what is there."),
    ("/mv notes.md missing/x.md", "ERROR(NOT_FOUND): Folder not found: missing\n"
     "Nothing was changed; make it first with /mkdir -p missing, then mv again."),
]


@pytest.mark.parametrize(("command", "expected"), ATTACKS, ids=[c for c, _ in ATTACKS])
def test_attacks_refused_and_nothing_changed(files: Path, dispatcher, command: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    before, parent = tree_hash(files), sorted(p.name for p in files.parent.iterdir())
    assert reply(dispatcher, command) == expected
    assert tree_hash(files) == before
    assert sorted(p.name for p in files.parent.iterdir()) == parent
    assert reply(dispatcher, "/undo") == "ERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are."


def test_read_only_root_and_disabled_flags(files: Path) -> None:
    (files / "stringsh.toml").write_text("[permissions]\nmove = false\ndelete = false\nmkdir = false\n")
    before = tree_hash(files)
    out = "".join(run_stringsh(["-c", command], files).stdout.decode()
                  for command in ("/mv notes.md n.md", "/rm notes.md", "/mkdir x"))
    assert "ERROR(NOT_PERMITTED): move is disabled by policy\nThe policy's [permissions] move = false." in out
    assert "ERROR(NOT_PERMITTED): delete is disabled by policy\nThe policy's [permissions] delete = false." in out
    assert "ERROR(NOT_PERMITTED): mkdir is disabled by policy\nThe policy's [permissions] mkdir = false." in out
    assert tree_hash(files) == before


def test_through_the_real_program(files: Path) -> None:
    result = run_stringsh(["-c", "/mv notes.md docs/"], files)
    assert result.stdout.decode().strip().endswith("Moved: notes.md → docs/notes.md")
    assert (files / "docs" / "notes.md").read_text() == "notes\n"


def test_help_pages_and_table_rows(dispatcher) -> None:  # type: ignore[no-untyped-def]
    listing = reply(dispatcher, "/help")
    for syntax in ("/stat path", "/mkdir [-p] path", "/mv [--force] from to", "/cp [--force] from to",
                   "/rm [-r] [--force] path"):
        assert syntax in listing
    assert "cannot put it back" in reply(dispatcher, "/help rm")
    assert "put back folder docs" in reply(dispatcher, "/help undo")


def test_undo_skip_names_the_folders_of_a_mkdir(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    dispatcher.execute("/mkdir -p one/two")
    assert reply(dispatcher, "/undo --skip") == (
        "Undo: skipped change 1 (one, one/two), left as it is; nothing older is left to undo."
    )
    assert (files / "one" / "two").is_dir()


def test_undo_of_a_big_rm_names_twenty_then_counts(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    (ws / "many").mkdir()
    for k in range(30):
        (ws / "many" / f"{k:02}.txt").write_text(f"{k}\n")
    before = tree_hash(ws)
    assert reply(dispatcher, "/rm -r many") == "Deleted: many (folder, 30 files, 1 folder)"
    text = reply(dispatcher, "/undo")
    assert text.startswith("Undo: put back folder many; restored many/00.txt (1 line); ")
    assert text.endswith("; restored many/18.txt (1 line); and 11 more")
    assert tree_hash(ws) == before


def test_a_fifo_named_to_a_file_command_is_refused_without_a_dead_end(files: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    """No reply waits for a writer, and none sends the agent to read the FIFO first (`/open` refuses it too)."""
    os.mkfifo(files / "pipe")
    not_regular = "ERROR(INVALID_TARGET): Not a regular file: pipe"
    for command in ("/open pipe", "/write pipe\nx", "/write --force pipe\nx", "/edit pipe\nx", "/append pipe\nx"):
        assert reply(dispatcher, command) == not_regular, command
    for command, verb in (("/cp pipe copy", "copy"), ("/mv pipe moved", "move"), ("/rm pipe", "remove")):
        assert reply(dispatcher, command) == (
            f"ERROR(INVALID_TARGET): Not a file, folder or link: pipe\nNothing was changed; {verb} it outside stringsh."
        ), command
    assert (files / "pipe").is_fifo()
    assert reply(dispatcher, "/undo") == "ERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are."
