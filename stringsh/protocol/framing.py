"""String's chat envelope (`<𝒞=string:TOPIC>` … `</𝒞>`) and the JSON-lines frame of `daemon --json`.

Content never forges a frame: inside an envelope, a reply line that starts with `<𝒞` or `</𝒞` after any number of
backslashes (`^\\*</?𝒞`) gets one more leading backslash. A client undoes it by removing one leading backslash
from every body line that matches `^\\+</?𝒞`; no other line is touched, so ordinary replies stay byte-identical.
So the only lines that start with `<𝒞` or `</𝒞` on the daemon's output are real frame lines. JSON mode needs no
escape: the content is one JSON string.
"""

from __future__ import annotations

import re

from stringsh.escapes import json_safe

ENVELOPE_CLOSE = "</𝒞>"
#: The line after each reply of the plain loop where nobody sees prompts (pipes, `--no-echo`): the reply is
#: complete. Its body is escaped as an envelope's, so content cannot end a reply early.
END_OF_REPLY = ENVELOPE_CLOSE
#: `<𝒞=string:TOPIC>`; `<𝒞=bash:NAME>` (the README's `bash:<name>` topic written alone) is the same as
#: `<𝒞=string:bash:NAME>`, and its replies come back framed as that.
ENVELOPE_OPEN_LINE = re.compile(r"^<𝒞=(?:string:([^>]*)|(bash:[^>]*))>\s*$")
#: A shell reply's status line (`ShellResult.message`, `CliRun.message`).
SHELL_STATUS_LINE = re.compile(r"^exit: (\d+) \| cwd: (.+)$")
#: A body line a client could take for a frame line, or one already escaped (see the module docstring).
FRAME_LIKE_LINE = re.compile(r"^(?=\\*</?𝒞)", re.MULTILINE)


def escape_frame_lines(text: str) -> str:
    """Prefix every frame-like line with one backslash, so content can neither close nor open an envelope."""
    return FRAME_LIKE_LINE.sub("\\\\", text) if "𝒞" in text else text


def unescape_frame_lines(text: str) -> str:
    """Undo `escape_frame_lines` (what a client does with an envelope's body)."""
    return re.sub(r"^\\(?=\\*</?𝒞)", "", text, flags=re.MULTILINE) if "𝒞" in text else text


def envelope(topic: str, text: str) -> str:
    return f"<𝒞=string:{topic}>\n{escape_frame_lines(text)}\n{ENVELOPE_CLOSE}"


def envelope_topic(line: str) -> str | None:
    """The topic of an opening envelope line, or None when the line is not one."""
    match = ENVELOPE_OPEN_LINE.match(line) if line.startswith("<") else None
    if not match:
        return None
    return match.group(1) if match.group(1) is not None else match.group(2)


def shell_fields(content: str) -> dict[str, int | str]:
    """`exit` and `cwd` of a shell reply, read from its status line (the line after `re:`), else nothing.

    Only a command's own status line has this shape (what a program printed comes after `---`), so a client can
    rely on the fields instead of parsing text."""
    if "\nexit: " not in content:
        return {}
    match = SHELL_STATUS_LINE.match(content.split("\n", 2)[1])
    return {"exit": int(match.group(1)), "cwd": match.group(2)} if match else {}


def json_reply(
    request_id: str | int | None,
    ok: bool,
    code: str | None,
    topic: str,
    content: str,
    fields: dict[str, str] | None = None,
) -> str:
    """One JSON line; shell replies also carry `exit` and `cwd` (see `shell_fields`), a successful reply the
    `fields` its command gave (`path` and `block` of a document: `response.document_fields`)."""
    from stringsh.protocol.jsonbounds import dumps  # `daemon --json` only

    reply: dict[str, object] = {"id": request_id, "ok": ok, "code": code, "topic": topic, "content": content}
    reply.update(shell_fields(content))
    if fields and ok:
        reply.update(fields)
    return json_safe(dumps(reply))  # an id, topic or text holding a lone surrogate is written as its JSON escape
