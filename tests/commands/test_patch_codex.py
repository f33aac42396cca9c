"""/patch with Codex's apply_patch format (`*** Begin Patch` …), in-process: the scenarios Codex's own fixtures
describe (add, delete, several chunks, move into a new folder, a pure addition, `*** End of File`, padded markers,
the refusals), the file's bytes kept (CRLF, no final newline only where the patch replaces that line), one change
set for one /undo, and every refusal leaving every file as it was, even where Codex would have written part."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError

FORMAT_HINT = ("Send '*** Begin Patch', then per file '*** Add File: path' (lines '+…'), '*** Delete File: path' or "
               "'*** Update File: path' (chunks: '@@', then ' ' context, '-' removed, '+' added lines), then "
               "'*** End Patch'.")


def files(ws: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*"))
            if p.is_file() and ".stringsh" not in p.parts}


def patch(*lines: str) -> str:
    return "/patch\n" + "".join(line + "\n" for line in lines)


def seed(ws: Path) -> dict[str, bytes]:
    (ws / "old").mkdir()
    (ws / "old" / "name.txt").write_bytes(b"keep\r\nold content\r\n")
    (ws / "multi.txt").write_bytes(b"line1\nline2\nline3\nline4\n")
    (ws / "no_newline.txt").write_bytes(b"no newline at end")
    (ws / "obsolete.txt").write_bytes(b"bye\n")
    (ws / "tail.py").write_bytes(b"def f():\n    return 1\n\ndef g():\n    return 1")
    return files(ws)


def test_every_operation_in_one_change_set_and_one_undo(dispatcher: Dispatcher, ws: Path) -> None:
    before = seed(ws)
    reply = dispatcher.execute(patch(
        "*** Begin Patch",
        "*** Add File: nested/new.txt",
        "+created",
        "*** Delete File: obsolete.txt",
        "*** Update File: multi.txt",
        "@@",
        "-line2",
        "+changed2",
        "@@",
        "-line4",
        "+changed4",
        "*** Update File: old/name.txt",
        "*** Move to: renamed/dir/name.txt",
        "@@",
        "-old content",
        "+new content",
        "*** Update File: no_newline.txt",
        "-no newline at end",
        "+first line",
        "+second line",
        "*** Update File: tail.py",
        "@@ def g():",
        "+    # one",
        "*** End Patch",
    ))
    assert reply.text == (
        "re: /patch\nPatched 6 files: nested/new.txt (created, +1), obsolete.txt (deleted, -1), multi.txt (+2 -2), "
        "old/name.txt → renamed/dir/name.txt (+1 -1), no_newline.txt (+2 -1), tail.py (+1 -0)"
    )
    assert files(ws) == {
        "multi.txt": b"line1\nchanged2\nline3\nchanged4\n",
        "nested/new.txt": b"created\n",
        "no_newline.txt": b"first line\nsecond line\n",  # the replaced last line: Codex's lines end with a break
        "renamed/dir/name.txt": b"keep\r\nnew content\r\n",  # moved, CRLF kept
        "tail.py": b"def f():\n    return 1\n\ndef g():\n    # one\n    return 1",  # untouched last line kept as is
    }
    assert dispatcher.execute("/undo").ok
    assert files(ws) == before


def test_pure_addition_end_of_file_and_padded_markers(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "input.txt").write_bytes(b"line1\r\nline2\r\n")
    (ws / "tail.txt").write_bytes(b"first\nsecond\nfirst\nsecond\n")
    reply = dispatcher.execute(patch(
        " *** Begin Patch",
        "  *** Update File: input.txt",
        "@@",
        "+added line 1",
        "+added line 2",
        "*** Update File: tail.txt",
        "@@",
        " first",
        "-second",
        "+second updated",
        "*** End of File",
        "*** End Patch ",
    ))
    assert reply.text == "re: /patch\nPatched 2 files: input.txt (+2 -0), tail.txt (+1 -1)"
    assert files(ws) == {"input.txt": b"line1\r\nline2\r\nadded line 1\r\nadded line 2\r\n",
                         "tail.txt": b"first\nsecond\nfirst\nsecond updated\n"}


def test_refusals_write_nothing(dispatcher: Dispatcher, ws: Path) -> None:
    before = seed(ws)
    (ws / "folder").mkdir()
    (ws / "folder" / "foo.txt").write_bytes(b"foo\n")
    before = files(ws)
    cases = {
        ("*** Begin Patch", "*** End Patch"): f"ERROR(INVALID_PAYLOAD): The patch names no file; nothing was "
                                              f"written.\n{FORMAT_HINT}",
        ("*** Begin Patch", "*** Frobnicate File: multi.txt", "*** End Patch"): (
            "ERROR(INVALID_PAYLOAD): Expected a file header ('*** Update File: path' …), found '*** Frobnicate File: "
            f"multi.txt' (line 2 of the patch); nothing was written.\n{FORMAT_HINT}"),
        ("*** Begin Patch", "*** Update File: multi.txt", "*** End Patch"): (
            "ERROR(INVALID_PAYLOAD): '*** Update File: multi.txt' has an empty chunk (it needs ' ', '-' or '+' "
            f"lines); nothing was written.\n{FORMAT_HINT}"),
        ("*** Begin Patch", "*** Update File: multi.txt", "@@", "-line1", "+x"): (
            "ERROR(INVALID_PAYLOAD): The patch does not end with '*** End Patch'; nothing was written."
            f"\n{FORMAT_HINT}"),
        ("*** Begin Patch", "*** Delete File: missing.txt", "*** End Patch"): (
            "ERROR(NOT_FOUND): File not found: missing.txt; nothing was written.\n'*** Delete File:' needs an "
            "existing file; '*** Add File: missing.txt' creates one."),
        ("*** Begin Patch", "*** Delete File: folder", "*** End Patch"): "ERROR(INVALID_TARGET): Is a directory: "
                                                                         "folder\nUse /ls folder",
        ("*** Begin Patch", "*** Add File: created.txt", "+hello", "*** Update File: multi.txt", "@@", "-missing",
         "+changed", "*** End Patch"): (
            "ERROR(PATCH_FAILED): Chunk 1 of multi.txt: its 1 context and removed lines (first: 'missing') are not "
            "in the file, exactly or with whitespace and Unicode punctuation relaxed. Nothing was written.\n"
            "Re-read those lines and redo the hunk: /open multi.txt"),
        ("*** Begin Patch", "*** Update File: multi.txt", "@@", "-line3", "+x", "@@", "-line1", "+y",
         "*** End Patch"): (
            "ERROR(PATCH_FAILED): Chunk 2 of multi.txt: its 1 context and removed lines (first: 'line1') are not "
            "in the file after line 3 (where chunk 1 ended), exactly or with whitespace and Unicode punctuation "
            "relaxed; it stands at line 1, before that (chunks come in the file's order). Nothing was written.\n"
            "Re-read those lines and redo the hunk: /open multi.txt"),
        ("*** Begin Patch", "*** Add File: folder/foo.txt", "+x", "*** End Patch"): (
            "ERROR(CONFLICT): folder/foo.txt already exists; '*** Add File:' creates a new file. Nothing was "
            "written.\nChange it with '*** Update File: folder/foo.txt', or add another path."),
        ("*** Begin Patch", "*** Update File: multi.txt", "*** Move to: folder/foo.txt", "@@", "-line1", "+x",
         "*** End Patch"): (
            "ERROR(CONFLICT): folder/foo.txt already exists; '*** Move to:' does not overwrite a file. Nothing was "
            "written.\nMove it to a new path, or delete folder/foo.txt first."),
        ("*** Begin Patch", "*** Add File: ../outside.txt", "+x", "*** End Patch"): (
            "ERROR(INVALID_PAYLOAD): The patch names '../outside.txt': paths are relative to the workspace, without "
            f"'..' (line 2 of the patch); nothing was written.\n{FORMAT_HINT}"),
    }
    for lines, expected in cases.items():
        assert dispatcher.execute(patch(*lines)).text == f"re: /patch\n{expected}", lines
        assert files(ws) == before, lines
    assert not (ws.parent / "outside.txt").exists()


def test_a_change_elsewhere_in_the_file_does_not_refuse_it(dispatcher: Dispatcher, ws: Path) -> None:
    """As for a unified diff, each hunk's context is its own guard: another client's line added at the end since
    this topic read the file does not refuse the patch."""
    (ws / "a.txt").write_bytes(b"one\ntwo\n")
    assert dispatcher.execute("/open a.txt").ok
    (ws / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: a.txt", "-two", "+2", "*** End Patch"))
    assert reply.ok, reply.text
    assert (ws / "a.txt").read_bytes() == b"one\n2\nthree\n"


def test_deletion_only_unicode_and_an_empty_context_line(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "lines.txt").write_bytes(b"line1\nline2\n\nline3\n")
    (ws / "foo.txt").write_bytes("line1\nnaïve café\nline3\n".encode())
    reply = dispatcher.execute(patch(
        "*** Begin Patch",
        "*** Update File: lines.txt",
        "@@",
        " line1",
        "-line2",
        "",  # the blank line's context, its leading space stripped by an editor
        " line3",
        "*** Update File: foo.txt",
        "@@",
        " line1",
        "-naïve café",
        "+naïve café ✅",
        "*** End Patch ",
    ))
    assert reply.text == "re: /patch\nPatched 2 files: lines.txt (+0 -1), foo.txt (+1 -1)"
    assert files(ws) == {"foo.txt": "line1\nnaïve café ✅\nline3\n".encode(), "lines.txt": b"line1\n\nline3\n"}


def test_the_engine_refuses_a_patch_over_the_policy_limit_for_every_dialect(ws: Path) -> None:
    """apply_codex (what the JSON tools call) checks `[limits] max_patch_bytes` as /patch does."""
    from stringsh.workspace.codexpatch import apply_codex

    (ws / "stringsh.toml").write_text("[limits]\nmax_patch_bytes = 100\n")
    body = "*** Begin Patch\n*** Add File: a.txt\n" + "+xxxxxxxxxx\n" * 20 + "*** End Patch\n"
    dispatcher = Dispatcher(ws)
    try:
        with pytest.raises(StringError) as refused:
            apply_codex(dispatcher.workspace, body, "tools")
        assert (refused.value.code, refused.value.message) == (
            "TOO_LARGE", "The patch is larger than the policy allows (290 > 100 bytes).")
        assert dispatcher.execute(f"/patch\n{body}").text.startswith("re: /patch\nERROR(TOO_LARGE): The patch is "
                                                                     "larger than the policy allows (290 > 100")
    finally:
        dispatcher.close()
    assert not (ws / "a.txt").exists()
