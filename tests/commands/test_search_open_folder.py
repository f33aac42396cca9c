"""/grep and /glob without a path start from the folder `/open <folder>` entered, as /ls does, until a document
is opened; a relative path is looked up there first."""

from __future__ import annotations

from pathlib import Path

from tests.commands.test_roots import roots, run  # noqa: F401  (the fixture)
from tests.conftest import script_replies


def test_grep_and_glob_start_in_the_open_folder(ws: Path) -> None:
    (ws / "docs" / "sub").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("foo here\n")
    (ws / "docs" / "sub" / "b.md").write_text("foo sub\n")
    (ws / "src").mkdir()
    (ws / "src" / "c.py").write_text("foo src\n")
    script = "/open docs/\n/grep foo\n/glob '*.md'\n/grep foo sub\n/glob '*' sub\n/grep foo src\n"
    assert script_replies(ws, script)[1:] == [
        're: /grep foo\nGrep "foo" in docs/: 2 matches in 2 files\n---\ndocs/a.md:1: foo here\n\n'
        "docs/sub/b.md:1: foo sub\n\n2 matches in 2 files",
        "re: /glob '*.md'\nGlob *.md in docs/: 1 file, by path\n---\ndocs/a.md\n\n1 file",
        're: /grep foo sub\nGrep "foo" in docs/sub/: 1 match in 1 file\n---\ndocs/sub/b.md:1: foo sub\n\n'
        "1 match in 1 file",
        "re: /glob '*' sub\nGlob * in docs/sub/: 1 file, by path\n---\ndocs/sub/b.md\n\n1 file",
        're: /grep foo src\nGrep "foo" in src/: 1 match in 1 file\n---\nsrc/c.py:1: foo src\n\n'
        "1 match in 1 file",
    ]


def test_an_opened_document_gives_the_root_back(ws: Path) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("foo\n")
    (ws / "top.md").write_text("foo top\n")
    replies = script_replies(ws, "/open docs/\n/open top.md\n/glob '*.md'\n")
    assert replies[-1] == "re: /glob '*.md'\nGlob *.md in ./: 1 file, by path\n---\ntop.md\n\n1 file"


def test_the_open_folder_of_another_root(roots: Path) -> None:  # noqa: F811
    out = run(roots, "/open docs:sub\n/grep y\n/glob '*'\n")
    assert out.split("re: /grep y\n", 1)[1] == (
        'Grep "y" in docs:sub/: 1 match in 1 file\n---\ndocs:sub/y.txt:1: y\n\n1 match in 1 file\n'
        "re: /glob '*'\nGlob * in docs:sub/: 1 file, by path\n---\ndocs:sub/y.txt\n\n1 file\n"
    )
