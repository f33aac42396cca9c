"""The stdio front answers list_directory, get_file_info, read_text_file, list_allowed_directories and edit_file
itself (shortcut.py): each reply must be the SDK's own, byte for byte (listings without secrets, masked tokens,
refusals, diffs; an edit's change id aside), with the same audit records and the same files after, and every
call the SDK would take differently (other tools, coerced or extra arguments, `_meta`, a client whose roots are
not asked yet) must go to the SDK. Both run in-process on the
same lines (tests/dialects/mcp/wire.py)."""

from __future__ import annotations

import json
import os
import re
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


EDITED = {"e1.txt": "alpha\nbeta\n", "e2.txt": "one\r\ntwo\r\nthree\r\n", "e3.txt": "dry\nrun\n",
          "e4.txt": "same\nsame\n", "e5.py": f"key = '{TOKEN}'\nvalue = 1\n", "e6.md": "caf\u00e9\nx\n",
          "e7.txt": "seven\n", "e8.txt": "eight\n"}
EDITS: list[dict[str, Any]] = [
    {"path": "e1.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]},
    {"path": "e2.txt", "edits": [{"oldText": "one\ntwo", "newText": "uno\ndos"},
                                 {"oldText": "three", "newText": "tres"}], "dryRun": False},
    {"path": "e3.txt", "edits": [{"oldText": "run", "newText": "walk"}], "dryRun": True},
    {"path": "e4.txt", "edits": [{"oldText": "same", "newText": "other"}]},
    {"path": "e7.txt", "edits": [{"oldText": "absent", "newText": "x"}]},
    {"path": "e8.txt", "edits": []},
    {"path": "e5.py", "edits": [{"oldText": "value = 1", "newText": "value = 2"}]},
    {"path": "e6.md", "edits": [{"oldText": "caf\u00e9", "newText": "caff\u00e8 \x1b[31m"}]},
    {"path": "missing.txt", "edits": [{"oldText": "a", "newText": "b"}]},
    {"path": "/etc/hostname", "edits": [{"oldText": "a", "newText": "b"}]},
]


def changes_aside(line: bytes) -> bytes:
    """A reply without its change id (each run makes its own change sets)."""
    return re.sub(rb'"changeId":\d+', b'"changeId":N', re.sub(rb"Change \d+, undoable", b"Change N, undoable", line))


def test_edits_are_the_sdks(dispatcher: Dispatcher, root: Path) -> None:
    """Each edit on its own file (the SDK runs calls side by side: two on one file could see each other's
    reads), the files laid anew before each run."""
    lines = [initialize(0, "2025-11-25"), INITIALIZED]
    lines += [tool(10 + index, "edit_file", arguments) for index, arguments in enumerate(EDITS)]
    runs = []
    for sdk in (True, False):
        for name, text in EDITED.items():
            (root / name).write_bytes(text.encode())
        if sdk:
            replies = sdk_alone(dispatcher, lines, 1 + len(EDITS))
        else:
            replies, served = front(dispatcher, lines, 1 + len(EDITS), early=1 + len(EDITS))
            assert served.calls_answered == len(EDITS)
        records = sorted(({key: value for key, value in record.items() if key != "change"}
                          for record in audit(dispatcher, len(EDITS))), key=repr)
        runs.append(({key: changes_aside(line) for key, line in by_id(replies).items()}, records,
                     {name: (root / name).read_bytes() for name in EDITED}))
    assert runs[0] == runs[1]
    sdk, _, files = runs[0]
    assert files["e1.txt"] == b"alpha\ngamma\n" and files["e2.txt"] == b"uno\r\ndos\r\ntres\r\n"
    assert files["e3.txt"] == b"dry\nrun\n" and files["e4.txt"] == b"same\nsame\n"
    assert b'"isError":true' in sdk[13] and b'"isError":true' in sdk[14] and b'"isError":true' in sdk[15]
    assert TOKEN not in sdk[16].decode() and b'"isError":false' in sdk[11] and b'"changeId":N' in sdk[11]


@pytest.mark.parametrize("call", [
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": "a", "newText": "b", "extra": 1}]}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": "true"}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": 1}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": '[{"oldText": "a", "newText": "b"}]'}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": 1, "newText": "b"}]}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [["a", "b"]]}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": "\ud800", "newText": "b"}]}),
    tool(5, "edit_file", {"path": "e1\udce9.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
    tool(5, "edit_file", {"path": "e1.txt"}),
    tool(5, "edit_file", {"path": "e1.txt", "edits": [{"oldText": "a", "newText": "b"}], "extra": 1}),
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
