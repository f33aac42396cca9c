"""`Workspace.git`: the git operations upper layers call (`/git`, the JSON tools' `git`), bound to one workspace,
so no front end imports the read and change modules (or their runner) itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.git.change import CheckoutOutcome, CommitOutcome, PushOutcome
    from stringsh.workspace.git.read import Branch, GitDiff, GitStatus, LogEntry

#: How many commits `log` shows unless asked, and the most it shows (git/read.py checks the range).
LOG_DEFAULT, LOG_MAX = 10, 1000


class Git:
    """The structured git of one workspace: each method one audited git operation (git/read.py, git/change.py)."""

    LOG_DEFAULT = LOG_DEFAULT
    LOG_MAX = LOG_MAX

    def __init__(self, workspace: Workspace) -> None:
        self._ws = workspace

    def status(self, topic: str | None = None) -> GitStatus:
        from stringsh.workspace.git.read import status

        return status(self._ws, topic)

    def diff(self, *, staged: bool = False, path: str | None = None, topic: str | None = None) -> GitDiff:
        from stringsh.workspace.git.read import diff

        return diff(self._ws, staged=staged, path=path, topic=topic)

    def log(self, count: int = LOG_DEFAULT, topic: str | None = None) -> list[LogEntry]:
        from stringsh.workspace.git.read import log

        return log(self._ws, count, topic)

    def branches(self, topic: str | None = None) -> list[Branch]:
        from stringsh.workspace.git.read import branches

        return branches(self._ws, topic)

    def commit(self, message: str, files: Sequence[str] = (), topic: str | None = None) -> CommitOutcome:
        from stringsh.workspace.git.change import commit

        return commit(self._ws, message, files, topic)

    def checkout(self, branch: str, *, create: bool = False, topic: str | None = None) -> CheckoutOutcome:
        from stringsh.workspace.git.change import checkout

        return checkout(self._ws, branch, create=create, topic=topic)

    def push(self, remote: str | None = None, branch: str | None = None, topic: str | None = None) -> PushOutcome:
        from stringsh.workspace.git.change import push

        return push(self._ws, remote, branch, topic)
