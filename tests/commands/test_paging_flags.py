"""Paging and flags: unknown flags, /write --force, --from on blocks and past the end, /ls -a."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import make_notes


def test_unknown_flag_is_named_with_the_command_flags(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert dispatcher.execute("/open README.md --bogus").text == (
        "re: /open README.md --bogus\nERROR(INVALID_PAYLOAD): Unknown flag for /open: --bogus\n"
        "Flags of /open: --from, --to, --plain. A path that starts with - goes after --: /open -- --bogus"
    )
    reply = dispatcher.execute("/source README.md --to 30").text
    assert "ERROR(INVALID_PAYLOAD): Unknown flag for /source: --to\nFlags of /source: --from." in reply


def test_path_starting_with_dash_after_double_dash(ws: Path, dispatcher) -> None:
    (ws / "-notes.md").write_text("# Dash\n")
    assert dispatcher.execute("/open -- -notes.md").text.startswith("re: /open -- -notes.md\nOpened -notes.md\n")
    assert dispatcher.execute("/source --from 1 -- -notes.md").text.endswith("[source: -notes.md]\n---\n# Dash")


def test_write_force_after_the_path_is_refused_not_written(ws: Path, dispatcher) -> None:
    (ws / "n1.txt").write_text("old\n")
    assert dispatcher.execute("/write n1.txt --force hi").text == (
        "re: /write n1.txt --force hi\nERROR(INVALID_PAYLOAD): --force must come before the path in /write\n"
        "Put --force before the path: /write --force n1.txt <text>"
    )
    assert (ws / "n1.txt").read_text() == "old\n"
    assert dispatcher.execute('/write "new 1.txt" --force hi').text.endswith(
        '--force must come before the path in /write\nPut --force before the path: /write --force "new 1.txt" <text>'
    )
    assert not (ws / "new 1.txt").exists()
    reply = dispatcher.execute("/write --force n1.txt hi").text
    assert reply == "re: /write --force n1.txt hi\nWritten: n1.txt (3 bytes, 1 line)"
    assert (ws / "n1.txt").read_text() == "hi\n"


def make_long(ws: Path) -> None:
    lines = ["# Title", "", *[f"para {i}" for i in range(3, 20)], "", "## Example {#example}", ""]
    (ws / "long.md").write_text("\n".join([*lines, *[f"ex line {i}" for i in range(23, 40)]]) + "\n")


def test_from_on_a_block_applies_or_names_the_block_lines(ws: Path, dispatcher) -> None:
    make_long(ws)
    assert dispatcher.execute("/open long.md#example --from 38").text == (
        "re: /open long.md#example --from 38\nOpened long.md#example\n---\nex line 38\nex line 39"
    )
    assert dispatcher.execute("/open long.md#example --from 10").text == (
        "re: /open long.md#example --from 10\n"
        "ERROR(INVALID_PAYLOAD): --from 10 is outside long.md#example, which is source lines 21-39\n"
        "Give --from 21 to 39, or read it whole: /open long.md#example"
    )


def test_from_past_the_end_says_the_length(ws: Path, dispatcher) -> None:
    make_long(ws)
    (ws / "t.txt").write_text("a\nb\n")
    assert dispatcher.execute("/open long.md --from 500").text == (
        "re: /open long.md --from 500\nERROR(INVALID_PAYLOAD): long.md has 39 lines; --from 500 is past the end\n"
        "Read it from the start: /open long.md"
    )
    assert dispatcher.execute("/open t.txt --from 3").text.endswith("t.txt has 2 lines; --from 3 is past the end\n"
                                                                    "Read it from the start: /open t.txt")
    assert dispatcher.execute("/source long.md --from 40").text.endswith(
        "long.md has 39 lines; --from 40 is past the end\nRead it from the start: /source long.md"
    )
    assert dispatcher.execute("/open t.txt --from 2").text == "re: /open t.txt --from 2\nOpened t.txt\n---\nb"


def test_ls_a_lists_dot_files_but_never_secrets_or_state(ws: Path, dispatcher) -> None:
    (ws / ".hidden").mkdir()
    (ws / ".gitignore").write_text("x\n")
    (ws / ".env").write_text("TOKEN=1\n")
    (ws / "b.txt").write_text("b\n")
    dispatcher.execute("/write n.txt hi")  # the engine's `.stringsh/` exists from here on
    assert dispatcher.execute("/ls").text == "re: /ls\nListing ./\n---\n  b.txt\n  n.txt"
    assert dispatcher.execute("/ls -a").text == (
        "re: /ls -a\nListing ./\n---\n  .hidden/\n  .gitignore\n  b.txt\n  n.txt"
    )
    assert dispatcher.execute("/ls -a .hidden").text == "re: /ls -a .hidden\nListing .hidden/\n---\n(empty)"
    assert dispatcher.execute("/ls -x").text == (
        "re: /ls -x\nERROR(INVALID_PAYLOAD): Unknown flag for /ls: -x\n"
        "Flags of /ls: -a. A path that starts with - goes after --: /ls -- -x"
    )
