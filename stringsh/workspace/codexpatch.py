"""Codex's `apply_patch` format (`*** Begin Patch` … `*** End Patch`) as one change set (docs/apply-patch.md).

GPT-family agents emit it instead of a unified diff: files are named by `*** Add File:`, `*** Delete File:` and
`*** Update File:` (optionally `*** Move to:`), and an update's chunks carry no line numbers: each is found by its
context and removed lines, searched from where the chunk before it ended (after its `@@ line` when it names one;
at the file's end with `*** End of File`). Lines are matched as Codex matches them (codexmatch.py: exactly,
then with whitespace and Unicode punctuation relaxed, a relaxed match only where it is the only one); what is
written keeps the file's encoding, BOM and line endings (hunks.py applies each chunk, located here, as an exact
hunk holding the file's own context and removed lines). Every file is worked out first and written in one change
set, so a chunk that matches nothing writes nothing, and one undo takes back every file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.atomic import sha256
from stringsh.workspace.codexmatch import WORK, Matcher
from stringsh.workspace.guards import refuse_mask_in_hunks
from stringsh.workspace.hunks import StaleFile, apply_hunks
from stringsh.workspace.models import ChangeSet, FileChange
from stringsh.workspace.patches import Hunk
from stringsh.workspace.textio import decode_for_edit, encode, line_spans, split_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.redact import Redactor

__all__ = ["WORK", "apply_codex", "parse_codex"]

BEGIN, END, EOF = "*** Begin Patch", "*** End Patch", "*** End of File"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
FORMAT_HINT = ("Send '*** Begin Patch', then per file '*** Add File: path' (lines '+…'), '*** Delete File: path' or "
               "'*** Update File: path' (chunks: '@@', then ' ' context, '-' removed, '+' added lines), then "
               "'*** End Patch'.")


def is_codex_patch(text: str) -> bool:
    """True when the body's first non-blank line is `*** Begin Patch` (surrounding spaces allowed, as Codex's)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip() == BEGIN
    return False


@dataclass
class Chunk:
    """One `@@` chunk: `anchor` the `@@ text` line to find first ("" for none), `lines` as (kind, text)."""

    anchor: str = ""
    lines: list[tuple[str, str]] = field(default_factory=list)
    at_end: bool = False


@dataclass
class FileOp:
    """One file of the patch: `kind` "add", "delete" or "update"; `move_to` the new path of an update."""

    kind: str
    path: str
    move_to: str = ""
    added: list[str] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)


def refuse_unchangeable(ws: Workspace, path: str) -> None:
    """A path no change may touch (`.git/config`, a hook: protected.py; stringsh's own folders) is refused as such
    before anything else is said of it, such as that it already exists (the write would refuse it anyway)."""
    target, _, rest = ws.confiner.route(path)
    target.check_change(target.own_parts(rest), path)


def _bad(message: str, line: int | None = None) -> StringError:
    where = f" (line {line} of the patch)" if line else ""
    return StringError("INVALID_PAYLOAD", f"{message}{where}; nothing was written.", FORMAT_HINT)


def _path(value: str, number: int) -> str:
    path = value.strip()
    if not path:
        raise _bad("A file header names no path", number)
    if path.startswith("/") or ".." in path.replace("\\", "/").split("/"):
        raise _bad(f"The patch names {path!r}: paths are relative to the workspace, without '..'", number)
    return path


