"""A note for a command that failed on what the sandbox hides or keeps read-only, so the failure is not a puzzle:
the shell's `/tmp` is its own (a folder in the real `/tmp` is not there) and everything but the writable roots is
read-only (docs/security.md, "What a sandboxed command sees outside the workspace")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

#: A path under /tmp that a program said was missing (`cat: /tmp/v/x: No such file or directory`).
_MISSING_TMP = re.compile(r"(?<![\w./-])(/tmp/[^\s:'\"`]+)[^\n]*: No such file or directory")
_READ_ONLY = "Read-only file system"
_SEE = 'docs/security.md, "What a sandboxed command sees outside the workspace"'


def sandbox_note(output: str, roots: Sequence[Path]) -> str | None:
    """The note for `output` of a sandboxed command (`roots`: the folders bound into it), or None."""
    for match in _MISSING_TMP.finditer(output):
        path = Path(match.group(1))
        if not any(path == root or root in path.parents for root in roots):
            return (f"note: the sandbox's /tmp is the shell's own: {match.group(1)} in the real /tmp, if it is "
                    f"there, is not seen; your own policy can add a folder as a read-only root ({_SEE})")
    if _READ_ONLY in output:
        return ("note: the sandbox is read-only outside the workspace's writable roots, and at its protected paths "
                f"(.git/hooks, .git/config, .stringsh/, stringsh.toml) ({_SEE})")
    return None
