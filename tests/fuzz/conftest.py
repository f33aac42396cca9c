"""One `stringsh mcp --http` server for the HTTP fuzz test, with an initialized session's headers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.dialects.mcp.client import HttpServer, http_server, user_env


@pytest.fixture(scope="module")
def http_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HttpServer, dict[str, str]]]:
    import httpx

    root = tmp_path_factory.mktemp("fuzzhttp") / "ws"
    (root / "fz").mkdir(parents=True)
    with http_server(root, env=user_env(tmp_path_factory.mktemp("fuzzuser"))) as server:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if server.token:
            headers["Authorization"] = f"Bearer {server.token}"
        init: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}
        answer = httpx.post(server.url, json=init, headers=headers, timeout=60)
        session = {**headers, "mcp-session-id": answer.headers["mcp-session-id"]}
        httpx.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session,
                   timeout=60)
        yield server, session


