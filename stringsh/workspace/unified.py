"""A unified diff (git's `a/` `b/` headers, several files, new and deleted files) as the change-set API's `Patch` list.

The text is parsed by `unidiff` (python-unidiff): a small, pure-Python, MIT-licensed library with no dependencies,
released for a decade and still maintained (the 1.0 series), widely used by code-review tools, that follows GNU
diff's and git's formats (hunk headers with omitted counts, `diff
--git` preambles, `new file mode`/`deleted file mode`, `\\ No newline at end of file`, binary markers) and
refuses a hunk shorter than its header. A hand-written parser is where patch tools go wrong (docs/hazards.md:
line numbers, quoting, CRLF). unidiff is lenient in two places this module closes: lines after a hunk whose header
counts ended before them are dropped silently (here: a refusal naming the line), and it applies nothing (that is
hunks.py's job, exact or not at all). Imported only when a diff is parsed.

Refused, nothing read or written: an empty or headerless body, a binary patch, a rename or mode-only change,
a path that is absolute or has a `..` component, and the same file twice.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.workspace.patches import Hunk, Patch

if TYPE_CHECKING:
    from unidiff import PatchedFile

DEV_NULL = "/dev/null"
HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: Lines a diff has between files: never part of a hunk, never a stray hunk line.
HEADERS = ("diff ", "--- ", "+++ ", "@@ ", "index ", "new file mode", "deleted file mode", "old mode", "new mode",
           "similarity index", "dissimilarity index", "rename from", "rename to", "copy from", "copy to",
           "Binary files", "GIT binary patch")
FORMAT_HINT = ("Send a unified diff: per file a '--- a/path' and a '+++ b/path' line, then hunks "
               "'@@ -start,count +start,count @@' (git diff or diff -u make one).")


def parse_diff(text: str) -> list[Patch]:
    """Every file of the diff as a Patch, in order; INVALID_PAYLOAD (or BINARY_FILE) for what cannot be applied."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    if not text.strip():
        raise StringError("INVALID_PAYLOAD", "The patch is empty.", FORMAT_HINT)
    text = text.replace("\r\n", "\n")  # a CRLF diff: the ending is not the text (hunks.py keeps the file's own)
    try:
        parsed = PatchSet(text)
    except UnidiffParseError as exc:
        raise _malformed(text, str(exc)) from None
    if not len(parsed):
        raise StringError("INVALID_PAYLOAD", "The body holds no unified diff (no '--- a/path' / '+++ b/path' lines).",
                          FORMAT_HINT)
    _refuse_strays(text, parsed)
    patches: list[Patch] = []
    seen: set[str] = set()
    for file in parsed:
        patch = _patch(file)
        if patch.path in seen:
            raise StringError("INVALID_PAYLOAD", f"The patch changes {patch.path} twice; nothing was written.",
                              "Put all of a file's hunks under one ---/+++ header.")
        seen.add(patch.path)
        patches.append(patch)
    return patches


def _patch(file: PatchedFile) -> Patch:
    source, target = _unquote(file.source_file or ""), _unquote(file.target_file or "")
    if file.is_binary_file:
        name = _strip(target if target != DEV_NULL else source, source, target) if target or source else file.path
        raise StringError(
            "BINARY_FILE",
            f"The patch holds a binary change for {name}; /patch applies text hunks only. Nothing was written.",
            "Make the diff without binary files, and change those another way.",
        )
    old, new = _strip(source, source, target), _strip(target, source, target)
    if not old or not new:
        raise StringError("INVALID_PAYLOAD", f"A file of the patch has no '---' or '+++' path ({file.path}).",
                          FORMAT_HINT)
    if old == DEV_NULL and new == DEV_NULL:
        raise StringError("INVALID_PAYLOAD", "A file of the patch is /dev/null on both sides.", FORMAT_HINT)
    action = "create" if old == DEV_NULL else "delete" if new == DEV_NULL else "modify"
    path = new if action == "create" else old
    if action == "modify" and old != new:
        raise StringError("INVALID_PAYLOAD", f"The patch renames {old} to {new}; /patch does not rename files.",
                          f"Rename it with /mv {command_word(old)} {command_word(new)} first, then patch {new}.")
    _check_path(path)
    hunks = [
        Hunk(h.source_start, h.source_length, h.target_start, h.target_length,
             "".join(line.line_type + line.value for line in h if line.line_type))
        for h in file
    ]
    if not hunks and action == "modify":
        raise StringError("INVALID_PAYLOAD", f"The patch has no hunk for {path} (a mode change or rename only).",
                          "Give the change as hunks (@@ -start,count +start,count @@).")
    return Patch(path, hunks, None, action)


