"""String's chat envelope (`<𝒞=string:TOPIC>` … `</𝒞>`) and the JSON-lines frame of `daemon --json`.

Content never forges a frame: inside an envelope, a reply line that starts with `<𝒞` or `</𝒞` after any number of
backslashes (`^\\*</?𝒞`) gets one more leading backslash. A client undoes it by removing one leading backslash
from every body line that matches `^\\+</?𝒞`; no other line is touched, so ordinary replies stay byte-identical.
So the only lines that start with `<𝒞` or `</𝒞` on the daemon's output are real frame lines. JSON mode needs no
escape: the content is one JSON string.
"""

from __future__ import annotations

import re
from collections.abc import Callable

ENVELOPE_CLOSE = "</𝒞>"
#: The line after each reply of the plain loop where nobody sees prompts (pipes, `--no-echo`): the reply is
#: complete. Its body is escaped as an envelope's, so content cannot end a reply early.
END_OF_REPLY = ENVELOPE_CLOSE
ENVELOPE_OPEN_LINE = re.compile(r"^<𝒞=string:([^>]*)>\s*$")
#: A shell reply's status line (`ShellResult.message`, `CliRun.message`).
SHELL_STATUS_LINE = re.compile(r"^exit: (\d+) \| cwd: (.+)$")
#: A document reply's message line: a view (`/open`, `/back`, `/refresh`, `/edit`, `/source`, `/verify`: a block
#: may follow the path) or a file write (`/write`, `/append`); see `document_fields`.
DOCUMENT_LINE = re.compile(
    r"^(?:(?:Opened|Back to|Refreshed|Edited|Verified) (?P<view>.+)|\[(?:editing|source): (?P<bracket>.+)\]"
    r"|(?:Created|Written|Appended to): (?P<file>.+))$"
)
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
    return match.group(1) if match else None


def shell_fields(content: str) -> dict[str, int | str]:
    """`exit` and `cwd` of a shell reply, read from its status line (the line after `re:`), else nothing.

    Only a command's own status line has this shape (what a program printed comes after `---`), so a client can
    rely on the fields instead of parsing text."""
    if "\nexit: " not in content:
        return {}
    match = SHELL_STATUS_LINE.match(content.split("\n", 2)[1])
    return {"exit": int(match.group(1)), "cwd": match.group(2)} if match else {}


def document_fields(content: str, is_file: Callable[[str], bool]) -> dict[str, str]:
    """`path` (root-relative) and `block` of a document reply, read from its message line (see `DOCUMENT_LINE`).

    The label after the verb is the path, maybe `#block`, maybe followed by a note (`(11 lines)`); paths may hold
    spaces, `#` or `(`, so the label is cut where the longest prefix (at a space) names a file in the workspace
    (`is_file`), or a file and a block. Nothing when no prefix does (a page from a server, a file gone since)."""
    lines = content.split("\n", 2)
    match = DOCUMENT_LINE.match(lines[1]) if len(lines) > 1 else None
    if match is None:
        return {}
    label = match.group("view") or match.group("bracket") or match.group("file")
    blocks = match.group("file") is None
    cuts = [len(label), *(at for at in range(len(label) - 1, 0, -1) if label[at] == " ")]
    for cut in cuts:
        candidate = label[:cut].rstrip(":,")
        if is_file(candidate):
            return {"path": candidate}
        path, hash_, block = candidate.rpartition("#")
        if blocks and hash_ and block and " " not in block and is_file(path):
            return {"path": path, "block": block}
    return {}


def json_reply(
    request_id: str | int | None,
    ok: bool,
    code: str | None,
    topic: str,
    content: str,
    is_file: Callable[[str], bool] | None = None,
) -> str:
    """One JSON line; shell replies also carry `exit` and `cwd` (see `shell_fields`), document replies `path` and
    `block` when given `is_file` (see `document_fields`)."""
    import json  # `daemon --json` only

    reply: dict[str, object] = {"id": request_id, "ok": ok, "code": code, "topic": topic, "content": content}
    reply.update(shell_fields(content))
    if is_file is not None and ok:
        reply.update(document_fields(content, is_file))
    return json.dumps(reply, ensure_ascii=False)
