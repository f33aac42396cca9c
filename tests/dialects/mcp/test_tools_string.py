"""The `string` tool of `stringsh mcp` (real stdio, the SDK's client): any String Command request, its reply text
exactly as `stringsh -c` prints it, isError for an ERROR reply; stringsh's own tools listed with truthful
annotations; and the tools reaching the whole workspace refused when the client's roots narrow the policy's."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.changeline import changed
from tests.dialects.mcp.client import STRINGSH, Client, roots_callback, server_env, stdio_session

README = "# Title\n\n## Setup\n\nrun it\n\n## Usage\n\nuse it\n"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpstring").resolve() / "ws"
    folder.mkdir()
    (folder / "README.md").write_text(README)
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.md").write_text("# Inner\n\n<!-- #x -->\nold\n<!-- /x -->\n")
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="string-client", env=env) as session:
        yield session


def test_own_tools_are_listed_with_truthful_annotations(client: Client) -> None:
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    hints = {name: (tools[name].annotations.read_only_hint, tools[name].annotations.destructive_hint,  # type: ignore[union-attr]
                    tools[name].annotations.idempotent_hint)  # type: ignore[union-attr]
             for name in ("string", "grep", "open", "edit_block", "replace", "patch", "apply_patch", "changes",
                          "revert", "undo", "bash")}
    assert hints == {
        "string": (False, True, False), "grep": (True, False, True), "open": (True, False, True),
        "edit_block": (False, True, True), "replace": (False, True, False), "patch": (False, True, False),
        "apply_patch": (False, True, False), "changes": (True, False, True), "revert": (False, True, True),
        "undo": (False, True, False),
        "bash": (False, True, False),
    }
    assert tools["string"].input_schema["required"] == ["request"]
    assert set(tools["grep"].input_schema["properties"]) == {"pattern", "path", "regex", "ignoreCase", "glob",
                                                             "context", "maxResults"}
    assert set(tools["open"].input_schema["properties"]) == {"target", "fromLine", "toLine"}
    assert tools["edit_block"].input_schema["required"] == ["target", "body"]


def test_string_runs_a_command_and_replies_as_stringsh_c_prints_it(client: Client, root: Path,
                                                                   env: dict[str, str]) -> None:
    reply = client.text("string", {"request": "/open README.md#setup"})
    assert reply == "re: /open README.md#setup\nOpened README.md#setup\n---\n## Setup\n\nrun it"
    printed = subprocess.run([*STRINGSH, "--root", str(root), "-c", "/open README.md#setup"], env=server_env(env),
                             capture_output=True, text=True, timeout=60)
    assert printed.stdout.rstrip("\n") == reply


def test_string_with_a_multi_line_body_edits_one_block(client: Client, root: Path) -> None:
    reply = changed(client.text("string", {"request": "/edit README.md#usage <<EOF\nuse it well\nand often\nEOF"}))
    assert reply == "re: /edit README.md#usage\nEdited README.md#usage (10 lines): 1 line replaced by 2 lines"
    assert (root / "README.md").read_text() == README.replace("use it\n", "use it well\nand often\n")
    assert changed(client.text("string", {"request": "/undo"})) == "re: /undo\nUndo: reverted README.md (9 lines)"
    assert (root / "README.md").read_text() == README


def test_string_errors_are_tool_errors_with_the_reply_text(client: Client, root: Path) -> None:
    assert client.error("string", {"request": "/open nope.md"}) == (
        "re: /open nope.md\nERROR(NOT_FOUND): File not found: nope.md\n/ls shows what is there.")
    assert client.error("string", {"request": "/frobnicate"}) == (
        "re: /frobnicate\nERROR(COMMAND_UNSUPPORTED): Unknown command: /frobnicate\n"
        "Use /help to see available commands.")
    assert client.error("string", {"request": "/edit README.md#setup <<EOF\nnever ends"}) == (
        "re: /edit README.md#setup\nERROR(INVALID_PAYLOAD): Unterminated heredoc: no line 'EOF' before the end of "
        "input; the command was not run.\nEnd the body with a line that is exactly EOF.")
    assert (root / "README.md").read_text() == README


def test_string_runs_one_request_only(client: Client, root: Path) -> None:
    """A second line is the body of the first request, never a second command."""
    reply = client.text("string", {"request": "/open README.md\n/rm README.md"})
    assert reply == "re: /open README.md\nOpened README.md\n---\n" + README.rstrip("\n")
    assert (root / "README.md").read_text() == README


def test_narrowed_roots_keep_to_the_path_tools(root: Path, env: dict[str, str]) -> None:
    """A client whose roots are `sub/`: `string`, `bash`, `patch`, `undo`... reach the whole workspace and are
    refused; the path tools work inside the roots and refuse paths outside them."""
    refused = ("ERROR(FILE_NOT_ALLOWED): {tool} reaches the whole workspace, beyond the client's roots\n"
               "Use the path tools (open, grep with a path, edit_block, replace) inside the roots.")
    with stdio_session(root, roots=roots_callback([root / "sub"]), env=env) as session:
        assert session.error("string", {"request": "/open README.md"}) == refused.format(tool="string")
        assert session.error("bash", {"command": "cat README.md"}) == refused.format(tool="bash")
        assert session.error("undo") == refused.format(tool="undo")
        assert session.error("apply_patch", {"input": "*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\n"}) \
            == refused.format(tool="apply_patch")
        assert session.error("changes") == refused.format(tool="changes")
        assert session.error("grep", {"pattern": "it"}) == refused.format(tool="grep without a path")
        assert session.error("open", {"target": "@home"}) == refused.format(tool="open @shortcut")
        assert session.error("open", {"target": "../README.md"}) == (
            "ERROR(FILE_NOT_ALLOWED): ../README.md is outside the client's roots\n"
            "Use a path inside one of the client's roots (list_allowed_directories lists them).")
        assert changed(session.text("edit_block", {"target": "inner.md#x", "body": "new\n"})) == (
            "re: /edit -- sub/inner.md#x\nEdited sub/inner.md#x (5 lines): 1 line replaced by 1 line")
        assert (root / "sub" / "inner.md").read_text() == "# Inner\n\n<!-- #x -->\nnew\n<!-- /x -->\n"


def test_bash_mode_is_refused_so_the_other_tools_keep_working(client: Client) -> None:
    refused = ("ERROR(COMMAND_UNSUPPORTED): /bash mode is not available over MCP: every tool shares this session's "
               "topic\nUse the bash tool, or !command in a string request.")
    for request in ("/bash", "//BASH", "[r1] /bash", "/Bash\t"):
        assert client.error("string", {"request": request}) == refused
    assert client.text("open", {"target": "README.md#setup"}) == (
        "re: /open -- README.md#setup\nOpened README.md#setup\n---\n## Setup\n\nrun it")
    assert client.text("string", {"request": "!echo hi"}).endswith("\n---\nhi")
