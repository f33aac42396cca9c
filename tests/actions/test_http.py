"""HTTP execution against a real loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.actions.http import HttpLimits, fetch, fill_headers, fill_url
from stringsh.actions.template import MISSING
from stringsh.errors import StringError


def test_fill_url_encodes_and_consumes() -> None:
    payload = {"id": "a b/&?", "q": "x"}
    assert fill_url("http://h/items/{id}?v={ver}", payload, {"ver": "1 2"}) == "http://h/items/a%20b%2F%26%3F?v=1%202"
    assert payload == {"q": "x"}
    assert fill_headers([("X", "{tok}-{none}")], {"tok": "t"}) == [("X", "t-{none}")]


def test_get_json_with_query(server: str) -> None:
    response = fetch("GET", f"{server}/echo", headers=[("X-Key", "k")], payload={"q": "a b"}, body=None)
    assert response.status == 200
    assert response.json["query"] == {"q": "a b"} and response.json["headers"]["x-key"] == "k"


def test_post_flat_payload_and_body_template(server: str) -> None:
    flat = fetch("POST", f"{server}/echo", headers=[], payload={"title": 'say "hi"'}, body=None)
    assert flat.json["body"] == '{"title": "say \\"hi\\""}'
    assert flat.json["headers"]["content-type"] == "application/json"
    templ = fetch("PUT", f"{server}/echo", headers=[], payload={}, body='{"raw": 1}')
    assert (templ.json["method"], templ.json["body"]) == ("PUT", '{"raw": 1}')


def test_non_json_body_is_text(server: str) -> None:
    response = fetch("GET", f"{server}/text", headers=[], payload={}, body=None)
    assert response.json is MISSING and response.body.startswith("plain words")


def error(server: str, path: str, **limits: float) -> StringError:
    with pytest.raises(StringError) as info:
        fetch("GET", f"{server}{path}", headers=[], payload={}, body=None, limits=HttpLimits(**limits))  # type: ignore[arg-type]
    return info.value


def test_404_500_401(server: str) -> None:
    err = error(server, "/missing")
    assert (err.code, err.message) == ("NOT_FOUND", f"HTTP 404 Not Found: GET {server}/missing\nno such thing here")
    err = error(server, "/boom")
    assert err.code == "LOAD_ERROR"
    assert err.message == f'HTTP 500 Internal Server Error: GET {server}/boom\n{{"error": "database on fire"}}'
    assert error(server, "/secret-required").code == "AUTH_REQUIRED"


def test_timeout(server: str) -> None:
    err = error(server, "/slow?s=2", timeout=0.3)
    assert (err.code, err.message) == ("TIMEOUT", f"No answer within 0.3s: GET {server}/slow?s=2")


def test_redirect_loop_and_a_good_redirect(server: str) -> None:
    err = error(server, "/loop")
    assert (err.code, err.message) == ("LOAD_ERROR", f"Too many redirects (more than 5): GET {server}/loop")
    hop = fetch("GET", f"{server}/hop", headers=[], payload={}, body=None)
    assert hop.json["total"] == 2 and hop.url == f"{server}/items"


def test_size_limit(server: str) -> None:
    assert error(server, "/items", max_bytes=10).code == "TOO_LARGE"


def test_connection_refused_and_bad_url() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StringError) as info:
        fetch("GET", f"http://127.0.0.1:{port}/", headers=[], payload={}, body=None)
    assert info.value.code == "LOAD_ERROR" and info.value.message.startswith(
        f"Request failed: GET http://127.0.0.1:{port}/"
    )
    with pytest.raises(StringError) as info:
        fetch("GET", "nota://url", headers=[], payload={}, body=None)
    assert info.value.code == "INVALID_PAYLOAD"


def test_flat_json_body_is_typed(server: str) -> None:
    from stringsh.actions.http import typed

    types = {"n": "number", "f": "number", "b": "boolean", "s": "string"}
    assert typed({"n": "3", "f": "2.5", "b": "yes", "s": "7", "x": "u"}, types) == {
        "n": 3,
        "f": 2.5,
        "b": True,
        "s": "7",
        "x": "u",
    }
    sent = fetch("POST", f"{server}/echo", headers=[], payload={"n": "1e3", "b": "false"}, body=None, types=types)
    assert sent.json["body"] == '{"n": 1000.0, "b": false}'


def test_cookies_are_never_kept_between_actions(server: str) -> None:
    fetch("GET", f"{server}/setcookie", headers=[], payload={}, body=None)
    echoed = fetch("GET", f"{server}/echo", headers=[], payload={}, body=None)
    assert "cookie" not in echoed.json["headers"]


def test_timeout_bounds_the_whole_answer_not_each_read(server: str) -> None:
    err = error(server, "/trickle", timeout=0.5)
    assert (err.code, err.message) == ("TIMEOUT", f"No answer within 0.5s: GET {server}/trickle")


def test_http_clients_belong_to_one_dispatcher(tmp_path: Path) -> None:
    """Kept connections are reused within a dispatcher, never shared with another, and closed with it."""
    from stringsh.dispatcher import Dispatcher

    one, two = Dispatcher(tmp_path), Dispatcher(tmp_path)
    try:
        client = one.documents.http_clients.get(HttpLimits())
        assert one.documents.http_clients.get(HttpLimits()) is client
        assert two.documents.http_clients.get(HttpLimits()) is not client
    finally:
        one.close()
        two.close()
    assert client.is_closed
