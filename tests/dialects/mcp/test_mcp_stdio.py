"""`stringsh mcp` over real stdio with the SDK's own client: the handshake, the tool list, reads and edits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.changeline import changed
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


def test_read_text_file_shows_lf_as_every_read_does(client: Client, root: Path) -> None:
    """the README's text fidelity table: a read shows `\n` endings (what edit_file's oldText matches); the file keeps
    its CRLF."""
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    assert client.text("read_text_file", {"path": "crlf.txt"}) == "one\ntwo\n"
    assert client.text("read_text_file", {"path": str(root / "crlf.txt"), "head": 1}) == "one\n"
    assert client.text("read_text_file", {"path": "crlf.txt", "tail": 1}) == "two\n"
    assert (root / "crlf.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_root_after_the_subcommand(tmp_path: Path, env: dict[str, str]) -> None:
    """docs/mcp.md's client configuration: `stringsh mcp --root DIR`, started from another folder."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "f.txt").write_text("f\n")
    with stdio_session(tmp_path, argv=["mcp", "--root", str(project)], env=env) as session:
        assert session.text("list_allowed_directories") == f"Allowed directories:\n{project.resolve()}"
        assert session.text("read_text_file", {"path": "f.txt"}) == "f\n"


def test_apply_patch_takes_codex_patches_all_files_or_none(client: Client, root: Path) -> None:
    """apply_patch: /patch with Codex's format, the reply as -c prints it; a chunk matching nothing writes nothing."""
    (root / "p.txt").write_bytes(b"one\r\ntwo\r\n")
    body = "*** Begin Patch\n*** Update File: p.txt\n@@\n one\n-two\n+2\n*** Add File: q/new.txt\n+q\n*** End Patch\n"
    assert changed(client.text("apply_patch", {"input": body})) == (
        "re: /patch\nPatched 2 files: p.txt (+1 -1), q/new.txt (created, +1)")
    assert (root / "p.txt").read_bytes() == b"one\r\n2\r\n"
    assert (root / "q" / "new.txt").read_bytes() == b"q\n"
    failing = "*** Begin Patch\n*** Add File: r.txt\n+r\n*** Update File: p.txt\n-two\n+3\n*** End Patch\n"
    assert client.error("apply_patch", {"input": failing}) == (
        "re: /patch\nERROR(PATCH_FAILED): Chunk 1 of p.txt: its 1 context and removed lines (first: 'two') are not "
        "in the file, exactly or with whitespace and Unicode punctuation relaxed. Nothing was written.\n"
        'Re-read those lines and redo the hunk: read_text_file {"path": "p.txt"}')
    assert not (root / "r.txt").exists()
