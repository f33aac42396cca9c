"""The part guard's rules, one client against another (two in-process `Dispatcher`s on one workspace): a block, a
line range and an old text are each their own precondition; whole-file writes keep the whole-file rule; /undo
takes back a part alone, and refuses only when that part was changed again."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher

DOC = "# Doc\n\n## One\n\nfirst\n\n## Two\n\nsecond\n"


@pytest.fixture
def other(ws: Path):
    d = Dispatcher(ws)
    yield d
    d.close()


def body(reply: str) -> str:
    return reply.split("\n", 1)[1]


def test_a_block_edit_applies_over_changes_elsewhere_and_whole_file_writes_still_refuse(ws: Path, dispatcher,
                                                                                        other) -> None:
    (ws / "doc.md").write_text(DOC)
    dispatcher.execute("/open doc.md")
    assert body(other.execute("/edit doc.md#two\nSECOND\n").text).startswith("Edited doc.md#two ")
    assert body(dispatcher.execute("/edit doc.md#one\nFIRST\n").text) == (
        "Edited doc.md#one (9 lines): 1 line replaced by 1 line")
    assert (ws / "doc.md").read_text() == DOC.replace("first", "FIRST").replace("second", "SECOND")
    # this topic never read the other client's part: the whole file is not overwritten on its word
    assert body(dispatcher.execute("/edit doc.md\n# Mine\n").text) == (
        "ERROR(CONFLICT): Refusing to overwrite doc.md: it changed since this topic read it.\n"
        "Run /open doc.md or /edit doc.md again, then retry.")
    # nor a part of theirs it read before they changed it
    assert body(dispatcher.execute("/edit doc.md#two\nmine\n").text) == (
        "ERROR(CONFLICT): Refusing to edit doc.md#two: the block changed since this topic read it; nothing was "
        "written.\nIts text now:\n## Two\n\nSECOND\nRedo the edit on this text: /edit doc.md#two with the new body.")
    # the refusal showed the block: the edit is redone without reading the whole file
    assert body(dispatcher.execute("/edit doc.md#two\nmine\n").text).startswith("Edited doc.md#two ")
    assert (ws / "doc.md").read_text() == DOC.replace("first", "FIRST").replace("second", "mine")


def test_a_block_removed_by_another_client_is_a_conflict(ws: Path, dispatcher, other) -> None:
    (ws / "doc.md").write_text(DOC)
    dispatcher.execute("/open doc.md")
    other.execute("/open doc.md")
    other.execute("/edit doc.md\n# Doc\n\n## One\n\nfirst\n")
    assert body(dispatcher.execute("/edit doc.md#two\nx\n").text) == (
        "ERROR(CONFLICT): Refusing to edit doc.md#two: the block is no longer in doc.md (changed since this topic "
        "read it); nothing was written.\nRun /open doc.md to see its blocks now.")
    assert (ws / "doc.md").read_text() == "# Doc\n\n## One\n\nfirst\n"


def test_line_ranges_hold_their_text_and_follow_lines_that_moved(ws: Path, dispatcher, other) -> None:
    (ws / "r.txt").write_text("a\nb\nc\nd\n")
    dispatcher.execute("/edit r.txt")
    other.execute("/replace r.txt:L1\nzero\na\n")  # a line added above: b..d move down one
    assert body(dispatcher.execute("/replace r.txt:L3\nC\n").text) == (
        "Replaced r.txt:L4 (they were L3 when this topic read them)")
    assert body(dispatcher.execute("/replace r.txt:L4\nD\n").text) == (
        "Replaced r.txt:L5 (they were L4 when this topic read them)")
    other.execute("/replace r.txt\nb\n---\nB\n")
    assert body(dispatcher.execute("/replace r.txt:L2\nbee\n").text) == (
        "ERROR(CONFLICT): Refusing to replace r.txt:L2: those lines changed since this topic read them; nothing was "
        "written.\nThey hold now:\na\nRun /edit r.txt for current line numbers, then retry.")
    assert (ws / "r.txt").read_text() == "zero\na\nB\nC\nD\n"


def test_undo_takes_back_its_part_and_refuses_only_when_that_part_changed_again(ws: Path, dispatcher,
                                                                                other) -> None:
    (ws / "r.txt").write_text("one\ntwo\nthree\n")
    dispatcher.execute("/replace r.txt\none\n---\nONE\n")
    dispatcher.execute("/replace r.txt\ntwo\n---\nTWO\n")
    other.execute("/replace r.txt\nthree\n---\nTHREE\n")
    assert body(dispatcher.execute("/undo").text) == (
        "Undo: reverted r.txt (3 lines): only the lines change 2 wrote, later changes elsewhere in it kept")
    assert (ws / "r.txt").read_text() == "ONE\ntwo\nTHREE\n"
    other.execute("/replace r.txt\nONE\n---\nuno\n")
    assert body(dispatcher.execute("/undo").text) == (
        "ERROR(CONFLICT): Refusing to undo: r.txt changed since change 1 wrote it.\n"
        "Nothing was changed; open r.txt to see it, or /undo --skip to leave it and go on to older changes.")
    assert (ws / "r.txt").read_text() == "uno\ntwo\nTHREE\n"


def test_the_changed_part_a_conflict_shows_is_masked(ws: Path, dispatcher, other) -> None:
    token = "ghp_" + "Q7" * 18
    (ws / "doc.md").write_text(DOC)
    dispatcher.execute("/open doc.md")
    other.execute(f"/edit doc.md#one\ntoken {token}\n")
    refused = dispatcher.execute("/edit doc.md#one\nmine\n").text
    assert "Its text now:\n## One\n\ntoken ***REDACTED***\nRedo the edit" in refused and token not in refused
