"""One request context for every front end: each request, accepted or refused, whatever dialect asked, leaves
exactly one audit record (its op, the engine operations it ran, its paths, changes and outcome), and every change
set names the request that made it. The context follows the request, not the thread: two requests at once never
see each other's, a request inside a request is part of the outer one, and a library call outside any request is
recorded per operation. Driven in-process through the functions each front end calls per request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.dialects.operator.actions import run_action
from stringsh.dialects.operator.serve import answer as operator_answer
from stringsh.dialects.tools.cli import answer as tools_answer
from stringsh.dispatcher import Dispatcher
from stringsh.protocol.operator_model import Invalid
from stringsh.workspace import Workspace
from stringsh.workspace.context import current
from stringsh.workspace.state import AUDIT_FILE
from tests.dialects.operator.actions_support import Recorder, command


@pytest.fixture
def dispatcher(ws: Path) -> Iterator[Dispatcher]:
    (ws / "notes.md").write_text("# Notes\n\nport = 3000\n")
    made = Dispatcher(ws)
    yield made
    made.close()


def records(workspace: Workspace) -> list[dict[str, object]]:
    path = workspace.state.path / AUDIT_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def summary(record: dict[str, object]) -> tuple[object, ...]:
    return (record["frontend"], record["topic"], record["op"], record["ops"], record["paths"], record["outcome"],
            record.get("change"))


def test_every_string_command_request_is_one_record_refused_or_not(dispatcher: Dispatcher) -> None:
    replies = [dispatcher.execute(text) for text in (
        "/open notes.md", "/replace notes.md\nport = 3000\n---\nport = 8080\n", "/frob x", "/open 'unclosed",
        "/open missing.md", "!exit 3", "/help")]
    assert [reply.ok for reply in replies] == [True, True, False, False, False, False, True]
    assert [summary(r) for r in records(dispatcher.workspace)] == [
        ("string", "main", "/open", ["read"], ["notes.md"], "ok", None),
        # the file is read again under the lock, where the old text must match (the part guard), then changed
        ("string", "main", "/replace", ["read", "apply", "read"], ["notes.md"], "ok", 1),
        ("string", "main", "/frob", [], [], "COMMAND_UNSUPPORTED", None),
        ("string", "main", "/open", [], [], "INVALID_PAYLOAD", None),
        ("string", "main", "/open", ["read"], ["missing.md"], "NOT_FOUND", None),
        ("string", "main", "!", ["shell"], [], "EXIT_3", None),
        ("string", "main", "/help", [], [], "ok", None),
    ]


def test_every_operator_block_is_one_record(dispatcher: Dispatcher) -> None:
    workspace = dispatcher.workspace
    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": "3000", "text": "8080"}]})
    results = [
        run_action(workspace, command("fs.applyEdits", path="notes.md", edits_b64=edits), Recorder(), topic="op"),
        run_action(workspace, command("fs.read", path="gone.md"), Recorder(), topic="op"),
        run_action(workspace, command("fs.write", path="x.md", content_b64="x"), Recorder("no"), topic="op"),
        operator_answer(workspace, Invalid(None, "ERR_UNKNOWN_KEY", "Invalid OPERATOR_CMD (ERR_UNKNOWN_KEY): k"),
                        Recorder(), topic="op"),
    ]
    assert [result.ok for result in results] == [True, False, False, False]
    assert [summary(r) for r in records(workspace)] == [
        ("operator", "op", "operator.fs.applyEdits", ["read", "write"], ["notes.md"], "ok", 1),
        ("operator", "op", "operator.fs.read", ["read"], ["gone.md"], "NOT_FOUND", None),
        ("operator", "op", "operator.fs.write", [], ["x.md"], "NOT_CONFIRMED", None),
        ("operator", "op", "operator", [], [], "ERR_UNKNOWN_KEY", None),
    ]
    assert "notes.md" in dispatcher.execute("/changes").text.split("fs.applyEdits notes.md")[1]


def test_every_tools_line_is_one_record(dispatcher: Dispatcher) -> None:
    workspace = dispatcher.workspace
    lines = [json.dumps({"id": 1, "tool": "edit", "args": {"file_path": "notes.md", "old_string": "3000",
                                                            "new_string": "8080"}}), "not json",
             json.dumps({"id": 3, "tool": "nope", "args": {}}),
             json.dumps({"id": 4, "tool": "read", "args": {"file_path": "../outside.md"}})]
    replies = [tools_answer(workspace, line.encode()) for line in lines]
    assert [reply["ok"] for reply in replies] == [True, False, False, False]
    assert [summary(r) for r in records(workspace)] == [
        ("tools", "tools", "tools.edit", ["stat", "read", "apply"], ["notes.md"], "ok", 1),
        ("tools", "tools", "tools", [], [], replies[1]["code"], None),
        ("tools", "tools", "tools", [], [], "UNKNOWN_TOOL", None),
        ("tools", "tools", "tools.read", ["stat"], ["../outside.md"], replies[3]["code"], None),
    ]
    assert replies[3]["code"] == "INVALID_PATH"


def test_a_change_names_its_request_in_every_dialect(dispatcher: Dispatcher) -> None:
    workspace = dispatcher.workspace
    dispatcher.execute("/write a.md\nA\n")
    run_action(workspace, command("fs.write", path="b.md", content_b64="B\n"), Recorder(), topic="op")
    tools_answer(workspace, json.dumps({"id": 1, "tool": "write",
                                        "args": {"file_path": "c.md", "content": "C\n"}}).encode())
    rows = [(row.id, row.frontend, row.topic, row.command) for row in workspace.history()]
    assert rows == [(3, "tools", "tools", "write c.md"), (2, "operator", "op", "fs.write b.md"),
                    (1, "string", "main", "/write a.md")]


def test_a_request_inside_a_request_is_part_of_the_outer_one(dispatcher: Dispatcher) -> None:
    """An MCP command tool runs a String Command through the dispatcher: one record, the outer dialect's, with
    the inner command line filling in what the outer request did not name."""
    workspace = dispatcher.workspace
    with workspace.request("mcp", "mcp.string", topic="mcp", agent="client-x") as outer:
        reply = dispatcher.execute("/write d.md\nD\n", "mcp")
        assert current() is outer and outer.command == "/write d.md"
    assert current() is None
    assert reply.ok
    [record] = records(workspace)
    assert (record["frontend"], record["op"], record["ops"], record["agent"], record["change"]) == (
        "mcp", "mcp.string", ["write"], "client-x", 1)
    assert [(row.frontend, row.command) for row in workspace.history()] == [("mcp", "/write d.md")]


def test_concurrent_requests_keep_their_own_context(dispatcher: Dispatcher) -> None:
    workspace = dispatcher.workspace
    inside = threading.Barrier(2)
    seen: dict[str, str | None] = {}

    def run(dialect: str) -> None:
        with workspace.request(dialect, f"{dialect}.x", topic=dialect, command=f"{dialect} cmd"):
            inside.wait(timeout=10)  # both requests are open at once
            workspace.write_text(f"{dialect}.md", dialect, topic=dialect)
            ctx = current()
            seen[dialect] = ctx.dialect if ctx else None

    threads = [threading.Thread(target=run, args=(name,)) for name in ("tools", "mcp")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"tools": "tools", "mcp": "mcp"}
    assert sorted((row.frontend, row.topic, row.command) for row in workspace.history()) == [
        ("mcp", "mcp", "mcp cmd"), ("tools", "tools", "tools cmd")]
    assert sorted((r["frontend"], r["op"]) for r in records(workspace)) == [("mcp", "mcp.x"), ("tools", "tools.x")]


def test_a_library_call_outside_any_request_is_recorded_per_operation(ws: Path) -> None:
    workspace = Workspace(ws)
    try:
        workspace.write_text("lib.md", "L\n")
        workspace.read_text("lib.md")
        assert [(r["frontend"], r["op"], r["paths"]) for r in records(workspace)] == [
            ("string", "write", ["lib.md"]), ("string", "read", ["lib.md"])]
        assert [(row.frontend, row.command) for row in workspace.history()] == [("string", None)]
    finally:
        workspace.close()
