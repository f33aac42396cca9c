"""Reply text: the `re:` line, then category A (`message\n---\ncontent`), B (`message`) or C (`ERROR(CODE): …`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from stringsh.escapes import escape_controls
from stringsh.protocol.request import reply_header

HEADER_LIMIT = 80
#: `/set $NAME = value` on the header line: the value is a secret and is never echoed (see stringsh.actions.envstore).
SECRET_ASSIGNMENT = r"(?i)^(/{1,2}set\s+\$[A-Za-z_]\w*\s*=\s*)\S.*$"  # compiled by `re` on first use


class Result:
    """What a command returns. `ok=False` with content is a failing result that still has a body (bash EXIT_n).

    Plain classes here, not dataclasses: every start-up builds them, and a dataclass costs about a millisecond.
    """

    __slots__ = ("change", "code", "content", "fields", "message", "ok")

    def __init__(self, message: str, content: str | None = None, ok: bool = True, code: str | None = None,
                 fields: dict[str, str] | None = None, change: int | None = None) -> None:
        self.message = message
        self.content = content
        self.ok = ok
        self.code = code
        #: What the text says, for clients that should not parse it (`daemon --json`): see `document_fields`.
        self.fields = fields
        #: The change set the command made (`diffreply.with_diff` sets it), for a dialect whose replies name it.
        self.change = change

    def _fields(self) -> tuple[object, ...]:
        return (self.message, self.content, self.ok, self.code)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Result(message={!r}, content={!r}, ok={!r}, code={!r})".format(*self._fields())

    @property
    def text(self) -> str:
        if self.content is None:
            return self.message
        return f"{self.message}\n---\n{self.content}"


def document_fields(path: str, block: str | None = None) -> dict[str, str]:
    """`path` (root-relative) and `block` of a reply about a workspace document."""
    return {"path": path, "block": block} if block else {"path": path}


class Reply:
    """A formatted reply as every front end sends it; `fields` as the Result had them."""

    __slots__ = ("change", "code", "fields", "id", "ok", "text", "topic")

    def __init__(
        self,
        text: str,
        ok: bool,
        code: str | None,
        id: str | None,
        topic: str = "main",
        fields: dict[str, str] | None = None,
        change: int | None = None,
    ) -> None:
        self.text = text
        self.ok = ok
        self.code = code
        self.id = id
        self.topic = topic
        self.fields = fields
        #: The change set the request made, as its Result had it (None: it changed nothing).
        self.change = change

    def _fields(self) -> tuple[object, ...]:
        return (self.text, self.ok, self.code, self.id, self.topic)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reply) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Reply(text={!r}, ok={!r}, code={!r}, id={!r}, topic={!r})".format(*self._fields())


def cut_header(header: str) -> str:
    """Keep the header to 80 characters: 77 and `...`; one line (a quoted value may carry it over several)."""
    if "\n" in header:
        header = header.split("\n", 1)[0].rstrip("\r") + "..."
    return header if len(header) <= HEADER_LIMIT else header[: HEADER_LIMIT - 3] + "..."


def re_line(header: str, request_id: str | None) -> str:
    prefix = f"[{request_id}] " if request_id else ""
    if "$" in header:  # only `/set $NAME = value` carries a secret
        header = re.sub(SECRET_ASSIGNMENT, lambda m: m.group(1) + "••••••", header)
    return f"re: {prefix}{cut_header(header)}"


def error_text(code: str, message: str) -> str:
    return f"ERROR({code}): {message}"


def format_error_item(text: str, error: tuple[str, str], topic: str = "main",
                      mask: Callable[[str], str] | None = None) -> Reply:
    """Reply to input that failed before it became a request (bad bytes, unterminated heredoc)."""
    header, request_id = reply_header(text)
    return format_reply(header, request_id, error=error, topic=topic, mask=mask)


def format_reply(
    header: str,
    request_id: str | None,
    result: Result | None = None,
    *,
    error: tuple[str, str] | None = None,
    topic: str = "main",
    mask: Callable[[str], str] | None = None,
) -> Reply:
    """One formatter for every reply: pass a Result, or `error=(code, text)`.

    `mask` (the workspace's `redact_lines`) is where String Commands replies are masked, all of them and once:
    the echoed header, views, shell output, diffs, listings, error messages. It keeps line breaks, so a view's
    line numbers stay the file's, and masking masked text changes nothing (a reply may hold one already masked,
    e.g. a view rendered from the masked document). Message and content are masked apart, so the `---` between
    them stays.

    It is also where the reply is made safe for a terminal, after masking: `escapes.escape_controls` shows ESC, BEL,
    C1, DEL and a bare CR as `\\x1b`-style text (docs/security.md, "Terminal safety"); ordinary text is unchanged."""
    masking = mask or _unmasked

    def shown(text: str) -> str:
        return escape_controls(masking(text))

    first = re_line(shown(header), request_id)
    if error is not None:
        code, message = error
        return Reply(f"{first}\n{error_text(code, shown(message))}", False, code, request_id, topic)
    assert result is not None
    text = shown(result.message) if result.content is None else f"{shown(result.message)}\n---\n" \
        f"{shown(result.content)}"
    return Reply(f"{first}\n{text}", result.ok, result.code, request_id, topic, result.fields, result.change)


def _unmasked(text: str) -> str:
    return text
