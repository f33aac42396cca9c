"""MCP roots: a client may say which folders it works in. They narrow the policy's roots, never widen them.

Each client root is intersected with each policy root: a client root inside a policy root allows that folder; a
policy root inside a client root allows the policy root; a client root that meets no policy root is ignored (and
logged on stderr). When the client offers roots and none meets the policy, nothing is allowed: every path is
refused with FILE_NOT_ALLOWED (the client asked to be kept to folders stringsh may not open). A client without
the roots capability, or with an empty list, gets the policy's roots. `notifications/roots/list_changed` marks the
list stale; the next call asks the client again. Kept per connection (HTTP sessions each have their own). A
relative path is relative to the first folder allowed, as the server's instructions say (`Call.from_first`)."""

from __future__ import annotations

import itertools
import logging
import os
import threading
import warnings
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from stringsh.errors import StringError

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from stringsh.workspace import Workspace

log = logging.getLogger("stringsh.mcp")

ROOTS_CHANGED = "notifications/roots/list_changed"
#: The connection key of the stdio transport (one client per process).
STDIO = "stdio"
#: Connections whose roots are remembered at most (then all are asked again).
MAX_CONNECTIONS = 256


def uri_path(uri: str) -> Path | None:
    """The real folder a `file://` root names; None for any other scheme or a relative path."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = unquote(parsed.path)
    if not path.startswith("/") or "\0" in path:
        return None
    return Path(os.path.realpath(path))


def intersect(offered: list[Path], policy: list[Path]) -> tuple[Path, ...]:
    """The folders both allow (deduplicated, in the client's order)."""
    allowed: list[Path] = []
    for root in offered:
        hits = [root if root.is_relative_to(folder) else folder for folder in policy
                if root.is_relative_to(folder) or folder.is_relative_to(root)]
        if not hits:
            log.warning("stringsh mcp: client root %s is outside every policy root: ignored", root)
        allowed.extend(hit for hit in hits if hit not in allowed)
    return tuple(allowed)


#: How a sessionless HTTP request's key starts (an `Mcp-Session-Id` is visible ASCII: it never starts so).
SESSIONLESS = " request "
_KEYS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
_KEYS_LOCK = threading.Lock()
_NUMBERS = itertools.count(1)


def connection_key(ctx: ServerRequestContext[Any, Any]) -> str:
    """Which client connection a message came on: the HTTP session id, or the one stdio peer. A request of the
    newest protocol's HTTP (2026-07-28) has no session: it is a connection of its own, keyed by its session object,
    so two calls in flight together, or a call beside an open `subscriptions/listen` stream, never share a client."""
    request = ctx.request
    if request is None:
        return STDIO
    headers = getattr(request, "headers", None)  # the transport's (starlette) request: headers when HTTP
    if headers is None:
        return STDIO
    session = headers.get("mcp-session-id", "")
    return str(session) if session else _request_key(ctx.session)


def _request_key(session: object) -> str:
    """A key no other request ever had (an object's `id` is reused once it is gone)."""
    with _KEYS_LOCK:
        key = _KEYS.get(session)
        if key is None:
            key = _KEYS[session] = f"{SESSIONLESS}{next(_NUMBERS)}"
    return key


class ClientRoots:
    """Per connection: the client's roots as last asked, or None (not asked yet, or stale after list_changed)."""

    def __init__(self, workspace: Workspace) -> None:
        self.ws = workspace
        self.cache: dict[str, tuple[Path, ...] | None] = {}

    def policy_folders(self) -> list[Path]:
        return [folder for _, folder, _ in self.ws.confiner.root_list()]

    def changed(self, request: ServerRequestContext[Any, Any]) -> None:
        self.forget(connection_key(request))

    def forget(self, key: str) -> None:
        """Ask the connection again on its next call (list_changed), or forget it (it ended)."""
        self.cache.pop(key, None)

    async def allowed(self, request: ServerRequestContext[Any, Any]) -> tuple[Path, ...] | None:
        """The folders this connection may use; None for all of the policy's."""
        from mcp_types import ClientCapabilities, RootsCapability

        key = connection_key(request)
        if key in self.cache:
            return self.cache[key]
        session = request.session
        allowed: tuple[Path, ...] | None = None
        if session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = await session.list_roots()
            except Exception as exc:  # a client that offers roots but cannot list them: keep to the policy
                log.warning("stringsh mcp: roots/list failed (%s); using the policy's roots", exc)
                return None
            offered = [path for path in (uri_path(str(root.uri)) for root in result.roots) if path is not None]
            if result.roots:
                allowed = intersect(offered, self.policy_folders())
        if len(self.cache) >= MAX_CONNECTIONS:  # HTTP sessions come and go: ask again rather than grow
            self.cache.clear()
        self.cache[key] = allowed
        return allowed


def none_allowed() -> StringError:
    return StringError("FILE_NOT_ALLOWED", "None of the client's roots lies inside the policy's roots",
                       "Offer a root inside the workspace (list_allowed_directories shows the policy's folders).")
