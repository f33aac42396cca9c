"""/edit: numbered views, block and whole-file replacement through the journal, byte fidelity, /undo."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import README, body, make_notes


def test_view_whole_file_numbered(ws: Path, dispatcher) -> None:
    (ws / "a.md").write_text("\n".join(f"line {i}" for i in range(1, 11)) + "\n")
    text = dispatcher.execute("/edit a.md").text
    assert text.startswith("re: /edit a.md\n[editing: a.md]\n---\n 1 | line 1\n 2 | line 2\n")
    assert text.endswith("\n10 | line 10\n\n(10 lines)")


def test_view_block_numbers_its_lines_as_the_files(ws: Path, dispatcher) -> None:
    make_notes(ws)
    n = (ws / "README.md").read_text().split("\n").index("## Setup") + 1
    assert dispatcher.execute("/edit README.md#setup").text == (
        "re: /edit README.md#setup\n[editing: README.md#setup]\n---\n"
        f"{n} | ## Setup\n{n + 1} | \n{n + 2} | Install the tools, then run `make`.\n\n(3 lines)"
    )
    assert dispatcher.execute(f"/edit README.md#setup --from {n + 2}").text == (
        "re: /edit README.md#setup --from 12\n[editing: README.md#setup]\n---\n"
        f"{n + 2} | Install the tools, then run `make`.\n\n(3 lines)"
    ).replace("--from 12", f"--from {n + 2}")
    assert body(dispatcher.execute("/edit README.md#nope").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #nope in README.md\nAvailable blocks: notes, setup, usage, tip"
    )


def test_block_edit_then_undo_is_byte_for_byte(ws: Path, dispatcher) -> None:
    make_notes(ws)
    before = (ws / "README.md").read_bytes()
    reply = dispatcher.execute("/edit README.md#setup\nInstall with `./install.sh`, then run `make`.\n")
    assert reply.text == "re: /edit README.md#setup\nEdited README.md#setup (22 lines): 1 line replaced by 1 line"
    after = (ws / "README.md").read_text()
    old, new = "Install the tools, then run `make`.", "Install with `./install.sh`, then run `make`."
    assert after == README.replace(old, new)
    assert body(dispatcher.execute("/undo").text).startswith("Undo: reverted README.md")
    assert (ws / "README.md").read_bytes() == before


def test_marker_block_edit_keeps_markers(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/edit README.md#tip\nUse it hourly.\nAnd log it.").text) == (
        "Edited README.md#tip (23 lines): 1 line replaced by 2 lines"
    )
    assert "<!-- #tip -->\nUse it hourly.\nAnd log it.\n<!-- /tip -->\n" in (ws / "README.md").read_text()


def test_crlf_bom_file_keeps_every_byte_outside_the_block(ws: Path, dispatcher) -> None:
    raw = "\ufeff# Title\r\n\r\nkeep é\r\n\r\n## Part\r\n\r\nold\r\n\r\n## Tail\r\nend".encode()
    (ws / "w.md").write_bytes(raw)
    assert body(dispatcher.execute("/edit w.md#part\nnew 1\nnew 2\n").text) == (
        "Edited w.md#part (11 lines): 1 line replaced by 2 lines"
    )
    assert (ws / "w.md").read_bytes() == raw.replace(b"old", b"new 1\r\nnew 2")
    dispatcher.execute("/undo")
    assert (ws / "w.md").read_bytes() == raw


def test_edit_of_the_open_block_reresolves_and_updates_the_view(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md#today")
    assert body(dispatcher.execute("/edit #today\n- ship\n- rest\n").text) == (
        "Edited todo.md#today (6 lines): 1 line replaced by 2 lines"
    )
    assert body(dispatcher.execute("/open #today").text) == "Opened todo.md#today\n---\n## Today\n\n- ship\n- rest"


def test_whole_file_edit_needs_a_read_first(ws: Path, dispatcher) -> None:
    make_notes(ws)
    refused = dispatcher.execute("/edit todo.md\n# New\n")
    assert body(refused.text) == (
        "ERROR(CONFLICT): Refusing to overwrite existing file not read in this topic: todo.md\n"
        "Run /open todo.md or /edit todo.md first, then retry. "
        "Use --force only when you intend to replace the whole file."
    )
    dispatcher.execute("/edit todo.md")
    assert dispatcher.execute("/edit todo.md\n# New\n\ntext\n").text == (
        "re: /edit todo.md\nEdited todo.md (3 lines, whole file)"
    )
    assert (ws / "todo.md").read_text() == "# New\n\ntext\n"
    (ws / "todo.md").write_text("changed outside\n")
    assert dispatcher.execute("/edit todo.md\nmine\n").code == "CONFLICT"
    assert body(dispatcher.execute("/edit --force todo.md\nmine\n").text) == "Edited todo.md (1 line, whole file)"
    assert (ws / "todo.md").read_text() == "mine\n"


def test_bad_targets(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/edit nowhere.md").text) == (
        "ERROR(NOT_FOUND): File not found: nowhere.md\n"
        "/ls shows what is there."
    )
    assert dispatcher.execute("/edit").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/edit nav").code == "INVALID_TARGET"
    assert dispatcher.execute("/edit logo.png").code == "BINARY_FILE"
    assert body(dispatcher.execute("/edit notes.txt#m\nx").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #m in notes.txt\nThis document has no blocks."
    )
    assert dispatcher.execute("/edit ../x.md").code in {"INVALID_PATH", "FILE_NOT_ALLOWED"}


def test_utf16_and_mixed_endings_survive_a_block_edit_and_undo(ws: Path, dispatcher) -> None:
    utf16 = "\ufeff# Título\r\n\r\nviejo\r\n\r\n# Otro\r\n".encode("utf-16-le")
    (ws / "u.md").write_bytes(utf16)
    assert body(dispatcher.execute("/edit u.md#ttulo\nnuevo\n").text) == (
        "Edited u.md#ttulo (5 lines): 1 line replaced by 1 line"
    )
    assert (ws / "u.md").read_bytes() == utf16.replace("viejo".encode("utf-16-le"), "nuevo".encode("utf-16-le"))
    dispatcher.execute("/undo")
    assert (ws / "u.md").read_bytes() == utf16
    mixed = b"# A\r\n\nold\n\n## B\r\nkeep\n"
    (ws / "m.md").write_bytes(mixed)
    assert body(dispatcher.execute("/edit m.md#b\nx\ny").text) == "Edited m.md#b (7 lines): 1 line replaced by 2 lines"
    assert (ws / "m.md").read_bytes() == b"# A\r\n\nold\n\n## B\r\nx\ny\n"  # the region's own ending
    dispatcher.execute("/undo")
    assert (ws / "m.md").read_bytes() == mixed


def test_latin1_file_is_edited_in_latin1_not_mangled(ws: Path, dispatcher) -> None:
    raw = b"# Caf\xe9\n\ntext\n"
    (ws / "l.md").write_bytes(raw)
    assert dispatcher.execute("/edit l.md#caf\nnéw\n").ok
    assert (ws / "l.md").read_bytes() == b"# Caf\xe9\n\nn\xe9w\n"


def test_an_edit_that_would_break_the_block_writes_nothing(ws: Path, dispatcher) -> None:
    make_notes(ws)
    before = (ws / "README.md").read_bytes()
    reply = dispatcher.execute("/edit README.md#tip\n```\nunclosed fence\n")
    assert body(reply.text) == (
        "ERROR(INVALID_PAYLOAD): Refusing to edit README.md#tip: with this text the block would no longer resolve.\n"
        "Check the body for an unclosed ``` fence or a block marker; nothing was written."
    )
    assert (ws / "README.md").read_bytes() == before
    assert body(dispatcher.execute("/edit README.md#tip\n```\nclosed fence\n```\n").text) == (
        "Edited README.md#tip (24 lines): 1 line replaced by 3 lines"
    )


def test_numbered_view_is_cut_with_a_read_on_hint(ws: Path, dispatcher) -> None:
    (ws / "n.md").write_text("".join(f"l{i}\n" for i in range(1, 13)))
    dispatcher.execute('/set {_max_lines} = "5"')
    assert body(dispatcher.execute("/edit n.md").text) == (
        "[editing: n.md]\n---\n 1 | l1\n 2 | l2\n 3 | l3\n 4 | l4\n 5 | l5\n\n(12 lines)\n"
        "[cut] Output limit of 5 lines reached. Read on: /edit n.md --from 6"
    )
    assert body(dispatcher.execute("/edit n.md --from 11").text) == (
        "[editing: n.md]\n---\n11 | l11\n12 | l12\n\n(12 lines)"
    )


def test_edit_after_this_topics_own_undo_is_not_a_conflict(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md#today")
    dispatcher.execute("/edit #today\n- one\n")
    dispatcher.execute("/undo")
    assert body(dispatcher.execute("/edit #today\n- two\n").text) == (
        "Edited todo.md#today (5 lines): 1 line replaced by 1 line"
    )
    assert (ws / "todo.md").read_text() == "# Todo\n\n## Today\n\n- two\n"


def test_final_newline_flags_add_or_drop_the_last_line_break_in_the_files_own_ending(ws: Path, dispatcher) -> None:
    """A heredoc body always ends with a line break, so a whole-file /edit keeps the file's; the flags change it."""
    (ws / "no_eol.txt").write_bytes(b"one\r\ntwo")
    (ws / "notes.md").write_bytes(b"# T\n\n<!-- #x -->\nold\n<!-- /x -->")
    assert dispatcher.execute("/edit no_eol.txt").ok  # read: the guard lets the whole-file edits through
    assert dispatcher.execute("/edit no_eol.txt\none\ntwo\n").text == (
        "re: /edit no_eol.txt\nEdited no_eol.txt (2 lines, whole file)")
    assert (ws / "no_eol.txt").read_bytes() == b"one\r\ntwo"  # kept without one
    assert dispatcher.execute("/edit --final-newline no_eol.txt\none\ntwo\n").ok
    assert (ws / "no_eol.txt").read_bytes() == b"one\r\ntwo\r\n"  # CRLF, as the file's lines
    assert dispatcher.execute("/edit --no-final-newline no_eol.txt\none\n2\n").ok
    assert (ws / "no_eol.txt").read_bytes() == b"one\r\n2"
    assert body(dispatcher.execute("/edit --final-newline notes.md#x\nnew\n").text) == (
        "ERROR(INVALID_PAYLOAD): --final-newline and --no-final-newline are for a whole-file /edit\n"
        "Send the whole file: /edit --final-newline notes.md and the body.")
    assert body(dispatcher.execute("/edit --final-newline --no-final-newline no_eol.txt\nx\n").text) == (
        "ERROR(INVALID_PAYLOAD): Give --final-newline or --no-final-newline, not both\n"
        "--final-newline ends the file with a line break; --no-final-newline ends it without.")
    assert (ws / "no_eol.txt").read_bytes() == b"one\r\n2"
    assert (ws / "notes.md").read_bytes() == b"# T\n\n<!-- #x -->\nold\n<!-- /x -->"
    assert dispatcher.execute("/undo").ok
    assert (ws / "no_eol.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_block_edits_of_topics_committed_as_one_batch_each_land_and_the_page_is_not_parsed_again(
    ws: Path, dispatcher, monkeypatch
) -> None:
    """Topics editing their own block at once are one batch (group commit): each edit is spliced into the page the
    edit before it left, found again by id; that page is at hand, so nothing is parsed while the lock is held."""
    import threading

    from stringsh.render.document import Document

    topics = 3
    (ws / "doc.md").write_text("# Doc\n\n" + "".join(f"## Part {k}\n\nstart {k}\n\n" for k in range(topics)))
    for k in range(topics):
        assert dispatcher.execute(f"/open doc.md#part-{k}", topic=f"t{k}").ok  # each topic has read the page
    workspace = dispatcher.workspace
    parsed_locked: list[str] = []
    parse = Document.parse.__func__

    def counted(cls, text: str, sha256: str = "", cache=None):  # type: ignore[no-untyped-def]
        if workspace.state.holds_lock():
            parsed_locked.append(text)
        return parse(cls, text, sha256, cache)

    monkeypatch.setattr(Document, "parse", classmethod(counted))
    replies: dict[int, str] = {}

    def edit(k: int) -> None:
        replies[k] = dispatcher.execute(f"/edit doc.md#part-{k}\nvalue {k}\n", topic=f"t{k}").text

    with workspace.locked():  # every topic's edit queues behind this hold, then one leader commits them all
        threads = [threading.Thread(target=edit, args=(k,)) for k in range(topics)]
        for thread in threads:
            thread.start()
        while workspace.state.edit_group is None or workspace.state.edit_group.queued < topics:
            threading.Event().wait(0.01)
    for thread in threads:
        thread.join()
    assert replies == {k: f"re: /edit doc.md#part-{k}\nEdited doc.md#part-{k} (14 lines): 1 line replaced by 1 line"
                       for k in range(topics)}
    assert (ws / "doc.md").read_text() == "# Doc\n\n" + "".join(f"## Part {k}\n\nvalue {k}\n\n" for k in range(topics))
    assert parsed_locked == []
    assert sorted(row.topic for row in workspace.history(topics)) == [f"t{k}" for k in range(topics)]
