"""An OPERATOR_CMD block sent as a request to the String Commands front ends (the plain loop, the daemon framed
and --json, `-c`): answered with OPERATOR_RESULT inside the usual reply framing, in the request's topic, so
`/undo` and `/changes` there see the change."""

from __future__ import annotations

import json
from pathlib import Path

from tests.dialects.operator.operator_support import allow_changes, b64, block, files, invalid, result, run

WRITE = block("version: 1", "id: w1", "action: fs.write", "path: notes.md", "content_b64: " + b64("one\ntwo\n"))
MARK = "</𝒞>"


def replies(out: str) -> list[str]:
    """The plain loop's replies on pipes, each ended by the mark line."""
    parts = out.split(f"\n{MARK}\n")
    assert parts[-1] == "", out
    return parts[:-1]


def test_plain_loop_answers_a_block_and_undo_takes_it_back(ws: Path) -> None:
    allow_changes()
    done = run([], ws, WRITE + "/changes\n/undo\n/ls\n")
    got = replies(done.stdout.decode())
    assert got[0] == "re: OPERATOR_CMD\n" + result("w1", True, "Wrote file", change=1).rstrip("\n")
    assert got[1].startswith("re: /changes\nChanges, newest first")
    assert got[1].endswith("main  fs.write notes.md  notes.md +2 -0")
    assert got[2] == "re: /undo\nUndo: deleted notes.md (was newly created)"
    assert "notes.md" not in got[3]
    assert files(ws) == {}
    assert done.returncode == 0


def test_plain_loop_refusals_write_nothing_and_the_loop_goes_on(ws: Path) -> None:
    allow_changes()
    bad = block("version: 1", "id: bad", "action: fs.write", "path: x.md", "content_b64: " + b64(b"\xff"))
    fenced = "```\n" + block("version: 1", "id: crlf", "action: fs.write", "path: y.md",
                             "content: hi").replace("\n", "\r\n") + "```\n"
    nested = "OPERATOR_CMD\nversion: 1\nid: cut\n" + block("version: 1", "id: r", "action: fs.read", "path: y.md")
    done = run([], ws, bad + fenced + nested + "/ls\n" + "OPERATOR_CMD\nversion: 1\nid: open\n")
    got = replies(done.stdout.decode())
    assert got[0] == "re: OPERATOR_CMD\n" + invalid(
        "bad", "ERR_INVALID_UTF8", "field=content_b64 is not UTF-8 (byte 0xff at offset 0); encode the text as "
        "UTF-8.").rstrip("\n")
    # a fence line is not a request: it is answered as String Commands answer any text, the block inside runs
    assert got[1] == "re: ```\nERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nUse /help for details."
    assert got[2] == "re: OPERATOR_CMD\n" + result("crlf", True, "Wrote file", change=1).rstrip("\n")
    assert got[3] == got[1]
    assert got[4] == "re: OPERATOR_CMD\n" + (
        invalid("cut", "ERR_NESTED_BLOCK", "OPERATOR_CMD started before END_OPERATOR_CMD.")
        + result("r", True, "Read file", "hi")).rstrip("\n")
    assert got[5] == "re: /ls\nListing ./\n---\n  y.md"
    assert got[6] == "re: OPERATOR_CMD\n" + invalid(
        "open", "ERR_MISSING_END_MARKER", "reached end of text without END_OPERATOR_CMD.").rstrip("\n")
    assert files(ws) == {"y.md": b"hi"}
    assert done.returncode == 1


def test_daemon_framed_answers_in_the_requests_topic(ws: Path) -> None:
    allow_changes()
    stdin = ("<𝒞=string:agent>\n" + WRITE + "/undo\n</𝒞>\n"
             + block("version: 1", "id: spec", "action: fs.read", "path: notes.md"))
    done = run(["daemon"], ws, stdin)
    out = done.stdout.decode()
    # topics run in parallel: the main topic's reply may come between the agent topic's two
    wrote = "<𝒞=string:agent>\nre: OPERATOR_CMD\n" + result("w1", True, "Wrote file", change=1) + MARK + "\n"
    undone = "<𝒞=string:agent>\nre: /undo\nUndo: deleted notes.md (was newly created)\n" + MARK + "\n"
    assert wrote in out and undone in out and out.index(wrote) < out.index(undone)
    assert files(ws) == {}


def test_daemon_json_takes_a_block_as_cmd(ws: Path) -> None:
    (ws / "a.md").write_text("hello\n")
    line = json.dumps({"id": "j1", "cmd": block("version: 1", "id: r", "action: fs.read", "path: a.md")})
    done = run(["daemon", "--json"], ws, line + "\n")
    reply = json.loads(done.stdout)
    assert reply == {"id": "j1", "ok": True, "code": None, "topic": "main",
                     "content": "re: [j1] OPERATOR_CMD\n" + result("r", True, "Read file", "hello\n").rstrip("\n")}


