"""/ls: String's listing format."""

from __future__ import annotations

from pathlib import Path


def make_tree(ws: Path) -> None:
    (ws / "nav").mkdir()
    (ws / "Zeta").mkdir()
    (ws / ".hidden").mkdir()
    (ws / "README.md").write_text("# hi\n")
    (ws / "todo.md").write_text("- a\n")
    (ws / "b.txt").write_text("b\n")
    (ws / ".gitignore").write_text("x\n")
    (ws / "empty").mkdir()


def test_root_listing_dirs_first_dot_files_hidden(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/ls").text == (
        "re: /ls\nListing ./\n---\n  empty/\n  nav/\n  Zeta/\n  b.txt\n  README.md\n  todo.md"
    )


def test_subfolder_and_empty(ws: Path, dispatcher) -> None:
    make_tree(ws)
    (ws / "nav" / "main.md").write_text("x")
    assert dispatcher.execute("/ls nav").text == "re: /ls nav\nListing nav/\n---\n  main.md"
    assert dispatcher.execute("/ls empty/").text == "re: /ls empty/\nListing empty/\n---\n(empty)"


def test_not_a_directory_and_not_found(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/ls todo.md").text.startswith("re: /ls todo.md\nERROR(INVALID_TARGET): Not a directory")
    assert dispatcher.execute("/ls nowhere").text.startswith("re: /ls nowhere\nERROR(NOT_FOUND): Not found")


def test_escape_is_refused(ws: Path, dispatcher) -> None:
    reply = dispatcher.execute("/ls ../")
    assert not reply.ok
    assert reply.code in {"INVALID_PATH", "FILE_NOT_ALLOWED"}


def test_quoted_path_with_spaces(ws: Path, dispatcher) -> None:
    (ws / "my docs").mkdir()
    (ws / "my docs" / "a.md").write_text("a")
    assert dispatcher.execute('/ls "my docs"').text == 're: /ls "my docs"\nListing my docs/\n---\n  a.md'
