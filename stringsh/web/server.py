"""The page's HTTP side: its static files, its JSON API and its event stream, behind the loopback guards.

- Every request: its `Host` must name the address served (DNS rebinding: 421 otherwise), and an `Origin`, when
  sent, must be this server's (403). Every response carries a strict Content-Security-Policy (scripts, styles,
  images and connections from this server only; no inline script; no frame), `nosniff` and no referrer.
- `/` and `/static/…`: the page, read from the package (a fixed list: no path from the request reaches the disk).
  They hold no data, so they need no token: the person opens `http://ADDR:PORT/#token=TOKEN`, the fragment never
  leaves the browser, and the page's script sends the token as `Authorization: Bearer TOKEN` on every API call.
- `/api/…`: the token required (httpguard.require_token: 401 without it). A write (POST) also needs an `Origin`
  header naming this server, and a JSON body of at most `MAX_BODY` bytes: a page of another site can neither
  send the token nor pass as this origin, so a forged request is refused.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from stringsh import __version__
from stringsh.errors import StringError
from stringsh.httpguard import header, require_token, send_json
from stringsh.web import actions, views
from stringsh.web.feed import Feed

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from stringsh.httpguard import App, Receive, Scope, Send
    from stringsh.workspace import Workspace

CSP = ("default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = ((b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY"),
                    (b"cross-origin-resource-policy", b"same-origin"))
#: The page's files: the only names `/static/` serves, each with its type.
STATIC = {"app.js": "text/javascript", "stream.js": "text/javascript", "app.css": "text/css",
          "icon.svg": "image/svg+xml"}
#: Bytes of a request body at most (a write names a change, a client and a topic).
MAX_BODY = 4096
#: Change sets and audit records in one page at most.
MAX_PAGE = 500
#: Seconds an event stream waits for news before it looks whether the server is stopping.
STOP_LOOK = 0.5
#: The feed's answer to a page of older records whose place was rotated out of the log since the page loaded: the
#: page holds every record from there to now, and the log keeps nothing older.
ROTATED_OUT = ("The records older than these were rotated out of the audit log since this page loaded them (the log "
               "keeps its newest 16 MiB or so): nothing older is kept.")
#: HTTP status of each refusal's code.
STATUS = {"CONFLICT": 409, "NOT_FOUND": 404, "NOT_PERMITTED": 403, "READ_ONLY": 503, "INVALID_PAYLOAD": 400}


def guarded(app: App, hosts: set[str]) -> App:
    """The app behind the Host and Origin checks, its responses with the security headers."""
    origins = {f"http://{host}".encode() for host in hosts}
    allowed = {host.encode() for host in hosts}

    async def guard(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if header(scope, b"host") not in allowed:
            await send_json(send, 421, {"error": "ERROR(NOT_PERMITTED): this server does not answer to that Host",
                                        "hint": "Open the address stringsh web printed."})
            return
        origin = header(scope, b"origin")
        if origin is not None and origin not in origins:
            await send_json(send, 403, {"error": "ERROR(NOT_PERMITTED): a request from another site",
                                        "hint": "Only the page stringsh web serves may call it."})
            return

        async def secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, secured)

    return guard


def writes_from_page(app: App) -> App:
    """A POST needs this server's Origin (checked against the Host by `guarded`) and a small body."""

    async def check(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") not in ("GET", "HEAD"):
            if header(scope, b"origin") is None:
                await send_json(send, 403, {"error": "ERROR(NOT_PERMITTED): a write without the page's Origin",
                                            "hint": "Changes are made from the page stringsh web serves."})
                return
            length = header(scope, b"content-length")
            if length is None or not length.isdigit() or int(length) > MAX_BODY:
                await send_json(send, 413, {"error": f"ERROR(TOO_LARGE): a request body over {MAX_BODY} bytes, "
                                            "or of no stated length", "hint": "Send the JSON the page sends."})
                return
        await app(scope, receive, send)

    return check


def refused(exc: StringError) -> JSONResponse:
    return JSONResponse({"error": f"ERROR({exc.code}): {exc.message}", "hint": exc.hint, "code": exc.code},
                        status_code=STATUS.get(exc.code, 400))


def asset(name: str) -> bytes:
    return files("stringsh.web").joinpath("static", name).read_bytes()


def build(ws: Workspace, token: str, hosts: set[str], feed: Feed) -> App:
    """The whole app: the page and its files open, the API behind the token, everything behind `guarded`."""
    import anyio

    from stringsh.workspace import AuditEntry, AuditSpot

    nowhere = AuditSpot(0, 0)  # where a line the feed's filter looks at sits does not matter to the filter

    def run(function: Callable[..., Any], *args: Any) -> Any:
        return anyio.to_thread.run_sync(lambda: function(*args))

    async def page(_: Request) -> Response:
        return Response(asset("index.html"), media_type="text/html; charset=utf-8",
                        headers={"cache-control": "no-store"})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return JSONResponse({"error": "ERROR(NOT_FOUND): no such file"}, status_code=404)
        return Response(asset(name), media_type=STATIC[name], headers={"cache-control": "no-cache"})

    async def overview(_: Request) -> JSONResponse:
        def read() -> dict[str, Any]:
            return {"workspace": str(ws.root), "version": __version__, "health": feed.health(),
                    "clients": feed.clients()}

        return JSONResponse(await run(read))

    async def verify(_: Request) -> JSONResponse:
        def check() -> dict[str, Any]:
            result = ws.verify_audit()
            return {"ok": result.ok, "records": result.records, "bad_line": result.bad_line, "reason": result.reason,
                    "file": result.file}

        return JSONResponse(await run(check))

    async def changes(request: Request) -> JSONResponse:
        before = _number(request.query_params.get("before"))
        limit = min(_number(request.query_params.get("limit")) or 50, MAX_PAGE)

        def read() -> dict[str, Any]:
            rows = ws.history(limit, before)
            return {"rows": [views.change_row(row, ws.change_paths(row.id)) for row in rows],
                    "next": rows[-1].id if len(rows) == limit else None}

        return JSONResponse(await run(read))

    async def change(request: Request) -> JSONResponse:
        change_id = _number(request.path_params["change"])
        if change_id is None:
            return refused(StringError("INVALID_PAYLOAD", "Not a change id.", "Give a number, as the list shows."))
        try:
            detail = await run(views.change_detail, ws, change_id)
            row = await run(ws.change, change_id)
        except StringError as exc:
            return refused(exc)
        if row is not None:
            detail["row"] = views.change_row(row, await run(ws.change_paths, change_id))
        return JSONResponse(detail)

    async def history(request: Request) -> JSONResponse:
        path = request.query_params.get("path", "")

        def read() -> dict[str, Any]:
            return {"path": path, "rows": [views.change_row(row, ws.change_paths(row.id))
                                           for row in ws.path_history(path, MAX_PAGE)]}

        return JSONResponse(await run(read))

    async def audit(request: Request) -> JSONResponse:
        query = request.query_params
        wanted = views.Filter(query.get("client", ""), query.get("path", ""), query.get("outcome", ""))
        limit = min(_number(query.get("limit")) or 100, MAX_PAGE)

        def keep(line: str) -> bool:
            return views.wanted_record(AuditEntry(nowhere, line), ws.redact, wanted) is not None

        def read() -> dict[str, Any]:
            spot = views.parse_spot(query.get("before"))
            if spot is not None and not ws.audit_kept(spot):
                return {"records": [], "next": None, "note": ROTATED_OUT}
            entries, more = ws.audit_before(spot, limit, keep)
            records = [shown for shown in (views.record(entry, ws.redact) for entry in entries) if shown]
            return {"records": records, "next": views.spot_text(more)}

        return JSONResponse(await run(read))

    async def undo_preview(request: Request) -> JSONResponse:
        client, topic = request.query_params.get("client", ""), request.query_params.get("topic", "")
        change_id = await run(actions.next_undo, ws, client, topic)
        if change_id is None:
            return refused(StringError("NOT_FOUND", f"Client {client} has nothing to undo in topic {topic}.",
                                       "Its changes were all undone, skipped or reverted."))
        return JSONResponse(await run(views.change_detail, ws, change_id))

    async def revert(request: Request) -> JSONResponse:
        body = await _body(request)
        change_id = body.get("change") if isinstance(body, dict) else None
        if not isinstance(change_id, int) or isinstance(change_id, bool):
            return refused(StringError("INVALID_PAYLOAD", "A revert names one change: {\"change\": ID}.",
                                       "Confirm a revert from the page."))
        try:
            message, made = await run(actions.revert, ws, change_id)
        except StringError as exc:
            return refused(exc)
        return JSONResponse({"message": message, "change": made})

    async def undo(request: Request) -> JSONResponse:
        body = await _body(request)
        fields = body if isinstance(body, dict) else {}
        client, topic, expected = fields.get("client"), fields.get("topic"), fields.get("change")
        if not (isinstance(client, str) and isinstance(topic, str) and isinstance(expected, int)):
            return refused(StringError("INVALID_PAYLOAD", "An undo names a client, a topic and the change it takes "
                                       "back: {\"client\": …, \"topic\": …, \"change\": ID}.",
                                       "Confirm an undo from the page."))
        try:
            message, made = await run(actions.undo, ws, client, topic, expected)
        except StringError as exc:
            return refused(exc)
        return JSONResponse({"message": message, "change": made})

    async def events(_: Request) -> Response:
        from sse_starlette.sse import EventSourceResponse

        stopping = anyio.Event()  # set when the server stops: the stream then ends as a whole response

        async def stream() -> AsyncIterator[dict[str, str] | bytes]:
            async with feed.listening() as queue:
                yield {"event": "hello", "data": json.dumps({"type": "hello"})}
                while not stopping.is_set():
                    data = None
                    with anyio.move_on_after(STOP_LOOK):
                        data = await queue.get()
                    if data is not None:
                        yield data  # the batch's event, encoded once for every page (feed.event)

        return EventSourceResponse(stream(), ping=15, headers={"cache-control": "no-store"}, shutdown_event=stopping,
                                   shutdown_grace_period=2 * STOP_LOOK)

    api = Starlette(routes=[
        Route("/overview", overview), Route("/verify", verify), Route("/changes", changes),
        Route("/changes/{change}", change), Route("/audit", audit), Route("/history", history),
        Route("/undo-preview", undo_preview),
        Route("/revert", revert, methods=["POST"]), Route("/undo", undo, methods=["POST"]),
        Route("/events", events),
    ])

    async def starting() -> AsyncIterator[None]:
        feed.start()
        yield
        await feed.stop()

    app = Starlette(routes=[
        Route("/", page), Route("/static/{name}", static),
        Mount("/api", app=require_token(writes_from_page(api), token)),
    ], lifespan=lambda _app: _lifespan(starting))
    return guarded(app, hosts)


def _lifespan(starting: Callable[[], AsyncIterator[None]]) -> Any:
    import contextlib

    return contextlib.asynccontextmanager(starting)()


def _number(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() and len(text) < 19 else None


async def _body(request: Request) -> object:
    """The JSON body, at most MAX_BODY bytes whatever its stated length; None when it is not JSON."""
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            return None
    try:
        return json.loads(data)
    except ValueError:
        return None
