"""The stdio front answers list_directory, get_file_info, read_text_file and list_allowed_directories itself
(shortcut.py): each reply must be the SDK's own, byte for byte (listings without secrets, masked tokens,
refusals), with the same audit records, and every call the SDK would take differently (other tools, coerced or
extra arguments, `_meta`, a client whose roots are not asked yet) must go to the SDK. Both run in-process on the
same lines (tests/dialects/mcp/wire.py)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.audit import tail_lines
from stringsh.workspace.state import AUDIT_FILES
from tests.dialects.mcp.wire import INITIALIZED, by_id, front, initialize, sdk_alone, tool

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


def audit(dispatcher: Dispatcher, count: int) -> list[dict[str, Any]]:
    """The last records without what differs between two runs: when, the chain, the connection's own ids."""
    varies = ("time", "hash", "prev", "ms", "client", "topic")
    dispatcher.workspace.state.flush_records()  # written after each reply, by the audit writer's thread
    records = tail_lines(dispatcher.workspace.state.path, AUDIT_FILES, count)
    # the SDK runs calls side by side, so its records may come in another order
    return sorted(({k: v for k, v in json.loads(record).items() if k not in varies} for record in records), key=repr)


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
             ("read_text_file", {"path": "../outside.txt"}), ("list_allowed_directories", {})]
    lines = [initialize(0, "2025-11-25"), INITIALIZED]
    lines += [tool(10 + index, name, arguments) for index, (name, arguments) in enumerate(cases)]
    sdk = by_id(sdk_alone(dispatcher, lines, 1 + len(cases)))
    sdk_audit = audit(dispatcher, len(cases))
    # every call answered before the SDK serves: none of these replies can be the SDK's
    ours, served = front(dispatcher, lines, 1 + len(cases), early=1 + len(cases))
    assert served.calls_answered == len(cases)
    assert by_id(ours) == sdk
    assert audit(dispatcher, len(cases)) == sdk_audit
    assert TOKEN not in sdk[22].decode() and "next line" in sdk[22].decode()
    assert b'"isError":true' in sdk[12] and b"[FILE] .env" not in sdk[10] and b"[FILE] info.txt" in sdk[10]


def test_a_client_with_roots_is_answered_here_once_the_sdk_asked_for_them(dispatcher: Dispatcher, root: Path) -> None:
    """The roots are the client's to give, through the SDK: until a call through it asked, calls go to it; then
    the front keeps to them as the SDK's tools do."""
    first = tool(1, "get_file_info", {"path": "../info.txt"})  # relative to the first root: outside it
    lines = [initialize(0, "2025-11-25", roots=True), INITIALIZED, first, tool(2, "list_directory", {"path": ".."}),
             tool(3, "list_directory", {"path": "/"})]
    replies, served = front(dispatcher, lines, 5, settle=3, roots=[root / "sub"])
    answers = {key: line for key, line in by_id(replies).items() if key in (1, 2, 3)}
    assert served.calls_answered == 2 and set(answers) == {1, 2, 3}
    assert b"FILE_NOT_ALLOWED" in answers[1] and b"FILE_NOT_ALLOWED" in answers[2]


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
    tool(5, "list_allowed_directories", {"path": "."}),
])
def test_what_the_sdk_would_treat_differently_goes_to_it(dispatcher: Dispatcher, call: bytes) -> None:
    replies, served = front(dispatcher, [initialize(0, "2025-11-25"), INITIALIZED, call], 2)
    assert (served.calls_answered, len(replies)) == (0, 2)
