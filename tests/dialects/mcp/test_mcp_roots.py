"""MCP roots: the client's roots narrow the policy's roots (never widen them), `roots/list_changed` is followed,
and a client whose roots all lie outside the policy gets nothing, over real stdio with the SDK's client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import Client, roots_callback, stdio_session

OUTSIDE = "ERROR(FILE_NOT_ALLOWED): {path} is outside the client's roots\n" \
          "Use a path inside one of the client's roots (list_allowed_directories lists them)."


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mcproots").resolve()
    for rel in ("ws/a/in_a.txt", "ws/b/in_b.txt", "ws/top.txt", "outside/o.txt"):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(rel + "\n")
    (base / "ws" / "a" / "to_b").symlink_to(base / "ws" / "b" / "in_b.txt")
    return base


@pytest.fixture(scope="module")
def offered(layout: Path) -> list[Path]:
    return [layout / "ws" / "a", layout / "outside"]


@pytest.fixture(scope="module")
def client(layout: Path, offered: list[Path], env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(layout / "ws", roots=roots_callback(offered), env=env) as session:
        yield session


def test_client_roots_narrow_the_policy_and_outside_ones_are_ignored(client: Client, layout: Path) -> None:
    ws = layout / "ws"
    assert client.text("list_allowed_directories") == f"Allowed directories:\n{ws / 'a'}"
    assert client.text("read_text_file", {"path": str(ws / "a" / "in_a.txt")}) == "ws/a/in_a.txt\n"
    # a relative path is relative to the first allowed directory, as the server's instructions say
    assert "relative to the first one" in (client.session.instructions or "")
    assert client.text("read_text_file", {"path": "in_a.txt"}) == "ws/a/in_a.txt\n"
    assert client.text("list_directory", {"path": "."}) == "[FILE] in_a.txt\n[FILE] to_b"
    assert client.text("search_files", {"path": ".", "pattern": "in_*.txt"}) == str(ws / "a" / "in_a.txt")
    assert client.text("open", {"target": "in_a.txt"}) == (
        "re: /open -- a/in_a.txt\nOpened a/in_a.txt\n---\nws/a/in_a.txt")
    assert client.text("grep", {"pattern": "in_a", "path": "."}) == (
        're: /grep -- in_a a\nGrep "in_a" in a/: 1 match in 1 file\n---\na/in_a.txt:1: ws/a/in_a.txt\n\n'
        "1 match in 1 file")
    assert client.error("read_text_file", {"path": "../b/in_b.txt"}) == OUTSIDE.format(path="../b/in_b.txt")
    assert client.error("read_text_file", {"path": "../top.txt"}) == OUTSIDE.format(path="../top.txt")
    assert client.error("write_file", {"path": "../b/new.txt", "content": "x"}) == OUTSIDE.format(
        path="../b/new.txt")
    assert client.text("write_file", {"path": "new.txt", "content": "x"}).startswith("Successfully wrote to new.txt")
    assert (ws / "a" / "new.txt").read_text() == "x"
    (ws / "a" / "new.txt").unlink()
    assert not (ws / "b" / "new.txt").exists()
    # the client's root outside the workspace widens nothing: the engine refuses it as always
    assert client.error("read_text_file", {"path": str(layout / "outside" / "o.txt")}).startswith(
        "ERROR(FILE_NOT_ALLOWED): ")


def test_a_symlink_inside_a_client_root_does_not_lead_out_of_it(client: Client) -> None:
    assert client.error("read_text_file", {"path": "to_b"}) == OUTSIDE.format(path="to_b")


def test_roots_list_changed_is_followed(client: Client, layout: Path, offered: list[Path]) -> None:
    ws = layout / "ws"
    offered[:] = [ws / "b"]
    client.roots_changed()
    assert client.text("list_allowed_directories") == f"Allowed directories:\n{ws / 'b'}"
    assert client.text("read_text_file", {"path": "in_b.txt"}) == "ws/b/in_b.txt\n"
    assert client.error("read_text_file", {"path": "../a/in_a.txt"}) == OUTSIDE.format(path="../a/in_a.txt")
    # a client root that holds the whole workspace allows the policy's root, no more
    offered[:] = [layout]
    client.roots_changed()
    assert client.text("list_allowed_directories") == f"Allowed directories:\n{ws}"
    assert client.text("read_text_file", {"path": "top.txt"}) == "ws/top.txt\n"
    assert client.error("read_text_file", {"path": str(layout / "outside" / "o.txt")}).startswith(
        "ERROR(FILE_NOT_ALLOWED): ")


def test_no_client_root_inside_the_policy_allows_nothing(client: Client, layout: Path, offered: list[Path]) -> None:
    offered[:] = [layout / "outside"]
    client.roots_changed()
    none = ("ERROR(FILE_NOT_ALLOWED): None of the client's roots lies inside the policy's roots\n"
            "Offer a root inside the workspace (list_allowed_directories shows the policy's folders).")
    assert client.error("list_allowed_directories") == none
    assert client.error("read_text_file", {"path": "top.txt"}) == none
    offered[:] = []  # an empty list: the policy's roots
    client.roots_changed()
    assert client.text("list_allowed_directories") == f"Allowed directories:\n{layout / 'ws'}"


def test_a_client_without_roots_gets_the_policy_roots(layout: Path, env: dict[str, str]) -> None:
    with stdio_session(layout / "ws", env=env) as plain:
        assert plain.text("list_allowed_directories") == f"Allowed directories:\n{layout / 'ws'}"
        assert plain.text("read_text_file", {"path": "b/in_b.txt"}) == "ws/b/in_b.txt\n"
