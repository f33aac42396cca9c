"""Exact hunk application for the change-set API's `Patch`/`Hunk` and /patch's unified diffs: no fuzz, no offset search.

A hunk applies at the line its header names or not at all: every context and removed line must equal the file's
line there (its text, without the line ending), and a `\\ No newline at end of file` marker must tell the truth
about the file's last line. Everything else keeps the file's bytes: context lines are copied from the file (each
keeps its own ending), an added line takes the ending of the removed line it stands in for, else the file's
dominant one (a CRLF file patched with an LF diff stays CRLF, a mixed one keeps each line's), and the encoding
and BOM stay. A trailing `\\r` on a diff line (a diff made against a CRLF file) is
the line's ending, not its text: in the shared line model (textio.py) no line holds a `\\r`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.atomic import sha256
from stringsh.workspace.models import PATCH_ACTIONS, FileChange, Hunk, Patch
from stringsh.workspace.textio import decode, dominant_newline, encode, line_spans, split_lines

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.redact import Redactor

#: How much of a line a refusal quotes.
SHOWN = 160
COUNTS_HINT = "Make the @@ header count the hunk's lines (context and removed: old; context and added: new), or make " \
              "the diff again (git diff, diff -u)."


class HunkLine(NamedTuple):
    kind: str  # " " context, "-" removed, "+" added
    text: str
    final: bool  # followed by `\ No newline at end of file`: this side's last line has no line break


class PatchFailed(StringError):
    """A hunk that does not match the file. `first`..`last` are the file's lines the hunk covers (to re-read)."""

    def __init__(self, rel: str, message: str, first: int, last: int) -> None:
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        hint = f"Read {rel} {span} again and redo the hunk." if last else f"Read {rel} again and redo the patch."
        super().__init__("PATCH_FAILED", f"{message} Nothing was written.", hint)
        self.rel = rel
        self.first = first
        self.last = last


class StaleFile(StringError):
    """The file does not hold the bytes the patch was made against (`expected_prev_sha256`)."""

    def __init__(self, rel: str) -> None:
        super().__init__("CONFLICT", f"{rel} changed since it was read; nothing was written.",
                         f"Read {rel} again and redo the patch.")
        self.rel = rel


def label(number: int, rel: str, hunk: Hunk) -> str:
    return f"Hunk {number} of {rel} ({hunk.header})"


def parse_lines(hunk: Hunk, number: int, rel: str) -> list[HunkLine]:
    """The hunk's body as typed lines; INVALID_PAYLOAD for a line that is none, or counts the header denies."""
    raw = hunk.lines.split("\n")
    if raw and raw[-1] == "":
        raw.pop()  # the body's own last line break
    lines: list[HunkLine] = []
    for item in raw:
        if item.startswith("\\"):
            if not lines or lines[-1].final:
                raise StringError("INVALID_PAYLOAD", f"{label(number, rel, hunk)} has a stray '{item.rstrip()}'.",
                                  "The marker \\ No newline at end of file follows the line it is about.")
            lines[-1] = lines[-1]._replace(final=True)
            continue
        kind = item[:1] or " "  # an empty line: a context line whose leading space an editor stripped
        if kind not in " -+":
            raise StringError(
                "INVALID_PAYLOAD",
                f"{label(number, rel, hunk)}: line {len(lines) + 1} of its body starts with {kind!r}.",
                "Each line of a hunk starts with ' ' (context), '-' (removed) or '+' (added).",
            )
        text = item[1:]
        lines.append(HunkLine(kind, text[:-1] if text.endswith("\r") else text, False))
    old = sum(1 for line in lines if line.kind != "+")
    new = sum(1 for line in lines if line.kind != "-")
    if (old, new) != (hunk.old_lines, hunk.new_lines):
        raise StringError(
            "INVALID_PAYLOAD",
            f"{label(number, rel, hunk)}: the header counts {hunk.old_lines} old and {hunk.new_lines} new lines, "
            f"the body has {old} and {new}.",
            COUNTS_HINT,
        )
    return lines


def check_patches(patches: list[Patch]) -> None:
    """Refuse a malformed list before any file is read: wrong types, unknown actions, a path twice, bad hunks."""
    seen: set[str] = set()
    for patch in patches:
        if not isinstance(patch, Patch):
            raise StringError("INVALID_PAYLOAD", f"Not a Patch: {type(patch).__name__}")
        if patch.action not in PATCH_ACTIONS:
            raise StringError("INVALID_PAYLOAD", f"Unknown patch action {patch.action!r} for {patch.path}",
                              f"Use one of: {', '.join(PATCH_ACTIONS)}.")
        key = patch.path.strip("/").removeprefix("./")
        if key in seen:
            raise StringError("INVALID_PAYLOAD", f"The change set patches {patch.path} twice; nothing was written.",
                              "Give each file once, with all its hunks in one patch.")
        seen.add(key)
        last = -1
        for number, hunk in enumerate(patch.hunks, 1):
            numbers = (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines)
            if not isinstance(hunk, Hunk) or not all(isinstance(n, int) and n >= 0 for n in numbers):
                raise StringError("INVALID_PAYLOAD", f"Hunk {number} of {patch.path} is not a valid Hunk.",
                                  "Hunk(old_start, old_lines, new_start, new_lines, lines), numbers 0 or more.")
            parse_lines(hunk, number, patch.path)
            start = _start(hunk)
            if start < last:
                raise StringError("INVALID_PAYLOAD",
                                  f"{label(number, patch.path, hunk)} overlaps or comes before the hunk above it.",
                                  "Give a file's hunks in order, each after the lines of the one before.")
            last = start + hunk.old_lines


