"""On the newest protocol's HTTP (2026-07-28) there is no session: every request is a self-contained POST. Each call
is then a client of its own, with a topic of its own (its shell, cwd and undo history last the call), never one
shared by whichever calls happen to be in flight together, nor kept alive by an open `subscriptions/listen`
stream. A client that wants state across calls uses the older protocol's session, or a change id (`revert`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dialects.mcp.client import http_server
from tests.dialects.mcp.modern import modern_http

pytestmark = pytest.mark.timeout(120)


def test_an_open_listen_stream_does_not_make_calls_share_a_shell(tmp_path: Path, env: dict[str, str]) -> None:
    root = (tmp_path / "ws").resolve()
    (root / "sub").mkdir(parents=True)
    (root / "watched.md").write_text("w\n")
    with http_server(root, env=env) as server, modern_http(server.url, server.token) as client, \
            client.listen(resource_subscriptions=[(root / "watched.md").as_uri()]):
        assert client.text("bash", {"command": "cd sub && export MARK=set && pwd"}).endswith(f"{root}/sub")
        after = client.text("bash", {"command": 'pwd; echo "mark=$MARK"'})
        assert after.endswith(f"{root}\nmark=")  # a fresh topic: the workspace's root, no export carried over


def test_undo_in_a_later_call_finds_nothing_of_an_earlier_one(tmp_path: Path, env: dict[str, str]) -> None:
    root = (tmp_path / "ws").resolve()
    root.mkdir()
    with http_server(root, env=env) as server, modern_http(server.url, server.token) as client:
        written = client.call("write_file", {"path": str(root / "a.md"), "content": "a\n"})
        change = written.structured_content["changeId"]
        undone = client.call("undo", {})
        assert undone.is_error and "Nothing to undo" in undone.content[0].text
        assert client.text("revert", {"id": change}).startswith("re: /revert")
    assert not (root / "a.md").exists()
