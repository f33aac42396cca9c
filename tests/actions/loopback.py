"""A real HTTP server on 127.0.0.1 (port 0) in a thread, with the routes the action tests need."""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256))


class Handler(BaseHTTPRequestHandler):
    server_version = "loopback/1"

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def handle(self) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                self.wfile.write(body)

    def _json(self, status: int, value: object) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _route(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        path = url.path
        if path.startswith("/echo"):
            self._json(
                200,
                {
                    "method": self.command,
                    "path": path,
                    "query": {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()},
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                },
            )
        elif path == "/items":
            self._json(200, {"total": 2, "items": [{"name": "alpha", "size": 1}, {"name": "beta", "size": 2}]})
        elif path == "/text":
            self._send(200, b"plain words, not JSON\nsecond line\n", "text/plain; charset=utf-8")
        elif path == "/page":
            html = (
                "<html><head><title>T</title><style>p{}</style></head><body><h1>Status page</h1>"
                "<p>All <b>green</b>, see <a href='/docs'>docs</a>.</p><ul><li>one</li><li>two</li></ul>"
                "<script>alert(1)</script></body></html>"
            )
            self._send(200, html.encode(), "text/html; charset=utf-8")
        elif path == "/article":
            html = (
                "<!doctype html><html><head><title>Article</title><script>track()</script></head><body>"
                "<h1>Release notes</h1><p>Version <code>2.0</code> is out. Read the <a href='docs'>docs</a>.</p>"
                "<blockquote><p>Back up first.</p><p>Really.</p></blockquote>"
                "<h2 id='install'>Install</h2><pre>pip install thing</pre></body></html>"
            )
            self._send(200, html.encode(), "text/html; charset=utf-8")
        elif path == "/docs":
            self._send(200, b"<html><body><h1>Docs</h1><p>Everything.</p></body></html>", "text/html")
        elif path == "/picture.png":
            self._send(200, PNG, "image/png")
        elif path == "/nul":
            self._send(200, b"text\x00with a NUL", "text/plain")
        elif path == "/big":
            self._send(200, b"<p>" + b"x" * 5000 + b"</p>", "text/html")
        elif path == "/to-article":
            self._send(301, b"", "text/plain", {"Location": "/article"})
        elif path == "/to-plain-web":
            self._send(302, b"", "text/plain", {"Location": "http://example.org/"})
        elif path == "/site/acts":  # a page with actions: one relative HTTP URL, one CLI command it may not run
            page = "# Acts\n\n```act.ping\nGET ../echo/rel\n```\n\n```act.run\nCLI touch ran\n```\n"
            self._send(200, page.encode(), "text/markdown")
        elif path == "/markdown":
            self._send(200, b"# Remote\n\nFrom the server.\n", "text/markdown")
        elif path == "/missing":
            self._send(404, b"no such thing here", "text/plain")
        elif path == "/boom":
            self._send(500, b'{"error": "database on fire"}', "application/json")
        elif path == "/secret-required":
            self._send(401, b"who are you", "text/plain")
        elif path == "/slow":
            time.sleep(float(parse_qs(url.query).get("s", ["2"])[0]))
            self._send(200, b"late", "text/plain")
        elif path == "/trickle":  # a byte at a time, each well within a read timeout, for seconds in all
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "40")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                for _ in range(40):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
        elif path == "/loop":
            self._send(302, b"", "text/plain", {"Location": "/loop"})
        elif path == "/hop":
            self._send(302, b"", "text/plain", {"Location": "/items"})
        elif path == "/setcookie":
            self._send(200, b"cookie set", "text/plain", {"Set-Cookie": "session=abc; Path=/"})
        elif path == "/image":
            self._json(200, {"data": {"mime": "image/png", "b64": base64.b64encode(PNG).decode()}})
        else:
            self._send(404, b"unknown route", "text/plain")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _route


@contextmanager
def serve() -> Iterator[str]:
    """Yield the base URL `http://127.0.0.1:<port>` of a fresh server; stopped on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
