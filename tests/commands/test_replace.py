"""/replace (docs/string-commands.md) through `stringsh run` with heredoc bodies: exact replies and
exact bytes, ambiguity counted with overlaps, line targets, block delegation, secrets, /undo byte for byte."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh

MASK = "***REDACTED***"
TOKEN = "ghp_" + "Q7" * 18


def run(ws: Path, script: str) -> str:
    """The replies of a script run with --keep-going (stdout only: stderr has the summary)."""
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin=script)
    return proc.stdout.decode()


def req(header: str, body: str) -> str:
    return f"{header} <<EOF\n{body}EOF\n"


def test_unique_match_is_replaced_and_undone_byte_for_byte(ws: Path) -> None:
    raw = b"alpha\nbeta\ngamma\n"
    (ws / "a.txt").write_bytes(raw)
    out = run(ws, req("/replace a.txt", "beta\n---\nBETA\n") + "/undo\n")
    assert out == (
        "re: /replace a.txt\nReplaced 1 occurrence in a.txt\n"
        "re: /undo\nUndo: reverted a.txt (3 lines)\n"
    )
    assert (ws / "a.txt").read_bytes() == raw


def test_multi_line_old_text_and_empty_new_text(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"one\ntwo\nthree\nfour\n")
    assert run(ws, req("/replace a.txt", "two\nthree\n---\n")) == "re: /replace a.txt\nReplaced 1 occurrence in a.txt\n"
    assert (ws / "a.txt").read_bytes() == b"one\n\nfour\n"


def test_ambiguous_match_is_a_conflict_with_the_matches_listed(ws: Path) -> None:
    raw = b"foo = 1\nbar = 2\nfoo = 3\n"
    (ws / "a.txt").write_bytes(raw)
    assert run(ws, req("/replace a.txt", "foo\n---\nqux\n")) == (
        "re: /replace a.txt\n"
        "ERROR(CONFLICT): Old text matched 2 times in a.txt; refusing ambiguous replace.\n"
        "Use /replace <path> --all to replace every occurrence, or provide a larger unique old text.\n"
        "Matches:\n"
        "- ...foo = 1\\nbar = 2\\nfoo = 3\\n...\n"
        "- ...foo = 1\\nbar = 2\\nfoo = 3\\n...\n"
    )
    assert (ws / "a.txt").read_bytes() == raw


def test_preview_shows_forty_characters_each_side_and_three_matches(ws: Path) -> None:
    filler = "x" * 50
    (ws / "a.txt").write_text(f"{filler}KEY{filler}\n" * 4)
    out = run(ws, req("/replace a.txt", "KEY\n---\nK\n"))
    assert out.startswith("re: /replace a.txt\nERROR(CONFLICT): Old text matched 4 times in a.txt;")
    listed = out.split("Matches:\n", 1)[1].splitlines()
    assert listed == ["- ..." + "x" * 40 + "KEY" + "x" * 40 + "..."] * 3


def test_all_replaces_every_match_with_the_flag_before_or_after_the_path(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"colour\nthe colour red\n")
    (ws / "b.txt").write_bytes(b"colour colour colour\n")
    out = run(ws, req("/replace --all a.txt", "colour\n---\ncolor\n")
              + req("/replace b.txt --all", "colour\n---\nhue\n"))
    assert out == (
        "re: /replace --all a.txt\nReplaced 2 occurrences in a.txt\n"
        "re: /replace b.txt --all\nReplaced 3 occurrences in b.txt\n"
    )
    assert (ws / "a.txt").read_bytes() == b"color\nthe color red\n"
    assert (ws / "b.txt").read_bytes() == b"hue hue hue\n"


def test_overlapping_matches_are_counted_and_all_refuses_them(ws: Path) -> None:
    """An overlapping repeat (docs/hazards.md): `foo\\nfoo\\n` in `foo\\nfoo\\nfoo\\n` is two matches, not one."""
    raw = b"foo\nfoo\nfoo\n"
    (ws / "o.txt").write_bytes(raw)
    out = run(ws, req("/replace o.txt", "foo\nfoo\n---\nbar\n") + req("/replace --all o.txt", "foo\nfoo\n---\nbar\n"))
    listed = "Matches:\n- ...foo\\nfoo\\nfoo\\n...\n- ...foo\\nfoo\\nfoo\\n...\n"
    assert out == (
        "re: /replace o.txt\n"
        "ERROR(CONFLICT): Old text matched 2 times in o.txt; refusing ambiguous replace.\n"
        "Use /replace <path> --all to replace every occurrence, or provide a larger unique old text.\n" + listed +
        "re: /replace --all o.txt\n"
        "ERROR(CONFLICT): Old text matched 2 times in o.txt and the matches overlap; --all cannot replace each of "
        "them.\nProvide a larger unique old text, or replace lines: /replace o.txt:L3-L4 (see /edit o.txt).\n" + listed
    )
    assert (ws / "o.txt").read_bytes() == raw


def test_not_found_missing_separator_empty_old_and_no_change_are_refused(ws: Path) -> None:
    raw = b"alpha\n"
    (ws / "a.txt").write_bytes(raw)
    out = run(
        ws,
        req("/replace a.txt", "omega\n---\nx\n") + req("/replace a.txt", "alpha\n") + req("/replace a.txt", "---\nx\n")
        + req("/replace a.txt", "alpha\n---\nalpha\n") + "/replace a.txt\n" + req("/replace", "a\n---\nb\n")
        + req("/replace --bogus a.txt", "a\n---\nb\n") + req("/replace nope.txt", "a\n---\nb\n"),
    )
    assert out == (
        "re: /replace a.txt\nERROR(NOT_FOUND): Old text not found in a.txt.\n"
        "Copy the old text exactly from /edit a.txt (spaces and line breaks count).\n"
        "re: /replace a.txt\nERROR(INVALID_PAYLOAD): Substring replace body must contain a separator line:\n"
        "/replace <path>\nold text\n---\nnew text\n"
        "re: /replace a.txt\nERROR(INVALID_PAYLOAD): Old text cannot be empty.\n"
        "Put the text to find above the --- line.\n"
        "re: /replace a.txt\nERROR(INVALID_PAYLOAD): Old and new text are the same; nothing would change.\n"
        "Put the text to find above the --- line and its replacement below it.\n"
        "re: /replace a.txt\nERROR(INVALID_PAYLOAD): Usage: /replace <target>\n<replacement body>\n"
        "Forms: /replace [--all] path (body: old text, a line ---, new text), /replace path#block or "
        "/replace path:L5[-L10] (body: the replacement).\n"
        "re: /replace\nERROR(INVALID_TARGET): Usage: /replace [--all] <path>[#block | :L5[-L10]]\n"
        "Forms: /replace [--all] path (body: old text, a line ---, new text), /replace path#block or "
        "/replace path:L5[-L10] (body: the replacement).\n"
        "re: /replace --bogus a.txt\nERROR(INVALID_PAYLOAD): Unknown flag for /replace: --bogus\n"
        "Flags of /replace: --all. A path that starts with - goes after --: /replace -- --bogus\n"
        "re: /replace nope.txt\nERROR(NOT_FOUND): File not found: nope.txt\n/ls shows what is there.\n"
    )
    assert (ws / "a.txt").read_bytes() == raw


def test_crlf_and_bom_are_kept_and_lf_old_text_finds_crlf_lines(ws: Path) -> None:
    raw = "\ufeffkeep é\r\nold one\r\nold two\r\ntail".encode()
    (ws / "w.txt").write_bytes(raw)
    out = run(ws, req("/replace w.txt", "old one\nold two\n---\nnew 1\nnew 2\nnew 3\n") + "/undo\n")
    assert out.startswith("re: /replace w.txt\nReplaced 1 occurrence in w.txt\nre: /undo\nUndo: reverted w.txt")
    run(ws, req("/replace w.txt", "old one\nold two\n---\nnew 1\nnew 2\nnew 3\n"))
    assert (ws / "w.txt").read_bytes() == "\ufeffkeep é\r\nnew 1\r\nnew 2\r\nnew 3\r\ntail".encode()


def test_lf_old_text_never_matches_half_of_a_crlf(ws: Path) -> None:
    """`a\\n\\nb` is two line breaks; `a\\r\\nb` has one: no match."""
    (ws / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert run(ws, req("/replace w.txt", "a\n\nb\n---\nx\n")).startswith(
        "re: /replace w.txt\nERROR(NOT_FOUND): Old text not found in w.txt."
    )


def test_dollar_and_backslash_in_new_text_are_literal(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"price\n")
    run(ws, req("/replace a.txt", "price\n---\n$& $1 $$ \\1 \\n\n"))
    assert (ws / "a.txt").read_bytes() == b"$& $1 $$ \\1 \\n\n"


# -- line targets ----------------------------------------------------------------------------------------------------


def test_line_target_replaces_one_line_and_a_range_may_grow_the_file(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"1\n2\n3\n4\n5\n")
    out = run(ws, req("/replace a.txt:L2", "two\n") + req("/replace a.txt:L3-L4", "three\nthree b\nfour\n"))
    assert out == "re: /replace a.txt:L2\nReplaced a.txt:L2\nre: /replace a.txt:L3-L4\nReplaced a.txt:L3-L4\n"
    assert (ws / "a.txt").read_bytes() == b"1\ntwo\nthree\nthree b\nfour\n5\n"


def test_line_range_keeps_each_line_ending_and_undo_restores_bytes(ws: Path) -> None:
    raw = b"a\r\nb\nc\r\nd"
    (ws / "m.txt").write_bytes(raw)
    run(ws, req("/replace m.txt:L2-L4", "B\nC\nD\nE\n"))
    # B, C and E take the endings of b, c and d (d had none); the extra D takes the last ending the range had
    assert (ws / "m.txt").read_bytes() == b"a\r\nB\nC\r\nD\r\nE"
    (ws / "m.txt").write_bytes(raw)
    out = run(ws, req("/replace m.txt:L2-L4", "B\nC\nD\nE\n") + "/undo\n")
    assert out.startswith("re: /replace m.txt:L2-L4\nReplaced m.txt:L2-L4\nre: /undo\nUndo: reverted m.txt")
    assert (ws / "m.txt").read_bytes() == raw


def test_empty_body_removes_lines_and_one_empty_line_stays_one(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"1\n2\n3\n")
    (ws / "b.txt").write_bytes(b"1\n2\n3")
    run(ws, req("/replace a.txt:L2", "") + req("/replace b.txt:L3", ""))
    assert (ws / "a.txt").read_bytes() == b"1\n3\n"
    assert (ws / "b.txt").read_bytes() == b"1\n2"
    run(ws, req("/replace a.txt:L1", "\n"))
    assert (ws / "a.txt").read_bytes() == b"\n3\n"


def test_bad_line_targets_are_invalid_target_and_change_nothing(ws: Path) -> None:
    raw = b"1\n2\n3\n"
    (ws / "a.txt").write_bytes(raw)
    out = run(ws, "".join(req(f"/replace {t}", "x\n") for t in
                          ("a.txt:L4", "a.txt:L2-L9", "a.txt:L0", "a.txt:L5-L3", "a.txt:Lx", "a.txt:L2-")))
    assert out == (
        "re: /replace a.txt:L4\nERROR(INVALID_TARGET): Line range out of bounds: a.txt:L4 (file has 3 lines)\n"
        "Recovery: run /edit a.txt for current line numbers.\n"
        "re: /replace a.txt:L2-L9\nERROR(INVALID_TARGET): Line range out of bounds: a.txt:L2-L9 (file has 3 lines)\n"
        "Recovery: run /edit a.txt for current line numbers.\n"
        "re: /replace a.txt:L0\nERROR(INVALID_TARGET): Invalid line range: L0-L0\n"
        "Lines count from 1 and a range runs upward, as in a.txt:L1.\n"
        "re: /replace a.txt:L5-L3\nERROR(INVALID_TARGET): Invalid line range: L5-L3\n"
        "Lines count from 1 and a range runs upward, as in a.txt:L3-L5.\n"
        "re: /replace a.txt:Lx\nERROR(INVALID_TARGET): Invalid line range: a.txt:Lx\n"
        "Name lines as a.txt:L5 or a.txt:L3-L4 (1-based, inclusive).\n"
        "re: /replace a.txt:L2-\nERROR(INVALID_TARGET): Invalid line range: a.txt:L2-\n"
        "Name lines as a.txt:L5 or a.txt:L3-L4 (1-based, inclusive).\n"
    )
    assert (ws / "a.txt").read_bytes() == raw


def test_all_with_a_line_target_is_refused(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"1\n")
    assert run(ws, req("/replace --all a.txt:L1", "x\n")) == (
        "re: /replace --all a.txt:L1\nERROR(INVALID_PAYLOAD): --all is for old/new text, not for a.txt:L1\n"
        "Leave --all out: /replace a.txt:L1\n"
    )


# -- blocks, secrets, encodings, diff ----------------------------------------------------------------------------------


def test_block_target_delegates_to_the_block_edit(ws: Path) -> None:
    raw = b"# T\n\n## Setup\n\nold step\n\n## Use\n\nrun\n"
    (ws / "r.md").write_bytes(raw)
    out = run(ws, req("/replace r.md#setup", "new step\n") + "/undo\n" + req("/replace r.txt#x", "y\n"))
    assert out.startswith(
        "re: /replace r.md#setup\nEdited r.md#setup (9 lines): 1 line replaced by 1 line\nre: /undo\n"
        "Undo: reverted r.md"
    )
    assert out.endswith("re: /replace r.txt#x\nERROR(NOT_FOUND): File not found: r.txt\n/ls shows what is there.\n")
    assert (ws / "r.md").read_bytes() == raw


def test_masked_secret_is_never_written_back_nor_shown(ws: Path) -> None:
    raw = f"name = app\ntoken = {TOKEN}\nname = app\n".encode()
    (ws / "c.txt").write_bytes(raw)
    out = run(
        ws,
        req("/replace c.txt:L2", f"token = {MASK}\n")
        + req("/replace c.txt", f"token = {MASK}\n---\ntoken = new\n")
        + req("/replace c.txt", "name\n---\nlabel\n"),
    )
    assert TOKEN not in out
    assert out == (
        "re: /replace c.txt:L2\nERROR(INVALID_PAYLOAD): Refusing to write c.txt:L2: the body contains "
        f"{MASK} where the file holds a secret; nothing was written.\nstringsh shows secrets masked. Rewrite those "
        "lines in full with their real text, or edit that part outside stringsh.\n"
        f"re: /replace c.txt\nERROR(NOT_FOUND): Old text not found in c.txt.\nThe old text holds {MASK}: secrets "
        "are shown masked and never match the file. Use a line target instead: /replace c.txt:L5 (see /edit c.txt).\n"
        "re: /replace c.txt\nERROR(CONFLICT): Old text matched 2 times in c.txt; refusing ambiguous replace.\n"
        "Use /replace <path> --all to replace every occurrence, or provide a larger unique old text.\nMatches:\n"
        f"- ...name = app\\ntoken = {MASK}...\n"
        f"- ...token = {MASK}\\nname = app\\n...\n"
    )
    assert (ws / "c.txt").read_bytes() == raw


def test_secret_files_are_refused_and_latin1_files_stay_latin1(ws: Path) -> None:
    (ws / ".env").write_bytes(b"KEY=1\n")
    (ws / "l.txt").write_bytes(b"caf\xe9\nend")
    out = run(ws, req("/replace .env", "KEY\n---\nK\n") + req("/replace l.txt:L1", "th\xe9\n"))
    replies = out.split("re: ")[1:]
    assert replies[0].startswith("/replace .env\nERROR(SECRET_DENIED)")
    assert replies[1] == "/replace l.txt:L1\nReplaced l.txt:L1\n"
    assert (ws / ".env").read_bytes() == b"KEY=1\n"
    assert (ws / "l.txt").read_bytes() == b"th\xe9\nend"


def test_diff_is_appended_when_asked(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"1\n2\n3\n")
    out = run(ws, "/set {_diff} = on\n" + req("/replace a.txt:L2", "two\n") + req("/replace a.txt", "3\n---\nthree\n"))
    assert out.split("re: /replace a.txt:L2\n", 1)[1] == (
        "Replaced a.txt:L2\n---\n1 1 | 1\n2   - 2\n  2 + two\n3 3 | 3\n---\nUse /undo to revert.\n"
        "re: /replace a.txt\nReplaced 1 occurrence in a.txt\n---\n1 1 | 1\n2 2 | two\n3   - 3\n  3 + three\n---\n"
        "Use /undo to revert.\n"
    )


def test_help_page_lists_replace(ws: Path) -> None:
    out = run(ws, "/help replace\n")
    assert out.startswith("re: /help replace\n")
    assert "Replace exact text, a range of lines, or a block of a file." in out


def test_the_open_document_follows_a_replace(ws: Path) -> None:
    (ws / "n.md").write_text("# N\n\nold text\n")
    out = run(ws, "/open n.md\n" + req("/replace n.md", "old\n---\nnew\n") + "/open\n")
    assert out.endswith(
        "re: /replace n.md\nReplaced 1 occurrence in n.md\nre: /open\nOpened n.md\n---\n# N\n\nnew text\n"
    )


def test_a_folder_a_binary_file_an_ambiguous_file_and_a_missing_one_are_refused_as_a_read_words_them(ws: Path) -> None:
    """The file is read once, by the engine under its lock; a refusal reads it again to say why, as a read would,
    and nothing is written."""
    (ws / "folder").mkdir()
    (ws / "img.bin").write_bytes(b"x\x00y")
    (ws / "mixed.txt").write_bytes(b"caf\xe9 \xc3\xa9\n")
    body = "x\n---\nz\n"
    out = run(ws, "".join(req(f"/replace {name}", body) for name in ("folder", "img.bin", "mixed.txt", "nope.txt"))
              + "/changes\n")
    assert out == (
        "re: /replace folder\nERROR(INVALID_TARGET): Is a directory: folder\nUse /ls folder\n"
        "re: /replace img.bin\nERROR(BINARY_FILE): Binary file: img.bin (application/octet-stream, 3 bytes)\n"
        "re: /replace mixed.txt\nERROR(ENCODING): mixed.txt is not valid UTF-8, yet parts of it are: its encoding is "
        "ambiguous, so it is not edited; nothing was changed.\n"
        "Read it with /open mixed.txt; repair its bytes or convert it (!iconv), then edit it.\n"
        "re: /replace nope.txt\nERROR(NOT_FOUND): File not found: nope.txt\n/ls shows what is there.\n"
        "re: /changes\nNo changes in the journal yet.\n"
    )
    assert (ws / "img.bin").read_bytes() == b"x\x00y"
    assert (ws / "mixed.txt").read_bytes() == b"caf\xe9 \xc3\xa9\n"
    assert sorted(path.name for path in ws.iterdir() if path.name != ".stringsh") == ["folder", "img.bin", "mixed.txt"]