def _strip(name: str, source: str, target: str) -> str:
    """git's `a/` and `b/` prefixes off, when both sides carry theirs (a plain `diff -u` has none)."""
    if name == DEV_NULL:
        return name
    git = (source == DEV_NULL or source.startswith("a/")) and (target == DEV_NULL or target.startswith("b/"))
    return name[2:] if git and name[:2] in ("a/", "b/") else name


def _unquote(name: str) -> str:
    """git's C-style quoting of a path with spaces or odd bytes (`"a/sp ace"`, `"a/caf\\303\\251"`)."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    out = bytearray()
    body = name[1:-1]
    i = 0
    escapes = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12, "r": 13, "v": 11}
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 1 and body[i + 1 : i + 4].isdigit():
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(escapes.get(nxt, ord(nxt)))
            i += 2
            continue
        out.extend(char.encode("utf-8"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _check_path(path: str) -> None:
    parts = path.split("/")
    if path.startswith("/") or ".." in parts or "\x00" in path:
        raise StringError("INVALID_PATH", f"The patch names a path outside the workspace: {path}; nothing was written.",
                          "Paths in a diff are relative to the workspace root (--- a/src/x.py, +++ b/src/x.py).")


def _refuse_strays(text: str, parsed: object) -> None:
    """A line that follows a complete hunk and looks like one of its lines: the header's counts ended too soon."""
    consumed: dict[int, tuple[str, str]] = {}
    for file in parsed:  # type: ignore[attr-defined]
        for hunk in file:
            header = f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@"
            for line in hunk:
                if line.diff_line_no is not None:
                    consumed[line.diff_line_no] = (file.path, header)
    lines = text.split("\n")
    after: tuple[str, str] | None = None
    for number, line in enumerate(lines, 1):
        if number in consumed:
            after = consumed[number]
            continue
        if line.startswith("\\") and after is not None:
            continue  # `\ No newline at end of file` after a hunk's line (unidiff numbers it none)
        if line.startswith(HEADERS) or after is None:
            after = None
            continue
        if line == "":
            continue  # a blank line between files; a hunk line after it is still judged as a stray
        if line == "-- ":
            return  # git format-patch's signature ("-- " and the git version) ends the diff
        if line[:1] in (" ", "+", "-"):
            path, header = after
            raise StringError(
                "INVALID_PAYLOAD",
                f"Line {number} of the patch follows the hunk {header} of {path}, whose header counts end before it; "
                "nothing was written.",
                "Make the @@ header count the hunk's lines (context and removed: old; context and added: new), or "
                "make the diff again (git diff, diff -u).",
            )
        after = None


def _malformed(text: str, reason: str) -> StringError:
    """unidiff's refusal, naming the hunk whose body is shorter than its header when that is the reason."""
    path = "?"
    lines = text.rstrip("\n").split("\n")
    for index, line in enumerate(lines):
        if line.startswith("+++ "):
            path = _strip(_unquote(line[4:].split("\t")[0]), "a/", "b/")
        match = HUNK_HEADER.match(line)
        if not match:
            continue
        old = int(match.group(2)) if match.group(2) is not None else 1
        new = int(match.group(4)) if match.group(4) is not None else 1
        for body in lines[index + 1 :]:
            if old <= 0 and new <= 0:
                break
            kind = body[:1]
            if body.startswith("\\"):
                continue
            if kind not in (" ", "-", "+", "") or body.startswith(("--- ", "+++ ", "@@")):
                break
            old -= kind != "+"
            new -= kind != "-"
        if old > 0 or new > 0:
            return StringError(
                "INVALID_PAYLOAD",
                f"The hunk {line.split(' @@')[0]} @@ of {path} has fewer lines than its header counts "
                f"({old} old and {new} new missing); nothing was written.",
                "Make the @@ header count the hunk's lines (context and removed: old; context and added: new), or "
                "make the diff again (git diff, diff -u).",
            )
    return StringError("INVALID_PAYLOAD", f"Malformed patch: {reason}; nothing was written.", FORMAT_HINT)
