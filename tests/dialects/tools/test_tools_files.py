"""The JSON tools' `read`, `write`, `edit` scenarios through the real `stringsh tools`: exact replies, exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dialects.tools.client import call, use_sandbox

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
MULTIPLE = ("Found multiple matches for oldString. Provide more surrounding lines in oldString to identify the "
            "correct match.")


def ok(result: dict) -> dict:
    return {"id": 1, "ok": True, "result": result}


def text_read(content: str, total: int, size: int) -> dict:
    return ok({"content": content, "is_dir": False, "total_lines": total, "file_size": size, "is_binary": False})


# -- read -------------------------------------------------------------------------------------------------------

def test_read_entire_small_file(ws: Path) -> None:
    (ws / "README.md").write_text("# README\n\nContent...\n")
    assert call(ws, "read", {"file_path": "/workspace/README.md"}) == \
        text_read("1: # README\n2: \n3: Content...", 3, 21)


def test_read_file_with_offset_and_limit(ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 301)))
    reply = call(ws, "read", {"file_path": "/workspace/big.txt", "offset": 100, "limit": 50})
    size = (ws / "big.txt").stat().st_size
    assert reply == text_read("\n".join(f"{n}: line {n}" for n in range(100, 150)), 300, size)


def test_read_offset_past_the_end_is_refused(ws: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    assert call(ws, "read", {"file_path": "a.txt", "offset": 5}) == {
        "id": 1, "ok": False, "code": "INVALID_ARGS", "error": "read: offset 5 is past the end of a.txt (1 lines)."}


def test_read_non_existent_file(ws: Path) -> None:
    assert call(ws, "read", {"file_path": "/workspace/missing.md"}) == {
        "id": 1, "ok": False, "code": "NOT_FOUND", "error": "file not found: /workspace/missing.md"}


def test_read_directory_listing(ws: Path) -> None:
    (ws / "src" / "lib").mkdir(parents=True)
    (ws / "src" / "main.ts").write_text("x\n")
    (ws / "README.md").write_text("x\n")
    assert call(ws, "read", {"file_path": "/workspace"}) == ok(
        {"content": "README.md\nsrc/", "is_dir": True, "total_lines": 2, "file_size": 0, "is_binary": False})
    assert call(ws, "read", {"file_path": "/workspace/src"})["result"]["content"] == "lib/\nmain.ts"


def test_read_binary_file(ws: Path) -> None:
    (ws / "logo.png").write_bytes(PNG)
    assert call(ws, "read", {"file_path": "/workspace/logo.png"}) == ok(
        {"content": "", "is_dir": False, "total_lines": 0, "file_size": len(PNG), "is_binary": True,
         "file_type": "image/png"})


def test_read_crlf_file_shows_lines_without_cr(ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert call(ws, "read", {"file_path": "w.txt"}) == text_read("1: a\n2: b", 2, 6)


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", ".env"])
def test_read_outside_the_workspace_or_secret_is_refused(ws: Path, path: str) -> None:
    (ws / ".env").write_text("TOKEN=1\n")
    reply = call(ws, "read", {"file_path": path})
    assert reply["ok"] is False
    assert reply["code"] in {"FILE_NOT_ALLOWED", "INVALID_PATH", "SECRET_DENIED"}


@pytest.mark.parametrize("provider", ["local", "bubblewrap"])
def test_provider_abstraction_for_file_operations(ws: Path, provider: str) -> None:
    use_sandbox(provider)
    (ws / "README.md").write_text("# README\n\nContent...\n")
    assert call(ws, "read", {"file_path": "/workspace/README.md"}) == \
        text_read("1: # README\n2: \n3: Content...", 3, 21)
    assert call(ws, "bash", {"command": "cat README.md"})["result"]["stdout"] == "# README\n\nContent...\n"


# -- write ------------------------------------------------------------------------------------------------------

def test_write_new_file(ws: Path) -> None:
    assert call(ws, "write", {"file_path": "/workspace/new-file.ts", "content": "export const x = 1;"}) == \
        ok({"success": True, "file_path": "/workspace/new-file.ts", "change_id": 1})
    assert (ws / "new-file.ts").read_bytes() == b"export const x = 1;"


def test_overwrite_existing_file(ws: Path) -> None:
    (ws / "a.ts").write_bytes(b"old\r\nlines\r\nhere\r\n")
    assert call(ws, "write", {"file_path": "a.ts", "content": "new\n"}) == ok({"success": True, "file_path": "a.ts",
                                                                             "change_id": 1})
    assert (ws / "a.ts").read_bytes() == b"new\r\n"  # the entire content, in the file's own line ending


def test_write_over_latin1_keeps_latin1(ws: Path) -> None:
    (ws / "l.txt").write_bytes(b"caf\xe9\n")
    assert call(ws, "write", {"file_path": "l.txt", "content": "th\u00e9\n"}) == \
        ok({"success": True, "file_path": "l.txt", "change_id": 1})
    assert (ws / "l.txt").read_bytes() == b"th\xe9\n"


def test_edit_with_crlf_old_string_keeps_crlf(ws: Path) -> None:
    (ws / "crlf.txt").write_bytes(b"line one\r\nline two\r\nline three\r\n")
    args = {"file_path": "crlf.txt", "old_string": "line one\r\nline two", "new_string": "line 1\nline 2"}
    assert call(ws, "edit", args) == ok({"success": True, "lines_changed": 2, "replacements": 1, "change_id": 1})
    assert (ws / "crlf.txt").read_bytes() == b"line 1\r\nline 2\r\nline three\r\n"
    args = {"file_path": "crlf.txt", "old_string": "line 2\nline three", "new_string": "two\nthree"}  # as read shows it
    assert call(ws, "edit", args) == ok({"success": True, "lines_changed": 2, "replacements": 1, "change_id": 2})
    assert (ws / "crlf.txt").read_bytes() == b"line 1\r\ntwo\r\nthree\r\n"


def test_write_with_auto_create_directories(ws: Path) -> None:
    path = "/workspace/src/new/deep/file.ts"
    assert call(ws, "write", {"file_path": path, "content": "é\n"}) == ok({"success": True, "file_path": path,
                                                                          "change_id": 1})
    assert (ws / "src/new/deep/file.ts").read_bytes() == "é\n".encode()


@pytest.mark.parametrize(("path", "code"), [("/tmp/evil.txt", "FILE_NOT_ALLOWED"), ("../evil.txt", "INVALID_PATH"),
                                            (".env", "SECRET_DENIED"), ("stringsh.toml", "NOT_PERMITTED")])
def test_write_outside_or_protected_is_refused(ws: Path, path: str, code: str) -> None:
    reply = call(ws, "write", {"file_path": path, "content": "x"})
    assert (reply["ok"], reply["code"]) == (False, code)
    assert not (ws / ".env").exists() and not (ws / "stringsh.toml").exists() and not (ws.parent / "evil.txt").exists()


# -- edit -------------------------------------------------------------------------------------------------------

def test_successful_string_replacement(ws: Path) -> None:
    (ws / "server.ts").write_text("const host = 'x'\nconst port = 3000\nlisten(port)\n")
    assert call(ws, "edit", {"file_path": "/workspace/server.ts", "old_string": "const port = 3000",
                             "new_string": "const port = 8080"}) == \
        ok({"success": True, "lines_changed": 1, "replacements": 1, "change_id": 1})
    assert (ws / "server.ts").read_text() == "const host = 'x'\nconst port = 8080\nlisten(port)\n"


def test_old_string_not_found(ws: Path) -> None:
    (ws / "a.ts").write_text("abc\n")
    assert call(ws, "edit", {"file_path": "a.ts", "old_string": "xyz", "new_string": "q"}) == {
        "id": 1, "ok": False, "code": "NO_MATCH", "error": "oldString not found in content",
        "hint": "Read the file again and copy old_string exactly."}
    assert (ws / "a.ts").read_text() == "abc\n"


def test_multiple_matches_for_old_string(ws: Path) -> None:
    (ws / "a.ts").write_text("x = 1\nx = 1\n")
    assert call(ws, "edit", {"file_path": "a.ts", "old_string": "x = 1", "new_string": "x = 2"}) == {
        "id": 1, "ok": False, "code": "MULTIPLE_MATCHES", "error": MULTIPLE,
        "hint": "Or set replace_all to true to replace every match."}
    assert (ws / "a.ts").read_text() == "x = 1\nx = 1\n"


def test_replace_all_occurrences(ws: Path) -> None:
    (ws / "a.ts").write_text("foo()\nbar(foo)\nfoo\n")
    assert call(ws, "edit", {"file_path": "a.ts", "old_string": "foo", "new_string": "baz\nqux",
                             "replace_all": True}) == ok({"success": True, "lines_changed": 6, "replacements": 3,
                                                          "change_id": 1})
    assert (ws / "a.ts").read_text() == "baz\nqux()\nbar(baz\nqux)\nbaz\nqux\n"


def test_edit_keeps_crlf_and_bom(ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"\xef\xbb\xbfport = 3000\r\nhost = a\r\n")
    assert call(ws, "edit", {"file_path": "w.txt", "old_string": "port = 3000", "new_string": "port = 8080"}) == \
        ok({"success": True, "lines_changed": 1, "replacements": 1, "change_id": 1})
    assert (ws / "w.txt").read_bytes() == b"\xef\xbb\xbfport = 8080\r\nhost = a\r\n"


def test_edit_keeps_utf16(ws: Path) -> None:
    (ws / "u.txt").write_bytes("\ufeffa = 1\r\n".encode("utf-16-le"))
    assert call(ws, "edit", {"file_path": "u.txt", "old_string": "1", "new_string": "2"})["ok"] is True
    assert (ws / "u.txt").read_bytes() == "\ufeffa = 2\r\n".encode("utf-16-le")


@pytest.mark.parametrize(("args", "error"), [
    ({"old_string": "", "new_string": "x"}, "edit: 'old_string' must not be empty."),
    ({"old_string": "a", "new_string": "a"}, "edit: 'old_string' and 'new_string' are the same."),
])
def test_edit_bad_strings_are_refused(ws: Path, args: dict, error: str) -> None:
    (ws / "a.ts").write_text("a\n")
    reply = call(ws, "edit", {"file_path": "a.ts", **args})
    assert (reply["ok"], reply["code"], reply["error"]) == (False, "INVALID_ARGS", error)
    assert (ws / "a.ts").read_text() == "a\n"


def test_edit_missing_file(ws: Path) -> None:
    assert call(ws, "edit", {"file_path": "/workspace/no.ts", "old_string": "a", "new_string": "b"}) == {
        "id": 1, "ok": False, "code": "NOT_FOUND", "error": "file not found: /workspace/no.ts"}
