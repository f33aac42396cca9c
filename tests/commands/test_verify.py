"""/verify: read-only block check with size and preview."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body, make_notes


def test_verify_heading_block(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert dispatcher.execute("/verify README.md#setup").text == (
        "re: /verify README.md#setup\nVerified README.md#setup (3 lines, 45 chars)\n---\n"
        "## Setup\n\nInstall the tools, then run `make`."
    )


def test_verify_long_block_previews_200_chars(ws: Path, dispatcher) -> None:
    (ws / "long.md").write_text("<!-- #b -->\n" + "x" * 300 + "\n<!-- /b -->\n")
    assert body(dispatcher.execute("/verify long.md#b").text) == (
        f"Verified long.md#b (1 lines, 300 chars)\n---\n{'x' * 200}..."
    )


def test_verify_block_of_the_open_document(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md")
    assert body(dispatcher.execute("/verify #tip").text) == (
        "Verified README.md#tip (1 lines, 13 chars)\n---\nUse it daily."
    )


def test_verify_needs_a_block_and_an_existing_one(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/verify README.md").text) == (
        "ERROR(INVALID_TARGET): Usage: /verify path#block\nName a block: /verify notes.md#todo"
    )
    assert dispatcher.execute("/verify").code == "INVALID_TARGET"
    assert dispatcher.execute("/verify README.md#nope").code == "BLOCK_NOT_FOUND"
    assert body(dispatcher.execute("/verify nowhere.md#a").text) == (
        "ERROR(NOT_FOUND): File not found: nowhere.md\n"
        "/ls shows what is there."
    )
