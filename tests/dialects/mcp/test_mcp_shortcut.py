"""The stdio front answers list_directory, get_file_info and read_text_file itself (shortcut.py): each reply must be
the SDK's own, byte for byte (listings without secrets, masked tokens, refusals), with the same audit record, and
every call the SDK would take differently (other tools, coerced or extra arguments, `_meta`, a connection not yet
set up by the SDK) must go to the SDK. Both servers run in-process on the same lines (stdio_front.run_wire)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from stringsh.dialects.mcp.server import build_server
from stringsh.dialects.mcp.shortcut import Shortcut
from stringsh.dialects.mcp.stdio_front import Wire, early_reply, run_wire
from stringsh.dispatcher import Dispatcher
from stringsh.workspace.audit import tail_lines
from stringsh.workspace.state import AUDIT_FILES
from tests.dialects.mcp.test_mcp_lazy_start import Replies, held_open, initialize

TOKEN = "ghp_" + "a1B2" * 9


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("shortcut").resolve() / "ws"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("one\r\ntwo\r\nthree\r\n")
    (folder / "token.txt").write_text(f"key = {TOKEN}\nnext line\n")
    (folder / ".env").write_text("SECRET=1\n")
    (folder / "caf\u00e9 \"q\".md").write_text("\u00e9\t\x01\n")
    (folder / "info.txt").write_text("info\n")  # read by neither run: its access time stays
    os.utime(folder / "info.txt", (time.time() + 3600, time.time()))
    return folder


@pytest.fixture(scope="module")
def dispatcher(root: Path) -> Iterator[Dispatcher]:
    made = Dispatcher(root)
    yield made
    made.close()


class Counting(Shortcut):
    """Counts the calls it answered."""

    answered = 0

    def answer(self, line: bytes) -> bytes | None:
        reply = super().answer(line)
        self.answered += reply is not None
        return reply


def tool(request_id: int, name: str, arguments: Any, **extra: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments, **extra}}
    return json.dumps(message).encode() + b"\n"


def serve(dispatcher: Dispatcher, calls: list[bytes], *, shortcut: bool) -> tuple[dict[Any, bytes], int]:
    """Each reply by id, and how many the shortcut answered (the SDK answers the rest); the first call is answered
    before the others are sent (it sets the connection up, as a client's first call does)."""
    first = initialize(0, "2025-11-25").replace(b'{"roots": {"listChanged": true}}', b"{}")
    lines = (b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', *calls)
    replies = Replies(len(calls))
    server = build_server(dispatcher.workspace, None, dispatcher)
    front = Counting(server.calls, json.loads(first)) if shortcut else None  # type: ignore[attr-defined]
    anyio.run(run_wire, server, first, held_open(lines, replies, settle=2), Wire(replies, early_reply(first)), front)
    by_id = {json.loads(line)["id"]: line for line in replies.getvalue().splitlines(keepends=True)}
    return by_id, front.answered if front else 0


def test_replies_and_audit_records_are_the_sdks(dispatcher: Dispatcher, root: Path) -> None:
    cases = [("list_directory", {"path": str(root)}), ("list_directory", {"path": "sub"}),
             ("list_directory", {"path": "notes.txt"}), ("list_directory", {"path": "/etc"}),
             ("get_file_info", {"path": "info.txt"}), ("get_file_info", {"path": "missing"}),
             ("get_file_info", {"path": ".env"}),
             ("read_text_file", {"path": "notes.txt"}), ("read_text_file", {"path": "notes.txt", "head": 2}),
             ("read_text_file", {"path": "notes.txt", "tail": 1, "head": None}),
             ("read_text_file", {"path": "notes.txt", "head": 1, "tail": 1}),
             ("read_text_file", {"path": "token.txt", "head": 0}), ("read_text_file", {"path": "token.txt"}),
             ("read_text_file", {"path": "caf\u00e9 \"q\".md"}), ("read_text_file", {"path": ".env"}),
             ("read_text_file", {"path": "../outside.txt"})]
    # the first call sets the connection up through the SDK; every case after it is asked twice
    calls = [tool(1, "list_allowed_directories", {})]
    calls += [tool(10 + index, name, arguments) for index, (name, arguments) in enumerate(cases)]
    sdk, none = serve(dispatcher, calls, shortcut=False)
    sdk_audit = tail_lines(dispatcher.workspace.state.path, AUDIT_FILES, len(cases))
    ours, answered = serve(dispatcher, calls, shortcut=True)
    ours_audit = tail_lines(dispatcher.workspace.state.path, AUDIT_FILES, len(cases))
    assert (none, answered) == (0, len(cases))
    assert ours == sdk
    assert TOKEN not in sdk[22].decode() and "next line" in sdk[22].decode()
    assert b'"isError":true' in sdk[12] and b"[FILE] .env" not in sdk[10] and b"[FILE] info.txt" in sdk[10]

    def same(record: str) -> dict[str, Any]:
        varies = ("time", "hash", "prev", "ms", "client", "topic")  # when, the chain, the connection's own ids
        return {key: value for key, value in json.loads(record).items() if key not in varies}

    # the SDK runs calls side by side, so its records may come in another order
    assert sorted(map(same, ours_audit), key=repr) == sorted(map(same, sdk_audit), key=repr)
    assert [json.loads(record)["op"] for record in ours_audit][:2] == ["mcp.list_directory"] * 2


@pytest.mark.parametrize("call", [
    tool(5, "list_directory", {"path": "sub", "extra": 1}),
    tool(5, "read_text_file", {"path": "notes.txt", "head": "2"}),
    tool(5, "read_text_file", {"path": "notes.txt", "head": 2.0}),
    tool(5, "read_text_file", {"path": "notes.txt", "head": True}),
    tool(5, "read_text_file", {"path": "notes.txt", "head": -1}),
    tool(5, "get_file_info", {"path": 7}),
    tool(5, "get_file_info", {}),
    tool(5, "get_file_info", {"path": "notes.txt"}, _meta={"progressToken": 1}),
    tool(5, "directory_tree", {"path": "sub"}),
    tool(5, "list_directory", [1]),
])
def test_what_the_sdk_would_treat_differently_goes_to_it(dispatcher: Dispatcher, call: bytes) -> None:
    replies, answered = serve(dispatcher, [tool(1, "list_allowed_directories", {}), call], shortcut=True)
    assert (answered, len(replies)) == (0, 2)


def test_nothing_is_answered_before_the_sdk_set_the_connection_up(dispatcher: Dispatcher) -> None:
    replies, answered = serve(dispatcher, [tool(1, "get_file_info", {"path": "notes.txt"})], shortcut=True)
    assert (answered, len(replies)) == (0, 1)