def parse_codex(text: str) -> list[FileOp]:
    """The patch's files in order; INVALID_PAYLOAD for anything that is not the format (no fuzz, no guessing)."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start == len(lines) or lines[start].strip() != BEGIN:
        raise _bad("The patch does not start with '*** Begin Patch'")
    if lines[-1].strip() != END:
        raise _bad("The patch does not end with '*** End Patch'")
    ops: list[FileOp] = []
    for number, raw in enumerate(lines[start + 1 : -1], start + 2):
        marker = raw.strip()
        op = ops[-1] if ops else None
        if marker.startswith((ADD.strip(), DELETE.strip(), UPDATE.strip())) and marker.startswith("*** "):
            kind = "add" if marker.startswith(ADD.strip()) else "delete" if marker.startswith(DELETE.strip()) \
                else "update"
            head = {"add": ADD, "delete": DELETE, "update": UPDATE}[kind].strip()
            ops.append(FileOp(kind, _path(marker[len(head):], number)))
        elif marker.startswith(MOVE.strip()) and marker.startswith("*** "):
            if op is None or op.kind != "update" or op.chunks or op.move_to:
                raise _bad("'*** Move to:' must follow its '*** Update File:' line", number)
            op.move_to = _path(marker[len(MOVE.strip()):], number)
        elif op is None:
            raise _bad(f"Expected a file header ('*** Update File: path' …), found {raw[:80]!r}", number)
        elif op.kind == "add":
            if not raw.startswith("+"):
                raise _bad(f"Every line of '*** Add File: {op.path}' starts with '+', found {raw[:80]!r}", number)
            op.added.append(raw[1:])
        elif op.kind == "delete":
            raise _bad(f"'*** Delete File: {op.path}' takes no lines, found {raw[:80]!r}", number)
        elif marker == EOF:
            if not op.chunks or not op.chunks[-1].lines:
                raise _bad("'*** End of File' must close a chunk with lines", number)
            op.chunks[-1].at_end = True
        elif (raw.startswith("@@") and raw.strip() == "@@") or raw.startswith("@@ "):
            op.chunks.append(Chunk(raw[3:] if raw.startswith("@@ ") else ""))
        else:
            kind = raw[:1] or " "  # an empty line: context whose leading space an editor stripped
            if kind not in " -+" or raw.startswith("***"):
                raise _bad(f"A line of the chunks of {op.path} starts with {raw[:1]!r} ({raw[:80]!r}); each starts "
                           "with ' ', '-' or '+'", number)
            if not op.chunks:
                op.chunks.append(Chunk())  # Codex lets the first chunk of a file omit its '@@'
            elif op.chunks[-1].at_end:
                raise _bad("A chunk line after '*** End of File'", number)
            op.chunks[-1].lines.append((kind, raw[1:].removesuffix("\r")))
    if not ops:
        raise _bad("The patch names no file")
    for op in ops:
        if op.kind == "update" and (not op.chunks or any(not chunk.lines for chunk in op.chunks)):
            raise _bad(f"'*** Update File: {op.path}' has an empty chunk (it needs ' ', '-' or '+' lines)")
    return ops


def _hunks(text: str, op: FileOp, rel: str, redact: Redactor) -> list[Hunk]:
    """Each chunk located in `text` (codexmatch.py: exact, then relaxed and unique) as an exact unified hunk whose
    context and removed lines are the file's own; PATCH_FAILED for one that matches nowhere."""
    spans = line_spans(text)
    old = [text[begin:end] for begin, end, _ in spans]
    masked: list[str] = []

    def quote(index: int) -> str:
        """The file's line as a refusal may show it: masked as the whole file is (redact.masked_lines)."""
        if not masked:
            from stringsh.workspace.redact import masked_lines

            masked.extend(masked_lines(redact, text, old, split_lines))
        return masked[index]

    lines = Matcher(old, rel, quote, redact)
    unterminated = bool(spans) and spans[-1][1] == spans[-1][2]
    hunks: list[Hunk] = []
    cursor = 0
    for number, chunk in enumerate(op.chunks, 1):
        after = f" after line {cursor} (where chunk {number - 1} ended)" if number > 1 else ""
        if chunk.anchor:
            what = f"Chunk {number} of {rel}: its line '@@ {redact(chunk.anchor)[:80]}'"
            found = lines.seek([chunk.anchor], cursor, False, what)
            if found < 0:
                raise lines.refuse(what, [chunk.anchor], cursor, False, after)
            cursor = found + 1
            after = f" after its @@ line (line {cursor})"
        want = [text for kind, text in chunk.lines if kind != "+"]
        if want:
            what = (f"Chunk {number} of {rel}: its {len(want)} context and removed lines (first: "
                    f"{redact(want[0])[:80]!r})")
            at = lines.seek(want, cursor, chunk.at_end, what)
            if at < 0:
                raise lines.refuse(what, want, cursor, chunk.at_end, after)
        else:
            at = cursor if chunk.anchor else len(old)  # a pure addition: after its @@ line, else at the end
        held = iter(old[at:at + len(want)])  # the file's own text of a relaxed match's lines is what stays
        body = [(kind, line if kind == "+" else next(held)) for kind, line in chunk.lines]
        want = old[at:at + len(want)]
        if unterminated and at + len(want) == len(old) and (old or body):
            if not want:  # adding after a last line with no line break: that line gets one
                body.insert(0, (" ", old[-1]))
                at -= 1
                want = [old[-1]]
            last = max(i for i, (kind, _) in enumerate(body) if kind != "+")
            kind, line = body[last]
            body[last] = ("-", line)
            marked = [f"{k}{t}" for k, t in body]
            marked.insert(last + 1, "\\ No newline at end of file")
            if kind == " ":
                marked.insert(last + 2, f"+{line}")
        else:
            marked = [f"{k}{t}" for k, t in body]
        new_count = sum(1 for item in marked if item[:1] in " +")
        old_count = sum(1 for item in marked if item[:1] in " -")
        hunks.append(Hunk(at + 1 if old_count else at, old_count, at + 1, new_count,
                          "".join(item + "\n" for item in marked)))
        cursor = at + len(want)
    return hunks


