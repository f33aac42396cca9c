"""A note for a command that failed on what the sandbox hides or keeps read-only, so the failure is not a puzzle:
the shell's `/tmp` is its own (a folder in the real `/tmp` is not there) and everything but the writable roots is
read-only (docs/security.md, "What a sandboxed command sees outside the workspace")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

_MISSING = ": No such file or directory"
#: Where a path of /tmp starts on a line (not inside a longer path such as /var/tmp/…).
_TMP = re.compile(r"(?<![\w./-])/tmp/")
_READ_ONLY = "Read-only file system"
_SEE = 'docs/security.md, "What a sandboxed command sees outside the workspace"'


def sandbox_note(output: str, roots: Sequence[Path]) -> str | None:
    """The note for `output` of a sandboxed command (`roots`: the folders bound into it), or None."""
    for line in output.splitlines():
        end = line.rfind(_MISSING)
        for match in _TMP.finditer(line, 0, max(end, 0)):
            path = line[match.start() : end].rstrip("'\"`")  # a path may hold spaces: up to the message
            if not any(path == str(root) or path.startswith(f"{root}/") for root in roots):
                return (f"note: the sandbox's /tmp is the shell's own: {path} in the real /tmp, if it is there, "
                        f"is not seen; your own policy can add a folder as a read-only root ({_SEE})")
    if _READ_ONLY in output:
        return ("note: the sandbox is read-only outside the workspace's writable roots, and at its protected paths "
                f"(.git/hooks, .git/config, .stringsh/, stringsh.toml) ({_SEE})")
    return None
