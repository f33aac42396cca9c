"""Every HARD RULE of the protocol and the newer validator's cases, through the real `python -m stringsh operator`
on pipes: each rule with a block that passes and one that fails (exact OPERATOR_RESULT text), nothing written by a
refused block, and the loop still answering the next block."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dialects.operator.operator_support import b64, block, files, invalid, operator, result

READ_OK = result("ok", True, "Read file", "hello\n")


def cmd(id: str, action: str, *lines: str, end: bool = True) -> str:
    return block("version: 1", f"id: {id}", f"action: {action}", *lines, end=end)


#: (name, input, the exact output it must produce). Every refused block names a file to write that must not appear.
CASES: list[tuple[str, str, str]] = [
    # HARD RULE 2: marker lines exact and alone
    ("marker_plain", cmd("ok", "fs.read", "path: a.md"), READ_OK),
    ("marker_crlf", cmd("ok", "fs.read", "path: a.md").replace("\n", "\r\n"), READ_OK),
    ("marker_trailing_blanks", "OPERATOR_CMD \t\nversion: 1  \nid: ok\naction: fs.read\t\npath: a.md \n"
                               "END_OPERATOR_CMD  \r\n", READ_OK),
    ("markdown_fence_around", "Here it is:\n```text\n" + cmd("ok", "fs.read", "path: a.md") + "```\nDone.\n",
     READ_OK),
    ("marker_not_alone", "OPERATOR_CMD please\nversion: 1\nid: n\naction: fs.write\npath: out.txt\ncontent: x\n"
                         "END_OPERATOR_CMD\n",
     invalid(None, "ERR_MARKER_NOT_ALONE", "line 'OPERATOR_CMD please' must be only OPERATOR_CMD")),
    ("end_marker_not_alone", cmd("e1", "fs.write", "path: out.txt", "content: x", end=False)
     + "END_OPERATOR_CMD now\nEND_OPERATOR_CMD\n",
     invalid("e1", "ERR_MARKER_NOT_ALONE", "line 'END_OPERATOR_CMD now' must be only END_OPERATOR_CMD")),
    ("marker_indented", "".join("  " + line + "\n" for line in
                                cmd("ind", "fs.write", "path: out.txt", "content: x").splitlines()),
     invalid("ind", "ERR_MARKER_INDENTED",
             "marker line '  OPERATOR_CMD' is indented or quoted; OPERATOR_CMD must start the line.")),
    ("marker_quoted", "".join("> " + line + "\n" for line in
                              cmd("q", "fs.write", "path: out.txt", "content: x").splitlines()),
     invalid("q", "ERR_MARKER_INDENTED",
             "marker line '> OPERATOR_CMD' is indented or quoted; OPERATOR_CMD must start the line.")),
    ("markdown_fence_inside", "OPERATOR_CMD\n```\nversion: 1\nid: f\naction: fs.write\npath: out.txt\ncontent: x\n"
                              "```\nEND_OPERATOR_CMD\n",
     invalid("f", "ERR_NON_KEY_VALUE_LINE", "line '```' is not key: value.")),
    # HARD RULE 3: only key: value lines, keys case-sensitive
    ("not_key_value", cmd("kv", "fs.write", "path: out.txt", "Please write this file", "content: x"),
     invalid("kv", "ERR_NON_KEY_VALUE_LINE", "line 'Please write this file' is not key: value.")),
    ("key_without_space", cmd("ks", "fs.write", "path: out.txt", "content:x"),
     invalid("ks", "ERR_NON_KEY_VALUE_LINE", "line 'content:x' is not key: value.")),
    ("key_indented", cmd("ki", "fs.write", "  path: out.txt", "content: x"),
     invalid("ki", "ERR_NON_KEY_VALUE_LINE", "line '  path: out.txt' is not key: value.")),
    ("empty_line", cmd("el", "fs.write", "path: out.txt", "", "content: x"),
     invalid("el", "ERR_EMPTY_LINE_IN_CMD", "empty line inside OPERATOR_CMD.")),
    ("key_case", cmd("kc", "fs.read", "Path: a.md"),
     invalid("kc", "ERR_ACTION_REQUIRES_PATH", "fs.* actions require path.")),
    ("key_case_id", block("version: 1", "ID: up", "action: fs.read", "path: a.md"),
     invalid(None, "ERR_MISSING_REQUIRED_FIELDS", "missing id")),
    ("duplicate_key", cmd("dk", "fs.write", "path: out.txt", "path: out2.txt", "content: x"),
     invalid("dk", "ERR_DUPLICATE_KEY", "key 'path' appears more than once.")),
    ("duplicate_id", block("version: 1", "id: first", "id: second", "action: fs.read", "path: a.md"),
     invalid("first", "ERR_DUPLICATE_KEY", "key 'id' appears more than once.")),
    ("control_character", cmd("cc", "fs.write", "path: out.txt", "content: a\x1b[2Jb"),
     invalid("cc", "ERR_CONTROL_CHARACTER", "line 'content: a\\x1b[2Jb' has control character U+001B.")),
    # HARD RULE 5/6: multi-line text only as base64; content single-line
    ("content_cr", cmd("cr", "fs.write", "path: out.txt", "content: a\rb"),
     invalid("cr", "ERR_CONTENT_HAS_NEWLINES", "content contains newline; use content_b64.")),
    ("b64_alphabet", cmd("b1", "fs.write", "path: out.txt", "content_b64: aGVs bG8="),
     invalid("b1", "ERR_INVALID_BASE64", "field=content_b64 is not valid base64 (character ' ' at offset 4).")),
    ("b64_urlsafe", cmd("b2", "fs.write", "path: out.txt", "content_b64: _-8="),
     invalid("b2", "ERR_INVALID_BASE64", "field=content_b64 is not valid base64 (character '_' at offset 0).")),
    ("b64_padding_missing", cmd("b3", "fs.write", "path: out.txt", "content_b64: aGVsbG8"),
     invalid("b3", "ERR_INVALID_BASE64", "field=content_b64 is not valid base64 (length 7 is not a multiple of 4).")),
    ("b64_padding_inside", cmd("b4", "fs.write", "path: out.txt", "content_b64: aG==bG8="),
     invalid("b4", "ERR_INVALID_BASE64", "field=content_b64 is not valid base64 ('=' before the end).")),
    ("b64_not_canonical", cmd("b5", "fs.write", "path: out.txt", "content_b64: aGVsbG9="),
     invalid("b5", "ERR_INVALID_BASE64",
             "field=content_b64 is not valid base64 (not canonical: the last character carries extra bits).")),
    ("b64_not_utf8", cmd("u8", "fs.write", "path: out.txt", "content_b64: " + b64(b"caf\xe9\n")),
     invalid("u8", "ERR_INVALID_UTF8",
             "field=content_b64 is not UTF-8 (byte 0xe9 at offset 3); encode the text as UTF-8.")),
    ("patch_b64_bad", cmd("pb", "fs.patch", "path: a.md", "patch_b64: ***"),
     invalid("pb", "ERR_INVALID_BASE64", "field=patch_b64 is not valid base64 (character '*' at offset 0).")),
    ("edits_b64_bad", cmd("eb", "fs.applyEdits", "path: a.md", "edits_b64: e30"),
     invalid("eb", "ERR_INVALID_BASE64", "field=edits_b64 is not valid base64 (length 3 is not a multiple of 4).")),
    ("write_both_contents", cmd("wb", "fs.write", "path: out.txt", "content: x", "content_b64: eA=="),
     invalid("wb", "ERR_CONFLICTING_CONTENT", "give content or content_b64, not both.")),
    ("write_no_content", cmd("wn", "fs.write", "path: out.txt"),
     invalid("wn", "ERR_MISSING_WRITE_CONTENT", "fs.write requires content or content_b64.")),
    # HARD RULE 7: version: 1, id, action
    ("version_2", block("version: 2", "id: v2", "action: fs.write", "path: out.txt", "content: x"),
     invalid("v2", "ERR_UNSUPPORTED_VERSION", "version must be 1.")),
    ("version_1_0", block("version: 1.0", "id: v10", "action: fs.write", "path: out.txt", "content: x"),
     invalid("v10", "ERR_UNSUPPORTED_VERSION", "version must be 1.")),
    ("missing_all", block("path: out.txt", "content: x"),
     invalid(None, "ERR_MISSING_REQUIRED_FIELDS", "missing version, id, action")),
    ("missing_version", block("id: nv", "action: fs.write", "path: out.txt", "content: x"),
     invalid("nv", "ERR_MISSING_REQUIRED_FIELDS", "missing version")),
    ("missing_action", block("version: 1", "id: na", "path: out.txt", "content: x"),
     invalid("na", "ERR_MISSING_REQUIRED_FIELDS", "missing action")),
    ("empty_id", block("version: 1", "id:", "action: fs.write", "path: out.txt", "content: x"),
     invalid(None, "ERR_MISSING_REQUIRED_FIELDS", "missing id")),
    # HARD RULE 8: the id echoed verbatim
    ("id_verbatim", cmd("Step 3/α: read it!", "fs.read", "path: a.md"),
     result("Step 3/α: read it!", True, "Read file", "hello\n")),
    ("unknown_action", cmd("ua", "fs.rmrf", "path: out.txt"),
     invalid("ua", "ERR_UNKNOWN_ACTION", "Unknown action: fs.rmrf")),
    ("unknown_key", cmd("uk", "fs.write", "path: out.txt", "content: x", "mode: 0777"),
     invalid("uk", "ERR_UNKNOWN_KEY", "unknown key 'mode' for fs.write (allowed: content, content_b64, path).")),
    # HARD RULE 9: path required for fs.*, forbidden otherwise
    ("path_missing", cmd("pm", "fs.write", "content: x"),
     invalid("pm", "ERR_ACTION_REQUIRES_PATH", "fs.* actions require path.")),
    ("path_empty", cmd("pe", "fs.write", "path:", "content: x"),
     invalid("pe", "ERR_ACTION_REQUIRES_PATH", "fs.* actions require path.")),
    ("path_forbidden", cmd("pf", "operator.getInterfaceSpec", "path: a.md"),
     invalid("pf", "ERR_ACTION_FORBIDS_PATH", "operator.* actions must not include path.")),
    # HARD RULE 10: no workspace fields
    ("workspace_field", cmd("w1", "fs.write", "path: out.txt", "content: x", "workspace: /tmp"),
     invalid("w1", "ERR_WORKSPACE_FIELD",
             "field 'workspace' is not allowed: the workspace is the folder stringsh serves; give paths relative to "
             "its root.")),
    ("workspace_root_field", cmd("w2", "fs.read", "path: a.md", "workspaceRoot: /"),
     invalid("w2", "ERR_WORKSPACE_FIELD",
             "field 'workspaceRoot' is not allowed: the workspace is the folder stringsh serves; give paths relative "
             "to its root.")),
    ("cwd_field", cmd("w3", "operator.getInterfaceSpec", "cwd: /etc"),
     invalid("w3", "ERR_WORKSPACE_FIELD",
             "field 'cwd' is not allowed: the workspace is the folder stringsh serves; give paths relative to its "
             "root.")),
    # upstream HEAD: required parameters
    ("search_without_query", cmd("sq", "fs.search", "path: a.md"),
     invalid("sq", "ERR_MISSING_QUERY", "missing query; use query: <text>.")),
    ("patch_without_patch", cmd("pp", "fs.patch", "path: a.md"),
     invalid("pp", "ERR_MISSING_PATCH_B64", "patch_b64 is required.")),
    ("stray_end_is_prose", "END_OPERATOR_CMD\n" + cmd("ok", "fs.read", "path: a.md"), READ_OK),
    ("too_many_lines", "OPERATOR_CMD\nversion: 1\nid: tl\naction: fs.write\npath: out.txt\n"
                       + "content: x\n" * 200 + "END_OPERATOR_CMD\n",
     invalid("tl", "ERR_BLOCK_TOO_LARGE", "too many lines (>200).")),
]


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], int, dict[str, bytes], dict[str, bytes]]:
    """All the cases through one `stringsh operator` process, each followed by a probe block so the answers can
    be cut per case; the files before and after."""
    ws = tmp_path_factory.mktemp("blocks")
    (ws / "a.md").write_text("hello\n")
    before = files(ws)
    stdin = "".join(text + cmd(f"probe-{index}", "operator.getInterfaceSpec") for index, (_, text, _) in
                    enumerate(CASES))
    out, status = operator(ws, stdin)
    cut: list[str] = []
    rest = out
    for index in range(len(CASES)):
        probe = f"OPERATOR_RESULT\nid: probe-{index}\nok: true\n"
        head, found, rest = rest.partition(probe)
        assert found, (index, out[:2000])
        cut.append(head)
        rest = rest.split("END_OPERATOR_RESULT\n", 1)[1]
    return cut, status, before, files(ws)


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[case[0] for case in CASES])
def test_block_rule(answers: tuple[list[str], int, dict[str, bytes], dict[str, bytes]], name: str, text: str,
                    expected: str) -> None:
    cut = answers[0]
    assert cut[[case[0] for case in CASES].index(name)] == expected


def test_refused_blocks_write_nothing_and_status_is_1(
    answers: tuple[list[str], int, dict[str, bytes], dict[str, bytes]],
) -> None:
    _, status, before, after = answers
    assert after == before
    assert status == 1


def test_nested_start_refuses_the_first_block_and_runs_the_second(ws: Path) -> None:
    (ws / "a.md").write_text("hello\n")
    text = "OPERATOR_CMD\nversion: 1\nid: cut\naction: fs.write\n" + cmd("ok", "fs.read", "path: a.md")
    out, status = operator(ws, text)
    assert out == invalid("cut", "ERR_NESTED_BLOCK", "OPERATOR_CMD started before END_OPERATOR_CMD.") + READ_OK
    assert status == 1


def test_missing_end_at_end_of_input(ws: Path) -> None:
    out, status = operator(ws, cmd("open", "fs.write", "path: out.txt", "content: x", end=False))
    assert out == invalid("open", "ERR_MISSING_END_MARKER", "reached end of text without END_OPERATOR_CMD.")
    assert status == 1
    assert files(ws) == {}


def test_prose_only_gives_no_answer_and_status_0(ws: Path) -> None:
    out, status = operator(ws, "I will now read the file.\nOPERATOR_RESULT\nok: true\nEND_OPERATOR_RESULT\n")
    assert (out, status) == ("", 0)


def test_all_ok_is_status_0(ws: Path) -> None:
    (ws / "a.md").write_text("hello\n")
    out, status = operator(ws, cmd("ok", "fs.read", "path: a.md") * 2)
    assert (out, status) == (READ_OK * 2, 0)


def test_answers_each_block_as_soon_as_its_end_arrives(ws: Path) -> None:
    """An agent waits for the answer before it sends more: the answer comes while stdin is still open."""
    import subprocess

    from tests.dialects.operator.operator_support import STRINGSH

    (ws / "a.md").write_text("hello\n")
    child = subprocess.Popen([*STRINGSH, "operator"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(cmd("ok", "fs.read", "path: a.md").encode())
        child.stdin.flush()
        got = b"".join(child.stdout.readline() for _ in READ_OK.splitlines())
        assert got.decode() == READ_OK
        child.stdin.write(cmd("ok", "fs.read", "path: a.md").encode())
        child.stdin.close()
        assert child.stdout.read().decode() == READ_OK
    finally:
        child.kill() if child.poll() is None else None
        child.wait()