def _start(hunk: Hunk) -> int:
    """The 0-based index of the hunk's first old line (a hunk with no old lines goes after line `old_start`)."""
    return hunk.old_start if hunk.old_lines == 0 else hunk.old_start - 1


def _shown(text: str, redact: Callable[[str], str] = str) -> str:
    shown = redact(text)
    return repr(shown if len(shown) <= SHOWN else shown[:SHOWN] + "…")


def apply_hunks(text: str, hunks: list[Hunk] | tuple[Hunk, ...], rel: str, redact: Redactor | None = None) -> str:
    """`text` with every hunk applied exactly; PatchFailed at the first line that differs. `redact` masks the
    lines a refusal quotes: the file's as the whole file is masked (a key block's body line is a secret only as
    part of the block), the diff's own line by line."""
    spans = line_spans(text)
    old = [(text[start:end], text[end:stop]) for start, end, stop in spans]
    mask: Callable[[str], str] = redact or str

    def file_line(index: int) -> str:
        """The file's line `index` as a refusal may quote it."""
        if redact is None:
            return old[index][0]
        from stringsh.workspace.redact import masked_lines

        return masked_lines(redact, text, [line for line, _ in old], split_lines)[index]

    newline = dominant_newline(text)
    out: list[str] = []
    pos = 0
    for number, hunk in enumerate(hunks, 1):
        lines = parse_lines(hunk, number, rel)
        start = _start(hunk)
        first = max(1, min(hunk.old_start, len(old)))
        last = min(len(old), max(first, hunk.old_start + hunk.old_lines - 1))

        def refuse(line: int, what: str, hunk: Hunk = hunk, number: int = number, first: int = first,
                   last: int = last) -> PatchFailed:
            return PatchFailed(rel, f"{label(number, rel, hunk)} does not match line {line}: {what}.", first, last)

        if start > len(old):
            raise refuse(start + 1 if hunk.old_lines else start, f"the file has only {len(old)} lines")
        out.extend(line + ending for line, ending in old[pos:start])
        index = start
        replaced: list[str] = []  # endings of the removed lines of this run of changes, for the added lines
        for line in lines:
            if line.kind == " ":
                replaced.clear()
            if line.kind != "+":
                if index >= len(old):
                    raise refuse(index + 1, f"expected {_shown(line.text, mask)}, the file has only {len(old)} lines")
                have, ending = old[index]
                if have != line.text:
                    raise refuse(index + 1, f"expected {_shown(line.text, mask)}, the file holds "
                                            f"{_shown(file_line(index))}")
                if line.final and ending:
                    raise refuse(index + 1, f"expected {_shown(line.text, mask)} with no line break after it "
                                            "(\\ No newline at end of file), the file's line has one")
                if not line.final and not ending:
                    raise refuse(index + 1, f"expected {_shown(line.text, mask)} and a line break, the file's last "
                                            "line has none (the diff needs \\ No newline at end of file)")
                index += 1
            if line.kind == "-":
                replaced.append(ending)
                continue
            if out and out[-1][-1:] not in ("\n", "\r"):
                raise StringError(
                    "INVALID_PAYLOAD",
                    f"{label(number, rel, hunk)} puts a line after one with no line break (\\ No newline at end "
                    "of file); nothing was written.",
                    "Only a file's last line can lack a line break: remove it and add it again with one.",
                )
            if line.kind == " ":
                out.append(old[index - 1][0] + old[index - 1][1])
            else:
                ending = replaced.pop(0) if replaced else ""
                out.append(line.text + ("" if line.final else ending or newline))
        pos = index
    rest = old[pos:]
    if rest and out and out[-1][-1:] not in ("\n", "\r"):
        raise StringError("INVALID_PAYLOAD",
                          f"The patch of {rel} leaves its last added line without a line break, but lines follow it.",
                          "Only a file's last line can lack a line break.")
    out.extend(line + ending for line, ending in rest)
    return "".join(out)


def materialise(ws: Workspace, patch: Patch, limit: int) -> FileChange:
    """The whole-file change a patch makes, from the file's bytes now (the caller holds the workspace lock): the
    journal, undo and crash recovery then treat it like any other write. Its `expected_prev_sha256` is the hash of
    the bytes the hunks were applied to, so nothing can slip in between."""
    from stringsh.workspace.changes import current_bytes

    with ws.confiner.resolve(patch.path, create=True) as res:
        raw, _ = current_bytes(res, limit)
        rel = res.rel
    actual = None if raw is None else sha256(raw)
    if patch.expected_prev_sha256 is not None and (actual or "") != patch.expected_prev_sha256:
        raise StaleFile(rel)
    if patch.action == "create":
        if raw is not None:
            raise StringError("CONFLICT", f"{rel} already exists; the patch creates it as a new file. Nothing was "
                              "written.", f"Read {rel} and make the diff against it, or patch another path.")
        text, encoding, bom = "", "utf-8", False
    else:
        if raw is None:
            raise StringError("NOT_FOUND", f"File not found: {rel}; nothing was written.",
                              "A diff that creates a file has --- /dev/null as its old side.")
        text, encoding, bom = decode(raw, rel)
    new = apply_hunks(text, patch.hunks, rel, ws.redactor)
    if patch.action == "delete":
        if new:
            left = len(line_spans(new))
            raise PatchFailed(rel, f"The patch deletes {rel}, but {left} of its lines are not among the lines it "
                              "removes.", 1, len(line_spans(text)))
        return FileChange(patch.path, None, actual)
    return FileChange(patch.path, encode(new, encoding, bom, rel), actual if actual is not None else "")
