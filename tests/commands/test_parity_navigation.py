"""Navigation parity with String's own tests (references, navigation, /info), via `stringsh run`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SHELL_ENV_INFO, info_setup, run_script

PAGE = """# Shortcuts Test

Visit the [API Docs][@api] for details, or [the notes][@notes].
An example, not a link: `[@fake Label](fake.md)` and [@gone Gone](missing.md).

[@api]: https://api.example.com/v2
[@notes]: notes.md
"""


def replies(out: str) -> list[str]:
    """Each reply of a run, its `re:` line included, split on the `re:` lines."""
    parts = out.split("\nre: ")
    return [parts[0], *("re: " + part for part in parts[1:])]


def test_reference_style_shortcuts_resolve_and_inline_code_is_no_shortcut(ws: Path) -> None:
    (ws / "page.md").write_text(PAGE)
    (ws / "notes.md").write_text("# Notes\n\nsome notes\n")
    out = replies(run_script(ws, "/open page.md\n/info @api\n/open @notes\n/open page.md\n/open @fake\n/info @notes\n"))
    assert out[0] == (
        "re: /open page.md\nOpened page.md\n---\n# Shortcuts Test\n\n"
        "Visit the [API Docs][@api] for details, or [the notes][@notes].\n"
        "An example, not a link: `[@fake Label](fake.md)` and [Gone][@gone]."
    )
    assert out[1] == "re: /info @api\n@api → https://api.example.com/v2"
    assert out[2] == "re: /open @notes\nOpened notes.md\n---\n# Notes\n\nsome notes"
    assert out[4] == (
        "re: /open @fake\nERROR(NOT_FOUND): Shortcut not found: @fake\nAvailable: @gone, @api, @notes"
    )
    assert out[5].rstrip("\n") == "re: /info @notes\n@notes → notes.md"


def test_info_warns_of_a_shortcut_whose_target_is_missing(ws: Path) -> None:
    (ws / "page.md").write_text(PAGE)
    (ws / "notes.md").write_text("# Notes\n")
    out = replies(run_script(ws, "/open page.md\n/info\n"))
    assert out[1].rstrip("\n") == (
        "re: /info\nSession info\n---\n"
        "topic:     main\n"
        f"root:      {ws}\n"
        "cwd:       ./\n"
        "file:      page.md\n"
        "blocks:    shortcuts-test\n"
        "shortcuts: @gone, @api, @notes\n"
        "history:   0 entries\n"
        f"vars:      (none)\n{SHELL_ENV_INFO}\n{info_setup(ws)}\n"
        "Warnings:\n"
        "  line 4: shortcut @gone → missing.md: target not found"
    )


def test_back_after_opening_a_block_of_the_open_file(ws: Path) -> None:
    (ws / "wiki.md").write_text("# AI Wiki\n\nintro\n\n## Welcome\n\nhello\n")
    out = replies(run_script(ws, "/open wiki.md\n/open wiki.md#welcome\n/back\n/back\n"))
    assert out[1] == "re: /open wiki.md#welcome\nOpened wiki.md#welcome\n---\n## Welcome\n\nhello"
    assert out[2] == "re: /back\nBack to wiki.md\n---\n# AI Wiki\n\nintro\n\n## Welcome\n\nhello"
    assert out[3].rstrip("\n") == "re: /back\nERROR(INVALID_TARGET): No previous page in history."


def test_open_folder_makes_it_the_topics_folder(ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "hello.md").write_text("# Hello\nWorld\n")
    (ws / "root.md").write_text("# Root\n")
    out = replies(run_script(ws, "/open ./sub/\n/info\n/ls .\n/open ./hello.md\n/info\n/open root.md\n/close\n/info\n"))
    assert out[0] == "re: /open ./sub/\nListing sub/\n---\n  hello.md"
    assert out[1] == (
        f"re: /info\nSession info\n---\ntopic:     main\nroot:      {ws}\ncwd:       ./sub/\n"
        f"file:      (none open)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n{info_setup(ws)}"
    )
    assert out[2] == "re: /ls .\nListing sub/\n---\n  hello.md"
    assert out[3] == "re: /open ./hello.md\nOpened sub/hello.md\n---\n# Hello\nWorld"
    assert "cwd:       ./sub/\nfile:      sub/hello.md\n" in out[4]
    assert out[5] == "re: /open root.md\nOpened root.md\n---\n# Root"  # not beside hello.md: from the root
    assert out[7].rstrip("\n") == (
        f"re: /info\nSession info\n---\ntopic:     main\nroot:      {ws}\ncwd:       ./\n"
        f"file:      (none open)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n{info_setup(ws)}"
    )


def test_act_without_a_document_says_so(ws: Path) -> None:
    (ws / "sub").mkdir()
    out = replies(run_script(ws, "/act.x\n/act x --flag 1\n/open sub/\n/act.x\n"))
    no_document = "ERROR(INVALID_TARGET): No document open. Use /open <uri> first."
    assert out[0] == f"re: /act.x\n{no_document}"
    assert out[1] == f"re: /act x --flag 1\n{no_document}"
    assert out[3].rstrip("\n") == f"re: /act.x\n{no_document}"  # a folder entered is not a document


def test_open_folder_with_a_document_open(ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "hello.md").write_text("# Hello\n")
    (ws / "sub" / "root.md").write_text("# Not this one\n")
    (ws / "root.md").write_text("# Root\n")
    out = replies(run_script(ws, "/open root.md\n/open sub/\n/open hello.md\n/back\n/open sub\n/open root.md\n"))
    assert out[2] == "re: /open hello.md\nOpened sub/hello.md\n---\n# Hello"
    # a name beside the open document is that one, as in String (its own links stay its own)
    assert out[5].rstrip("\n") == "re: /open root.md\nOpened root.md\n---\n# Root"
