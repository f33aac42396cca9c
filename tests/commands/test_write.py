"""/write: exact replies, the stale-write guard, --force, the one-line form, fidelity and refusals."""

from __future__ import annotations

from pathlib import Path

from stringsh.workspace import mark_seen


def test_create_then_guarded_overwrite(ws: Path, dispatcher) -> None:
    assert dispatcher.execute("/write notes/todo.md\n- a\n- b\n").text == (
        "re: /write notes/todo.md\nCreated: notes/todo.md (8 bytes, 2 lines)"
    )
    assert (ws / "notes" / "todo.md").read_bytes() == b"- a\n- b\n"
    # this topic wrote it, so it knows the content
    assert dispatcher.execute("/write notes/todo.md\n- c\n").text == (
        "re: /write notes/todo.md\nWritten: notes/todo.md (4 bytes, 1 line)"
    )


def test_refuses_an_existing_file_this_topic_has_not_read(ws: Path, dispatcher) -> None:
    (ws / "todo.md").write_text("- mine\n")
    assert dispatcher.execute("/write todo.md <<EOF\n- ship the tour\nEOF").text == (
        "re: /write todo.md\n"
        "ERROR(CONFLICT): Refusing to overwrite existing file not read in this topic: todo.md\n"
        "Run /open todo.md or /edit todo.md first, then retry. "
        "Use --force only when you intend to replace the whole file."
    )
    assert (ws / "todo.md").read_text() == "- mine\n"
    # another topic's write does not count as this topic having read it
    assert dispatcher.execute("/write other.md\nx\n", topic="t2").ok
    assert dispatcher.execute("/write other.md\ny\n").code == "CONFLICT"


def test_force_replaces_and_undo_restores(ws: Path, dispatcher) -> None:
    (ws / "todo.md").write_text("- mine\n")
    assert dispatcher.execute("/write --force todo.md\n- new\n").text == (
        "re: /write --force todo.md\nWritten: todo.md (6 bytes, 1 line)"
    )
    assert dispatcher.execute("/write todo.md --force\n- newer\n").text == (
        "re: /write todo.md --force\nWritten: todo.md (8 bytes, 1 line)"
    )
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted todo.md (1 line)"
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted todo.md (1 line)"
    assert (ws / "todo.md").read_text() == "- mine\n"


def test_seen_file_may_be_overwritten_until_it_changes(ws: Path, dispatcher) -> None:
    (ws / "todo.md").write_text("- mine\n")
    session = dispatcher.session("main")
    mark_seen(session.seen, dispatcher.workspace, "todo.md")  # what /open and /edit do after reading
    assert (
        dispatcher.execute("/write todo.md\n- ok\n").text == "re: /write todo.md\nWritten: todo.md (5 bytes, 1 line)"
    )
    (ws / "todo.md").write_text("- someone else\n")
    assert dispatcher.execute("/write todo.md\n- lost?\n").text == (
        "re: /write todo.md\nERROR(CONFLICT): Refusing to overwrite todo.md: it changed since this topic read it.\n"
        "Run /open todo.md or /edit todo.md again, then retry. "
        "Use --force only when you intend to replace the whole file."
    )
    assert (ws / "todo.md").read_text() == "- someone else\n"


def test_one_line_form_adds_a_final_newline(ws: Path, dispatcher) -> None:
    assert dispatcher.execute("/write note.txt hello   world").text == (
        "re: /write note.txt hello   world\nCreated: note.txt (14 bytes, 1 line)"
    )
    assert (ws / "note.txt").read_bytes() == b"hello   world\n"
    assert dispatcher.execute('/write "my notes/a b.txt" two words').text == (
        're: /write "my notes/a b.txt" two words\nCreated: my notes/a b.txt (10 bytes, 1 line)'
    )
    assert (ws / "my notes" / "a b.txt").read_text() == "two words\n"


def test_variables_in_the_path(ws: Path, dispatcher) -> None:
    dispatcher.execute('/set {version} = "1.4.0"')
    assert dispatcher.execute("/write notes/release-{version}.md <<EOF\n# Release notes\nEOF").text == (
        "re: /write notes/release-{version}.md\nCreated: notes/release-1.4.0.md (16 bytes, 1 line)"
    )


def test_empty_body_creates_an_empty_file(ws: Path, dispatcher) -> None:
    assert (
        dispatcher.execute("/write empty.txt <<EOF\nEOF").text
        == "re: /write empty.txt\nCreated: empty.txt (0 bytes, 0 lines)"
    )
    assert (ws / "empty.txt").read_bytes() == b""


