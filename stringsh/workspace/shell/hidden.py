"""A note for a command that failed on what the sandbox hides or keeps read-only, so the failure is not a puzzle:
the shell's `/tmp` is its own (a folder in the real `/tmp`, a HOME there say, is not there) and everything but the
writable roots is read-only (docs/security.md, "What a sandboxed command sees outside the workspace").

A path of the real /tmp is named only when it is there on this machine and the sandbox does not show it: the path
the error names, or the nearest folder above it that is there (`touch /tmp/x/new` when `/tmp/x` is hidden). A
path that is missing outside the sandbox too is an ordinary failure and gets no note; so is a root or a folder
holding one (the sandbox shows those)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from stringsh.workspace.shell.privatetmp import SEE

_MISSING = ": No such file or directory"
#: Where a path of /tmp starts on a line (not inside a longer path such as /var/tmp/…).
_TMP = re.compile(r"(?<![\w./-])/tmp/")
_READ_ONLY = "Read-only file system"


def sandbox_note(output: str, roots: Sequence[Path]) -> str | None:
    """The note for `output` of a sandboxed command (`roots`: the folders bound into it), or None."""
    for line in output.splitlines():
        end = line.rfind(_MISSING)
        for match in _TMP.finditer(line, 0, max(end, 0)):
            path = hidden_path(line[match.start() : end].rstrip("'\"`"), roots)  # a path may hold spaces
            if path is not None:
                return (f"note: the sandbox's /tmp is the shell's own: {path} is in the real /tmp but not seen here;"
                        f" your own policy can add a folder as a read-only root ({SEE})")
    if _READ_ONLY in output:
        return ("note: the sandbox is read-only outside the workspace's writable roots, and at its protected paths "
                f"(.git/hooks, .git/config, .stringsh/, stringsh.toml) ({SEE})")
    return None


def hidden_path(named: str, roots: Sequence[Path]) -> str | None:
    """`named` (a path under /tmp) or the nearest folder above it that is there on this machine, when the sandbox
    does not show it; None when neither is there, or it is a root, inside one or holds one."""
    path = Path(named)
    while path.parent != path and str(path.parent) != "/":
        if str(path) == "/tmp":
            return None
        if os.path.lexists(path):
            if any(path.is_relative_to(root) or Path(root).is_relative_to(path) for root in roots):
                return None
            return str(path)
        path = path.parent
    return None
