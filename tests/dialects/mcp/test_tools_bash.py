"""The `bash` tool of `stringsh mcp` (real stdio, the SDK's client): `!cmd` in the MCP topic's persistent shell,
cwd and exports kept between calls, the script passed verbatim (no `{name}` substitution, its own heredocs), a
non-zero exit an isError result with String's `exit: N | cwd: …` text, and a command reading stdin never reading
the protocol's pipe."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import Client, stdio_session


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpbash").resolve() / "ws"
    (folder / "sub").mkdir(parents=True)
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="bash-client", env=env) as session:
        yield session


def test_cwd_and_exports_persist_between_calls(client: Client, root: Path) -> None:
    assert client.text("bash", {"command": "cd sub && export GREETING=hello"}) == (
        f"re: !cd sub && export GREETING=hello\nexit: 0 | cwd: {root}/sub\n---\n(no output)")
    assert client.text("bash", {"command": "pwd; echo $GREETING"}) == (
        f"re: !pwd; echo $GREETING\nexit: 0 | cwd: {root}/sub\n---\n{root}/sub\nhello")


def test_scripts_reach_bash_verbatim(client: Client, root: Path) -> None:
    assert client.text("string", {"request": "/set name = SUBST"}) == 're: /set name = SUBST\n{name} = "SUBST"'
    assert client.text("bash", {"command": "echo {name} ${GREETING}"}) == (
        f"re: !\nexit: 0 | cwd: {root}/sub\n---\n{{name}} hello")
    assert client.text("bash", {"command": "cat <<EOF\nline one\nEOF\necho done"}) == (
        f"re: !\nexit: 0 | cwd: {root}/sub\n---\nline one\ndone")
    assert client.text("bash", {"command": "cat"}) == f"re: !cat\nexit: 0 | cwd: {root}/sub\n---\n(no output)"


def test_a_non_zero_exit_is_a_tool_error(client: Client, root: Path) -> None:
    assert client.error("bash", {"command": "echo out; false"}) == (
        f"re: !echo out; false\nexit: 1 | cwd: {root}/sub\n---\nout")
    assert client.error("bash", {"command": "   "}) == (
        "ERROR(INVALID_PAYLOAD): command: empty\nGive the command to run.")
    assert client.text("bash", {"command": "pwd"}) == f"re: !pwd\nexit: 0 | cwd: {root}/sub\n---\n{root}/sub"