def test_keeps_crlf_bom_and_mode_of_an_existing_file(ws: Path, dispatcher) -> None:
    (ws / "win.txt").write_bytes(b"\xef\xbb\xbfold\r\n")
    (ws / "win.txt").chmod(0o755)
    assert dispatcher.execute("/write --force win.txt\na\nb\n").text == (
        "re: /write --force win.txt\nWritten: win.txt (9 bytes, 2 lines)"
    )
    assert (ws / "win.txt").read_bytes() == b"\xef\xbb\xbfa\r\nb\r\n"
    assert (ws / "win.txt").stat().st_mode & 0o777 == 0o755


def test_usage_and_target_errors(ws: Path, dispatcher) -> None:
    (ws / "dir").mkdir()
    assert dispatcher.execute("/write").text == (
        "re: /write\nERROR(INVALID_PAYLOAD): Usage: /write path <<EOF … EOF, or /write path text\n"
        "Give a path, then the content in the body."
    )
    assert dispatcher.execute("/write a.txt").text == (
        "re: /write a.txt\nERROR(INVALID_PAYLOAD): Usage: /write path <<EOF … EOF, or /write path text\n"
        "Give the content in the body (after the first line or <<EOF)."
    )
    assert dispatcher.execute("/write a.txt inline\nbody\n").code == "INVALID_PAYLOAD"
    assert (
        dispatcher.execute("/write dir\nx\n").text
        == "re: /write dir\nERROR(INVALID_TARGET): Is a directory: dir\nUse /ls dir"
    )
    assert dispatcher.execute("/write README.md#install\nx\n").text == (
        "re: /write README.md#install\nERROR(INVALID_TARGET): /write takes a whole file: README.md#install\n"
        "Use /edit path#block to replace a block."
    )
    assert dispatcher.execute("/write .env\nK=1\n").code == "SECRET_DENIED"
    assert dispatcher.execute("/write ../x\nK=1\n").code == "INVALID_PATH"
    assert dispatcher.execute("/write a\udcff.txt\nx\n").code in {"INVALID_PATH", "INVALID_PAYLOAD"}
    assert sorted(p.name for p in ws.iterdir() if p.name != ".stringsh") == ["dir"]


def test_lone_surrogate_in_body_is_an_encoding_error(ws: Path, dispatcher) -> None:
    assert dispatcher.execute("/write s.txt\nbad \udc80\n").text == (
        "re: /write s.txt\nERROR(ENCODING): Text for s.txt has a character UTF-8 cannot hold at index 4; "
        "nothing was written."
    )
    assert not (ws / "s.txt").exists()


def test_one_line_text_with_an_apostrophe_or_a_lone_quote(ws: Path, dispatcher) -> None:
    # The text is kept as typed, so it is not shell-split: an apostrophe must not be an unclosed quote.
    assert dispatcher.execute("/write note.txt Don't forget").text == (
        "re: /write note.txt Don't forget\nCreated: note.txt (13 bytes, 1 line)"
    )
    assert dispatcher.execute('/append note.txt it\'s "quoted').text == (
        're: /append note.txt it\'s "quoted\nAppended to: note.txt (now 26 bytes)'
    )
    assert (ws / "note.txt").read_text() == "Don't forget\nit's \"quoted\n"
    dispatcher.execute('/set {who} = "Ada"')
    assert dispatcher.execute("/write 'by {who}.txt' {who}'s").text == (
        "re: /write 'by {who}.txt' {who}'s\nCreated: by Ada.txt (6 bytes, 1 line)"
    )
    assert (ws / "by Ada.txt").read_text() == "Ada's\n"
    assert dispatcher.execute("/write 'open.txt").code == "INVALID_PAYLOAD"


def test_a_path_ending_in_a_slash_names_a_folder_not_a_new_file(ws: Path, dispatcher) -> None:
    refused = "ERROR(INVALID_PATH): Not a file name (it ends with /): {0}\nGive the file's name after the folder."
    for path in ("notes/", "notes/.", "deep/er/"):
        assert dispatcher.execute(f"/write {path} hello").text == f"re: /write {path} hello\n" + refused.format(path)
    (ws / "a.txt").write_text("a\n")
    assert dispatcher.execute("/append a.txt/ more").code == "INVALID_PATH"
    assert dispatcher.execute("/write sub/new.txt/ x").code == "INVALID_PATH"
    assert sorted(p.name for p in ws.iterdir() if p.name != ".stringsh") == ["a.txt"]