def test_command_line_block(ws: Path) -> None:
    done = run(["-c", block("version: 1", "id: w", "action: fs.write", "path: a.md", "content: x")], ws, "")
    assert done.stdout.decode() == "re: OPERATOR_CMD\n" + result("w", False, (
        'not confirmed: no terminal to ask on; set [operator] confirm = "allow" in your own policy '
        "(<config>/policy.toml or --policy FILE) to let changes run unattended"))
    assert done.returncode == 1
    assert files(ws) == {}


def test_help_operator_states_the_reading_rules_and_the_spec(ws: Path) -> None:
    done = run(["-c", "/help operator"], ws, "")
    out = done.stdout.decode()
    assert out.startswith("re: /help operator\nOPERATOR_CMD Blocks\n---\nOPERATOR_CMD blocks are")
    assert "A line's trailing CR is removed (CRLF blocks work), then its trailing spaces and tabs" in out
    assert "Operator Interface Specification (version: 3; stringsh)" in out


def test_plain_agent_mode_on_a_pty_never_asks_its_own_terminal(ws: Path) -> None:
    """`--no-echo` on a pty: the terminal is the agent's, so "prompt" refuses at once instead of reading the
    agent's next request as the answer; the request after the block is answered as usual."""
    import os
    import sys

    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "stringsh", "--plain", "--no-echo"], cwd=str(ws),
                          env={**os.environ, "TERM": "dumb"}, encoding="utf-8", timeout=60)
    try:
        child.expect_exact("stringsh — /help lists commands")
        child.send(WRITE.replace("\n", "\r") + "/ls\r")
        child.expect_exact("re: /ls")
        out = child.before
        child.expect_exact(MARK)
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "Apply this change?" not in out
    assert "id: w1\r\nok: false\r\nsummary: not confirmed: no terminal to ask on" in out
    assert not (ws / "notes.md").exists()


def test_a_dispatcher_without_the_dialect_refuses_a_block_and_writes_nothing(ws: Path) -> None:
    """The dialect is a front end above the dispatcher: a dispatcher made without its answerer (a library caller's
    `Dispatcher(root)`) refuses the block; handed `serve.answer_request`, as cli.py hands it, it answers (under
    the user's policy's `[operator] confirm`)."""
    from stringsh.dialects.operator.serve import answer_request
    from stringsh.dispatcher import Dispatcher

    bare = Dispatcher(ws)
    try:
        assert bare.execute(WRITE).text == (
            "re: OPERATOR_CMD\nERROR(COMMAND_UNSUPPORTED): OPERATOR_CMD blocks are not answered here.\n"
            "`stringsh operator` answers OPERATOR_CMD blocks; this loop runs String Commands only.")
    finally:
        bare.close()
    assert files(ws) == {}
    allow_changes()
    served = Dispatcher(ws, blocks=answer_request)
    try:
        assert served.execute(WRITE).text == "re: OPERATOR_CMD\n" + result("w1", True, "Wrote file",
                                                                            change=1).rstrip("\n")
    finally:
        served.close()
    assert files(ws) == {"notes.md": b"one\ntwo\n"}


def test_folder_copy_is_one_engine_change_and_undo_removes_it(ws: Path) -> None:
    allow_changes()
    (ws / "src" / "sub").mkdir(parents=True)
    (ws / "src" / "a.md").write_text("a\n")
    (ws / "src" / "sub" / "b.md").write_text("b\n")
    (ws / "held").mkdir()
    (ws / "held" / ".env").write_text("TOKEN=1\n")
    before = files(ws)
    copy = block("version: 1", "id: c1", "action: fs.copy", "path: src", "path_to: out/src")
    secret = block("version: 1", "id: c2", "action: fs.copy", "path: held", "path_to: out/held")
    done = run([], ws, copy + secret + "/changes\n/undo\n")
    got = replies(done.stdout.decode())
    assert got[0] == "re: OPERATOR_CMD\n" + result("c1", True, "Copied", change=1).rstrip("\n")
    assert got[1] == "re: OPERATOR_CMD\n" + result(
        "c2", False, "SECRET_DENIED: Access to a secret file is denied: held/.env").rstrip("\n")
    assert got[2].endswith("main  fs.copy src out/src  out/ made, out/src/ made, out/src/sub/ made, "
                           "out/src/a.md +1 -0, out/src/sub/b.md +1 -0")
    assert got[3] == ("re: /undo\nUndo: deleted out/src/a.md (was newly created); deleted out/src/sub/b.md (was newly "
                      "created); removed folder out/src/sub; removed folder out/src; removed folder out")
    assert files(ws) == before and not (ws / "out").exists()
    assert done.returncode == 1  # a request was refused
