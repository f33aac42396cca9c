"""Resumable Streamable HTTP streams (events.py): each SSE event has an id, the priming event tells the client
when to reconnect, and `GET` with `Last-Event-ID` replays what a dropped stream missed, within its own session."""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import httpx
import pytest
from mcp_types import JSONRPCResponse

from stringsh.dialects.mcp.events import RETRY_MS, SessionEvents
from tests.dialects.mcp.client import HttpServer, http_server

VERSION = "2025-11-25"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("resume") / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("hello\n", encoding="utf-8")
    with http_server(root) as running:
        yield running


def events(body: str) -> list[dict[str, str]]:
    """The SSE events of a body: each one's fields (`id`, `data`, `retry`, ...)."""
    found = []
    for block in body.replace("\r\n", "\n").strip("\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        found.append(fields)
    return found


def headers(server: HttpServer, session: str | None = None) -> dict[str, str]:
    made = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
            "Authorization": f"Bearer {server.token}", "MCP-Protocol-Version": VERSION}
    if session is not None:
        made["Mcp-Session-Id"] = session
    return made


def open_session(server: HttpServer) -> str:
    answer = httpx.post(server.url, json=INIT, headers=headers(server), timeout=30)
    session = answer.headers["mcp-session-id"]
    notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(server.url, json=notified, headers=headers(server, session), timeout=30).status_code == 202
    return session


def test_a_call_stream_is_primed_with_an_id_and_a_retry_time_and_can_be_replayed(server: HttpServer) -> None:
    session = open_session(server)
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": "notes.txt"}}}
    answer = httpx.post(server.url, json=call, headers=headers(server, session), timeout=30)
    priming, reply = events(answer.text)
    assert priming["data"] == "" and priming["retry"] == str(RETRY_MS) and priming["id"]
    assert reply["id"] and reply["id"] != priming["id"]
    assert json.loads(reply["data"])["result"]["content"] == [{"type": "text", "text": "hello\n"}]
    # the stream dropped after its priming event: the client asks again from there and gets the reply
    resume = {**headers(server, session), "Last-Event-ID": priming["id"]}
    with httpx.stream("GET", server.url, headers=resume, timeout=30) as replayed:
        assert replayed.status_code == 200
        text = ""
        for chunk in replayed.iter_text():
            text += chunk.replace("\r\n", "\n")
            if reply["id"] in text and text.endswith("\n\n"):
                break
    assert [event for event in events(text) if event.get("data")] == [reply]
    # another session cannot replay this one's events: its store does not know the id
    other = {**headers(server, open_session(server)), "Last-Event-ID": priming["id"]}
    with httpx.stream("GET", server.url, headers=other, timeout=30) as refused:
        assert refused.status_code == 200
        assert next(refused.iter_text(), "") == ""


def message(number: int) -> JSONRPCResponse:
    return JSONRPCResponse(jsonrpc="2.0", id=number, result={"n": number})


def test_the_store_replays_one_streams_later_events_and_keeps_only_the_newest() -> None:
    async def scenario() -> tuple[list[tuple[str, object]], str | None, str | None, list[str]]:
        store = SessionEvents(limit=4)
        first = await store.store_event("a", None)
        await store.store_event("a", message(1))
        await store.store_event("b", message(2))
        await store.store_event("a", message(3))
        sent: list[tuple[str, object]] = []

        async def send(event: object) -> None:
            sent.append((event.event_id, event.message.id))  # type: ignore[attr-defined]

        stream = await store.replay_events_after(first, send)
        for number in range(4, 8):  # pushes the first events out
            await store.store_event("b", message(number))
        gone = await store.replay_events_after(first, send)
        return sent, stream, gone, [event_id.rsplit("-", 1)[1] for event_id, _ in sent]

    sent, stream, gone, numbers = anyio.run(scenario)
    assert stream == "a" and gone is None
    assert [number for _, number in sent] == [1, 3] and numbers == ["2", "4"]
    assert SessionEvents()._prefix != SessionEvents()._prefix  # ids differ between sessions
