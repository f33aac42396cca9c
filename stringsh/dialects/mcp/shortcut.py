"""The tools the stdio front answers itself: the reads `list_directory`, `get_file_info`, `read_text_file` and
`list_allowed_directories`, and `edit_file`.

Through the SDK a call crosses two thread hops, the request and argument models and the result's per-version
sieve before the engine is reached; the reference server's whole round trip costs less than that. So on stdio
the front's reader runs these itself, through the same engine request (`Calls.answer_text`: one request of
the `mcp` dialect with the same tool name, paths, client and topic, the same masking and audit record), and writes
the reply the SDK would (tests/dialects/mcp/test_mcp_shortcut.py holds the bytes equal to the SDK's, refusals
and masked secrets included); nothing here needs the SDK, so they are answered while it is still being imported.
Only a call the SDK would take as it is comes this way: a handshake-era protocol, a connection whose client and
roots are known (a client without the roots capability from the start, else once a call through the SDK asked
for them), no `_meta`, and arguments of exactly the schema's names and JSON types (anything the SDK would coerce,
default or refuse goes to the SDK). An edit is done here at most once: its reply is written whatever it holds
(a reply the SDK's serializer would write differently cannot come of it: arguments with a lone surrogate go to
the SDK), never handed to the SDK to be done again. It runs to its end as the reader's work, so no cancel can
reach it (the SDK's path undoes a cancelled edit; here the reply comes first).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from stringsh.dialects.mcp.calls import tool_call
from stringsh.dialects.mcp.listing import allowed, file_info_text, listing
from stringsh.dialects.mcp.reading import read_text
from stringsh.dialects.mcp.roots import ROOTS_CHANGED, STDIO
from stringsh.dialects.mcp.shaped import Shaped
from stringsh.dialects.mcp.textedit import EditOperation, apply_edits
from stringsh.escapes import SURROGATE

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.dialects.mcp.calls import Call, Calls

def _count(value: object) -> bool:
    """A `head`/`tail` value the SDK takes as it is: null or a non-negative JSON integer."""
    return value is None or (type(value) is int and value >= 0)


def _edits(arguments: dict[str, Any]) -> list[EditOperation] | None:
    """`edit_file`'s edits when the SDK would pass them unchanged: exactly `path`, `edits` and maybe `dryRun` (a
    JSON boolean), each edit exactly {oldText, newText} as strings, no lone surrogate anywhere."""
    if arguments.keys() not in ({"path", "edits"}, {"path", "edits", "dryRun"}) \
            or type(arguments.get("dryRun", False)) is not bool or type(arguments["edits"]) is not list:
        return None
    edits = []
    for edit in arguments["edits"]:
        if type(edit) is not dict or edit.keys() != {"oldText", "newText"}:
            return None
        old, new = edit["oldText"], edit["newText"]
        if type(old) is not str or type(new) is not str or SURROGATE.search(old) or SURROGATE.search(new):
            return None
        edits.append(EditOperation(old, new))
    return edits


def work_for(name: object, arguments: dict[str, Any]) -> Callable[[Call], str | Shaped] | None:
    """The engine work of a call to one of these tools with arguments the SDK would pass unchanged."""
    if name == "list_allowed_directories":
        return allowed if not arguments else None
    path = arguments.get("path")
    if type(path) is not str:
        return None
    if name == "edit_file":
        edits = None if SURROGATE.search(path) else _edits(arguments)
        if edits is None:
            return None
        dry_run: bool = arguments.get("dryRun", False)
        return lambda call: apply_edits(call, path, edits, dry_run=dry_run)
    if name in ("list_directory", "get_file_info"):
        if len(arguments) != 1:
            return None
        if name == "list_directory":
            return lambda call: listing(call, path)
        return lambda call: file_info_text(call, path)
    if name == "read_text_file" and arguments.keys() <= {"path", "head", "tail"}:
        head, tail = arguments.get("head"), arguments.get("tail")
        if _count(head) and _count(tail):
            return lambda call: Shaped(read_text(call, path, head, tail))
    return None


def client_name(initialize: dict[str, Any]) -> str | None:
    """The client's name as calls.client_name reads it from the SDK's copy of the same `initialize`."""
    name = initialize["params"]["clientInfo"]["name"].strip()
    return name[:80] if name else None


class Shortcut:
    """Answers these tools on the stdio connection once it is settled (`Calls.settled`)."""

    def __init__(self, calls: Calls, initialize: dict[str, Any]) -> None:
        self.calls = calls
        self.agent = client_name(initialize)
        #: Set once the client sent `logging/setLevel`: the SDK then answers every call, so that a refusal also
        #: reaches it as a log message (logging_capability.py).
        self.logging = False
        if "roots" not in initialize["params"]["capabilities"]:  # the SDK's path finds the same: no roots to ask
            calls.sessions.adopt(STDIO, self.agent)
            calls.roots.cache[STDIO] = None

    def serve(self, line: bytes, send: Callable[[bytes], None]) -> bool:
        """Answer `line` and send the reply (its audit record written after it, as every front end does), or
        return False to leave it to the SDK."""
        with self.calls.ws.records_after_reply():
            reply = self.answer(line)
            if reply is None:
                return False
            send(reply)
        return True

    def answer(self, line: bytes) -> bytes | None:
        """The reply line to `line`, or None to leave it to the SDK."""
        if b'"tools/call"' not in line or self.logging:
            return None
        try:
            message = json.loads(line)
        except ValueError:
            return None
        if not isinstance(message, dict) or message.keys() != {"jsonrpc", "id", "method", "params"} \
                or message["jsonrpc"] != "2.0" or message["method"] != "tools/call":
            return None
        request_id, params = message["id"], message["params"]
        if type(request_id) not in (int, str) or not isinstance(params, dict) \
                or params.keys() != {"name", "arguments"} or not isinstance(params["arguments"], dict):
            return None
        work = work_for(params["name"], params["arguments"])
        settled = self.calls.settled(STDIO) if work is not None else None
        if work is None or settled is None:
            return None
        mine, allowed = settled
        tool, paths = tool_call(params)
        text, failed, data = self.calls.answer_text(mine, self.agent, allowed, tool, paths, work)
        result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": failed}
        if data is not None:  # a success's structured content (shaped.py), after `isError` as the SDK writes it
            result["structuredContent"] = data
        reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        try:  # as the SDK's serializer writes it (non-ASCII as UTF-8, control characters escaped)
            return json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        except UnicodeEncodeError:  # a lone surrogate (a file name that is not UTF-8): the SDK's to say
            if params["name"] == "edit_file":  # done already: said here, never done twice
                return json.dumps(reply, separators=(",", ":")).encode() + b"\n"
            return None

    def passing(self, line: bytes) -> None:
        """A line on its way to the SDK: a roots change forgets the roots now, before the next call is read (the
        SDK's middleware would forget them only once it gets to the notification)."""
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("method") == ROOTS_CHANGED:
            self.calls.roots.forget(STDIO)
        if isinstance(message, dict) and message.get("method") == "logging/setLevel":
            self.logging = True