def codex_change_set(ws: Workspace, text: str, topic: str,
                     seen: Callable[[str], str | None]) -> tuple[ChangeSet, list[str]]:
    """The change set the patch makes, and a summary per file (`path (+a -r)`, `path (created, +n)`…). `seen`
    gives the hash this topic read a file at (its change since is a CONFLICT), None for a file it has not read."""
    from stringsh.workspace.ops.guard import require

    require(ws.policy, ws.policy.permissions.patch, "patch", mutating=True)  # files, not hunks: asked here
    limit = ws.policy.limits.max_patch_bytes
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:  # /patch says so first; the tools reach it here
        raise StringError("TOO_LARGE", f"The patch is larger than the policy allows ({size} > {limit} bytes).",
                          "Send it in parts (each a complete patch of some files), or raise [limits] max_patch_bytes.")
    ops = parse_codex(text)
    changes: list[FileChange] = []
    summaries: list[str] = []
    touched: set[str] = set()
    for op in ops:
        for path in filter(None, (op.path, op.move_to)):
            key = ws.relative(path)
            if key in touched:
                raise _bad(f"The patch changes {key} twice")
            touched.add(key)
            refuse_unchangeable(ws, path)
        rel = ws.relative(op.path)
        if op.kind == "add":
            if ws.fingerprint(op.path) is not None:
                raise StringError("CONFLICT", f"{rel} already exists; '*** Add File:' creates a new file. Nothing "
                                  "was written.", f"Change it with '*** Update File: {rel}', or add another path.")
            body = "".join(line + "\n" for line in op.added)
            changes.append(FileChange(op.path, encode(body, "utf-8", False, rel), ""))
            summaries.append(f"{rel} (created, +{len(op.added)})")
            continue
        if ws.stat(op.path, topic=topic) is None:
            raise StringError("NOT_FOUND", f"File not found: {rel}; nothing was written.",
                              f"'*** {op.kind.title()} File:' needs an existing file; '*** Add File: {rel}' "
                              "creates one.")
        raw = ws.read_bytes(op.path, topic=topic)
        expected = sha256(raw)
        if seen(op.path) not in (None, expected):
            raise StaleFile(rel)
        content, encoding, bom = decode_for_edit(raw, rel)
        if op.kind == "delete":
            changes.append(FileChange(op.path, None, expected))
            summaries.append(f"{rel} (deleted, -{len(line_spans(content))})")
            continue
        hunks = _hunks(content, op, rel, ws.redactor)
        refuse_mask_in_hunks(ws, rel, hunks)  # the same body check as a unified diff's (ops/apply.py)
        data = encode(apply_hunks(content, hunks, rel, ws.redactor), encoding, bom, rel)
        added = sum(1 for kind, _ in (c for chunk in op.chunks for c in chunk.lines) if kind == "+")
        removed = sum(1 for kind, _ in (c for chunk in op.chunks for c in chunk.lines) if kind == "-")
        if op.move_to:
            target = ws.relative(op.move_to)
            if ws.fingerprint(op.move_to) is not None:
                raise StringError("CONFLICT", f"{target} already exists; '*** Move to:' does not overwrite a file. "
                                  "Nothing was written.", f"Move it to a new path, or delete {target} first.")
            changes.append(FileChange(op.path, None, expected))
            changes.append(FileChange(op.move_to, data, ""))
            summaries.append(f"{rel} → {target} (+{added} -{removed})")
        else:
            changes.append(FileChange(op.path, data, expected))
            summaries.append(f"{rel} (+{added} -{removed})")
    return ChangeSet(files=changes), summaries


def patched_line(parts: list[str]) -> str:
    """The reply line every dialect gives: `Patched a (+1 -1)` or `Patched 2 files: a (+1 -1), b (created, +3)`."""
    return f"Patched {parts[0]}" if len(parts) == 1 else f"Patched {len(parts)} files: {', '.join(parts)}"


def apply_codex(ws: Workspace, text: str, topic: str,
                seen: Callable[[str], str | None] = lambda _path: None) -> tuple[int, list[str]]:
    """Apply the patch as one change set; (change id, summaries). A change set that rewrites a file in place is an
    edit (it needs the policy's `edit` permission, as /patch's unified diffs do)."""
    changeset, parts = codex_change_set(ws, text, topic, seen)
    in_place = any(f.data is not None and f.expected_prev_sha256 for f in changeset.files)
    return ws.apply(changeset, topic=topic, op="edit" if in_place else "write"), parts


def named_paths(text: str) -> list[str]:
    """The paths the patch's headers name, for an audit record (best effort: nothing is checked here)."""
    heads = (ADD.strip(), DELETE.strip(), UPDATE.strip(), MOVE.strip())
    return [line.strip()[len(head):].strip() for line in text.splitlines() for head in heads
            if line.strip().startswith(head + " ")]
