"""What `stringsh mcp` announces it serves: tool titles, log messages (`logging/setLevel`; each refusal and
each stringsh warning as `notifications/message`), `completion/complete` for the resource templates' paths and
`path#id`, and no prompts (prompts.py), on the real SDK over the stdio front's wire (wire.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.dialects.mcp.titles import TITLES
from stringsh.dispatcher import Dispatcher
from tests.dialects.mcp.wire import INITIALIZED, front, initialize, sdk_alone, tool

REFUSAL = 'ERROR(NOT_FOUND): File not found: missing.txt\nlist_directory {"path": "."} shows what is there.'
REFUSED_REPLY = {"content": [{"text": REFUSAL, "type": "text"}], "isError": True}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("caps") / "ws"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("class Greeter:\n    def hello(self):\n        return 1\n\n\ndef main():\n"
                                           "    pass\n", encoding="utf-8")
    (folder / "guide.md").write_text("# Intro\n\ntext\n\n## Usage\n\nmore\n", encoding="utf-8")
    (folder / "setup.cfg").write_text("", encoding="utf-8")
    (folder / ".env").write_text("TOKEN=x\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def dispatcher(root: Path) -> Iterator[Dispatcher]:
    made = Dispatcher(root)
    yield made
    made.close()


def request(request_id: int, method: str, params: object = None) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def messages(lines: list[bytes]) -> list[dict[str, object]]:
    return [json.loads(line) for line in lines]


def test_initialize_announces_logging_and_completions_and_no_prompts(dispatcher: Dispatcher) -> None:
    (reply,) = messages(sdk_alone(dispatcher, [initialize(1, "2025-11-25")], 1))
    assert reply["result"]["capabilities"] == {"completions": {}, "logging": {},  # type: ignore[index]
                                               "resources": {"listChanged": False, "subscribe": True},
                                               "tools": {"listChanged": False}}


def test_prompts_are_not_served(dispatcher: Dispatcher) -> None:
    lines = [initialize(1, "2025-11-25"), INITIALIZED, request(2, "prompts/list"),
             request(3, "prompts/get", {"name": "review"})]
    replies = {reply["id"]: reply for reply in messages(sdk_alone(dispatcher, lines, 3))}
    assert replies[2] == {"jsonrpc": "2.0", "id": 2,
                          "error": {"code": -32601, "message": "Method not found", "data": "prompts/list"}}
    assert replies[3] == {"jsonrpc": "2.0", "id": 3,
                          "error": {"code": -32601, "message": "Method not found", "data": "prompts/get"}}


def test_no_log_message_before_the_client_sets_a_level(dispatcher: Dispatcher) -> None:
    lines = [initialize(1, "2025-11-25"), INITIALIZED, tool(2, "read_text_file", {"path": "missing.txt"})]
    replies, _ = front(dispatcher, lines, 2)
    assert messages(replies)[1] == {"jsonrpc": "2.0", "id": 2, "result": REFUSED_REPLY}


def test_a_refusal_is_a_warning_message_once_a_level_is_set(dispatcher: Dispatcher) -> None:
    # the stdio front answers read tools itself once settled; after setLevel it leaves them to the SDK
    lines = [initialize(1, "2025-11-25"), INITIALIZED, request(2, "logging/setLevel", {"level": "info"}),
             tool(3, "read_text_file", {"path": "missing.txt"})]
    replies, _ = front(dispatcher, lines, 4, settle=3)
    assert messages(replies)[1:] == [
        {"jsonrpc": "2.0", "id": 2, "result": {}},
        {"jsonrpc": "2.0", "method": "notifications/message",
         "params": {"level": "warning", "logger": "stringsh", "data": {"tool": "read_text_file", "error": REFUSAL}}},
        {"jsonrpc": "2.0", "id": 3, "result": REFUSED_REPLY}]


def test_a_level_above_warning_leaves_refusals_out(dispatcher: Dispatcher) -> None:
    lines = [initialize(1, "2025-11-25"), INITIALIZED, request(2, "logging/setLevel", {"level": "error"}),
             tool(3, "read_text_file", {"path": "missing.txt"})]
    replies, _ = front(dispatcher, lines, 3, settle=3)
    assert messages(replies)[2] == {"jsonrpc": "2.0", "id": 3, "result": REFUSED_REPLY}


def test_a_stringsh_warning_is_a_log_message(dispatcher: Dispatcher, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    lines = [initialize(1, "2025-11-25", roots=True), INITIALIZED,
             request(2, "logging/setLevel", {"level": "warning"}), tool(3, "list_allowed_directories", {})]
    replies, _ = front(dispatcher, lines, 6, settle=4, roots=[outside])
    shown = [message for message in messages(replies) if message.get("method") == "notifications/message"]
    assert shown[0] == {"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "warning", "logger": "stringsh",
                                   "data": {"logger": "stringsh.mcp", "message": f"stringsh mcp: client root "
                                            f"{outside.resolve()} is outside every policy root: ignored"}}}
    assert len(shown) == 2 and shown[1]["params"]["data"]["tool"] == "list_allowed_directories"  # type: ignore[index]


def completions(dispatcher: Dispatcher, ref: dict[str, str], values: list[str], name: str = "path"
                ) -> list[dict[str, object]]:
    lines = [initialize(1, "2025-11-25"), INITIALIZED]
    lines += [request(2 + n, "completion/complete", {"ref": ref, "argument": {"name": name, "value": value}})
              for n, value in enumerate(values)]
    replies = {reply["id"]: reply for reply in messages(sdk_alone(dispatcher, lines, 1 + len(values)))}
    return [replies[2 + n]["result"]["completion"] for n in range(len(values))]  # type: ignore[index]


def test_completion_of_template_paths_and_block_ids(dispatcher: Dispatcher, root: Path) -> None:
    template = {"type": "ref/resource", "uri": root.resolve().as_uri() + "/{+path}"}
    found = completions(dispatcher, template, ["", "s", "src/", "src/app.py#", "src/app.py#Greeter.", "guide.md#u",
                                               "nothing/", "../", "setup.cfg#"])
    assert found == [
        {"values": ["guide.md", "setup.cfg", "src/"], "total": 3, "hasMore": False},  # .env is a secret: left out
        {"values": ["setup.cfg", "src/"], "total": 2, "hasMore": False},
        {"values": ["src/app.py"], "total": 1, "hasMore": False},
        {"values": ["src/app.py#Greeter", "src/app.py#Greeter.hello", "src/app.py#main"], "total": 3,
         "hasMore": False},
        {"values": ["src/app.py#Greeter.hello"], "total": 1, "hasMore": False},
        {"values": ["guide.md#usage"], "total": 1, "hasMore": False},
        {"values": [], "total": 0, "hasMore": False},
        {"values": [], "total": 0, "hasMore": False},
        {"values": [], "total": 0, "hasMore": False}]


def test_completion_of_anything_else_offers_nothing(dispatcher: Dispatcher, root: Path) -> None:
    empty = {"values": [], "total": 0, "hasMore": False}
    assert completions(dispatcher, {"type": "ref/prompt", "name": "review"}, ["x"], "arg") == [empty]
    assert completions(dispatcher, {"type": "ref/resource", "uri": "file:///etc/{+path}"}, [""]) == [empty]
    template = {"type": "ref/resource", "uri": root.resolve().as_uri() + "/{+path}"}
    assert completions(dispatcher, template, [""], "other") == [empty]


def test_every_tool_has_its_title(dispatcher: Dispatcher) -> None:
    lines = [initialize(1, "2025-11-25"), INITIALIZED, request(2, "tools/list")]
    replies = {reply["id"]: reply for reply in messages(sdk_alone(dispatcher, lines, 2))}
    listed = {tool["name"]: tool.get("title") for tool in replies[2]["result"]["tools"]}  # type: ignore[index]
    assert listed == TITLES
