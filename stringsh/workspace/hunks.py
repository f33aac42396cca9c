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
from typing import TYPE_CHECKING

from stringsh.errors import StringError, hint
from stringsh.workspace.atomic import sha256
from stringsh.workspace.models import FileChange
from stringsh.workspace.patches import Hunk, Patch, hunk_start, label, parse_lines
from stringsh.workspace.textio import decode_for_edit, dominant_newline, encode, line_spans, split_lines

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.redact import Redactor

#: How much of a line a refusal quotes.
SHOWN = 160


class PatchFailed(StringError):
    """A hunk that does not match the file. `first`..`last` are the file's lines the hunk covers (to re-read)."""

    def __init__(self, rel: str, message: str, first: int, last: int) -> None:
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        advice = f"Read {rel} {span} again and redo the hunk." if last else f"Read {rel} again and redo the patch."
        super().__init__("PATCH_FAILED", f"{message} Nothing was written.", hint(advice))
        self.rel = rel
        self.first = first
        self.last = last


class StaleFile(StringError):
    """The file does not hold the bytes the patch was made against (`expected_prev_sha256`)."""

    def __init__(self, rel: str) -> None:
        super().__init__("CONFLICT", f"{rel} changed since it was read; nothing was written.",
                         f"Read {rel} again and redo the patch.")
        self.rel = rel


def _shown(text: str, redact: Callable[[str], str] = str) -> str:
    shown = redact(text)
    return repr(shown if len(shown) <= SHOWN else shown[:SHOWN] + "…")


def _lines_with_endings(text: str) -> list[tuple[str, str]]:
    """Each line of `text` and the break that ends it ("" for a last line without one), as `line_spans` cuts them;
    text without a carriage return is cut by str.split (a regex pass costs ~8x more)."""
    if "\r" in text:
        return [(text[start:end], text[end:stop]) for start, end, stop in line_spans(text)]
    *ended, last = text.split("\n")
    return [(line, "\n") for line in ended] + ([(last, "")] if last else [])


def apply_hunks(text: str, hunks: list[Hunk] | tuple[Hunk, ...], rel: str, redact: Redactor | None = None) -> str:
    """`text` with every hunk applied exactly; PatchFailed at the first line that differs. `redact` masks the
    lines a refusal quotes: the file's as the whole file is masked (a key block's body line is a secret only as
    part of the block), the diff's own line by line."""
    old = _lines_with_endings(text)
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
        start = hunk_start(hunk)
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


def materialise(ws: Workspace, patch: Patch, limit: int) -> tuple[FileChange, tuple[bytes, str] | None]:
    """The whole-file change a patch makes, from the file's bytes now (the caller holds the workspace lock): the
    journal, undo and crash recovery then treat it like any other write. Its `expected_prev_sha256` is the hash of
    the bytes the hunks were applied to, so nothing can slip in between. With it, those bytes and their hash (None
    when there is no file), which the write compares rather than hashes again (changes.learn)."""
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
        text, encoding, bom = decode_for_edit(raw, rel)
    new = apply_hunks(text, patch.hunks, rel, ws.redactor)
    if patch.action == "delete":
        if new:
            left = len(line_spans(new))
            raise PatchFailed(rel, f"The patch deletes {rel}, but {left} of its lines are not among the lines it "
                              "removes.", 1, len(line_spans(text)))
        return FileChange(patch.path, None, actual), None if raw is None or actual is None else (raw, actual)
    read = None if raw is None or actual is None else (raw, actual)
    return FileChange(patch.path, encode(new, encoding, bom, rel), actual if actual is not None else ""), read
