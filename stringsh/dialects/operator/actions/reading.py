"""The read-only actions: fs.list, fs.read, fs.readSlice, fs.search, fs.stat. Each goes through one engine read
(policy, secrets, audit), and what leaves the process is redacted. Payloads are upstream HEAD's
(`electron/main.ts` @ 07d1935) except where its behaviour is a bug, as each function says. fs.readSlice and
fs.search read the file within the policy's read limit (`[limits] max_read_bytes`, the engine's TOO_LARGE),
where upstream has a fixed 2,000,000 bytes."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from stringsh.dialects.operator.actions.common import Refused, invalid, numbered, ok
from stringsh.escapes import shown_name
from stringsh.workspace import as_lf, split_lines

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Result
    from stringsh.workspace import Workspace

#: fs.read's own cap (upstream HEAD's MAX_READ_BYTES): past it the agent is sent to fs.readSlice.
MAX_READ_BYTES = 200_000
DEFAULT_SLICE = 120
MAX_SLICE = 400
MAX_MATCHES = 50
WHOLE = re.compile(r"[0-9]{1,9}")


def shown_lines(workspace: Workspace, text: str) -> list[str]:
    """The file's lines as they may be shown and searched: masked as a whole (a key block's body too, which a
    line alone does not show to be a secret), so a secret is never found by its own text, as /grep's."""
    from stringsh.workspace import masked_lines

    return masked_lines(workspace.redactor, text, split_lines(text), split_lines)


def fs_list(workspace: Workspace, command: Command, topic: str) -> Result:
    """Sorted by name (upstream: readdir order), folders as `[DIR] name`; secrets and engine state are never
    listed (the engine leaves them out). An empty folder has no details line, as upstream's empty payload."""
    entries = workspace.list_dir(command.fields["path"], topic=topic)
    lines = [f"[DIR] {shown_name(e.name)}" if e.is_dir else shown_name(e.name) for e in entries]
    return ok(command, f"Listed {len(entries)} entries", "\n".join(lines) or None)


def fs_read(workspace: Workspace, command: Command, topic: str) -> Result:
    """The whole text, each line ending shown as `\\n` (the README's text fidelity table: no read shows `\\r`),
    a file that is not UTF-8 as Latin-1 (one character per byte), as `/open` shows it. Past 200,000 bytes (or
    the policy's read limit, the engine's TOO_LARGE) the summary sends the agent to fs.readSlice, as the
    reference implementation does."""
    path = command.fields["path"]
    info = workspace.stat(path)
    if info is not None and not info.is_dir and info.size > MAX_READ_BYTES:
        raise Refused(f"File too large for fs.read ({info.size} bytes). Use fs.readSlice.", "TOO_LARGE")
    text = as_lf(workspace.read_text(path, topic=topic, legacy=True).text)
    return ok(command, "Read file", text or None)  # masked with the result (results.py)


def _number(command: Command, keys: tuple[str, ...], default: int) -> tuple[str, int]:
    for key in keys:
        raw = command.fields.get(key)
        if raw is None:
            continue
        if not WHOLE.fullmatch(raw.strip()) or int(raw) < 1:
            raise invalid("ERR_INVALID_READSLICE_PARAMS",
                          f"{key} must be a whole number of at least 1 (got {raw.strip()!r}).")
        return key, int(raw)
    return keys[0], default


def fs_read_slice(workspace: Workspace, command: Command, topic: str) -> Result:
    """`start` (aliases `line`, `from`; default 1) and `lines` (aliases `count`, `len`; default 120; above 400 is
    clamped to 400, as upstream and the spec's "max 400"). Upstream clamps 0, negatives and fractions silently and
    counts a final line break as an extra empty line; here a number that is not a whole number >= 1 is refused,
    a start past the last line is refused, and lines are the engine's (a final break ends a line)."""
    _, start = _number(command, ("start", "line", "from"), 1)
    _, count = _number(command, ("lines", "count", "len"), DEFAULT_SLICE)
    count = min(count, MAX_SLICE)
    path = command.fields["path"]
    file = workspace.read_text(path, topic=topic)
    lines = shown_lines(workspace, file.text)
    if start > max(len(lines), 1):
        raise invalid("ERR_INVALID_READSLICE_PARAMS",
                      f"start {start} is past the end of {file.rel} ({len(lines)} lines).")
    end = min(len(lines), start - 1 + count)
    out = [f"# {file.rel}", f"# lines {start}-{end} of {len(lines)}", ""]
    out.extend(numbered(n, lines[n - 1]) for n in range(start, end + 1))
    return ok(command, f"Read slice ({start}-{end})", "\n".join(out))


def fs_search(workspace: Workspace, command: Command, topic: str) -> Result:
    """`query` (alias `q`), trimmed, a case-sensitive substring of a line; at most 50 matches. Upstream marks
    `(truncated)` whenever 50 lines match, even when there are no more: here only when a 51st exists."""
    query = (command.fields.get("query") or command.fields.get("q") or "").strip()
    if not query:
        raise invalid("ERR_MISSING_QUERY", "missing query; use query: <text>.")
    path = command.fields["path"]
    info = workspace.stat(path)
    if info is not None and info.is_dir:
        raise invalid("ERR_SEARCH_PATH_IS_DIR", "path is a directory; use fs.list.")
    file = workspace.read_text(path, topic=topic)
    hits = [(n, line) for n, line in enumerate(shown_lines(workspace, file.text), 1) if query in line]
    shown = hits[:MAX_MATCHES]
    out = [f"# search in {file.rel}", f"# query: {query}",
           f"# matches: {len(shown)}{' (truncated)' if len(hits) > MAX_MATCHES else ''}", ""]
    out.extend(numbered(n, line) for n, line in shown)
    return ok(command, f"Search found {len(shown)} matches", "\n".join(out))


def fs_stat(workspace: Workspace, command: Command, topic: str) -> Result:
    """Upstream's JSON `{path,size,isFile,isDir,mtimeMs,ctimeMs}` but `ctimeMs` (the engine does not report a
    change time), links followed inside the root; `path` is the resolved root-relative path."""
    info = workspace.stat(command.fields["path"], topic=topic)
    if info is None:
        raise Refused(f"NOT_FOUND: No such file or folder: {workspace.relative(command.fields['path'])}")
    payload = {"path": info.rel, "size": info.size, "isFile": info.kind == "file", "isDir": info.is_dir,
               "mtimeMs": info.mtime_ns / 1_000_000}
    return ok(command, "Stat", json.dumps(payload, separators=(",", ":")))
