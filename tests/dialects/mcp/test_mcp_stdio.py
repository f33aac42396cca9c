"""`stringsh mcp` over real stdio with the SDK's own client: the handshake, the tool list, reads and edits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import Client, stdio_session

REFERENCE_TOOLS = {
    "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file", "create_directory",
    "list_directory", "list_directory_with_sizes", "directory_tree", "move_file", "search_files", "get_file_info",
    "list_allowed_directories",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcp") / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, env=env) as session:
        yield session


def test_server_names_itself_and_lists_the_reference_tools(client: Client) -> None:
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert set(tools) >= REFERENCE_TOOLS
    read = tools["read_text_file"]
    assert read.annotations is not None and read.annotations.read_only_hint is True
    assert read.input_schema["required"] == ["path"]
    assert set(read.input_schema["properties"]) == {"path", "head", "tail"}
    edit = tools["edit_file"]
    assert edit.annotations is not None
    assert (edit.annotations.read_only_hint, edit.annotations.destructive_hint) == (False, True)
    assert set(edit.input_schema["properties"]) == {"path", "edits", "dryRun"}


def test_read_text_file_keeps_crlf(client: Client, root: Path) -> None:
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    assert client.text("read_text_file", {"path": "crlf.txt"}) == "one\r\ntwo\r\n"
    assert client.text("read_text_file", {"path": str(root / "crlf.txt"), "head": 1}) == "one\r\n"
    assert client.text("read_text_file", {"path": "crlf.txt", "tail": 1}) == "two\r\n"
