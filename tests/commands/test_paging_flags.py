"""Paging and flags (issue 12 item 10): unknown flags, /write --force, --from on blocks and past the end, /ls -a."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import make_notes


def test_unknown_flag_is_named_with_the_command_flags(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert dispatcher.execute("/open README.md --bogus").text == (
        "re: /open README.md --bogus\nERROR(INVALID_PAYLOAD): Unknown flag for /open: --bogus\n"
        "Flags of /open: --from. A path that starts with - goes after --: /open -- --bogus"
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
    assert reply == "re: /write --force n1.txt hi\nWritten: n1.txt (3 bytes, 1 lines)"
    assert (ws / "n1.txt").read_text() == "hi\n"
