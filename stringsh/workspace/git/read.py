"""The reading subcommands: status, diff, log and the branch list, as typed results (secrets left out)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.git.args import confine_paths
from stringsh.workspace.git.facade import LOG_DEFAULT, LOG_MAX
from stringsh.workspace.git.runner import GitOutput, GitRunner, first_line
from stringsh.workspace.ops.guard import require
from stringsh.workspace.paths import STATE_DIR

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: Porcelain v2 status letters, as words.
KINDS = {"M": "modified", "T": "type changed", "A": "added", "D": "deleted", "R": "renamed", "C": "copied",
         "U": "conflict"}
#: Fields of one log record and of one branch row (the unit separator).
SEP = "\x1f"


class Change(NamedTuple):
    kind: str  # a KINDS word
    path: str
    old_path: str | None = None  # renamed or copied from


class GitStatus(NamedTuple):
    branch: str | None  # None: detached HEAD
    head: str | None  # short commit, None before the first commit
    upstream: str | None
    ahead: int
    behind: int
    staged: list[Change]
    unstaged: list[Change]
    untracked: list[str]
    hidden: int  # changed or untracked secret paths left out


class GitDiff(NamedTuple):
    text: str
    files: list[str]
    hidden: int  # changed secret files left out


class LogEntry(NamedTuple):
    commit: str
    date: str
    author: str
    subject: str


class Branch(NamedTuple):
    name: str
    current: bool
    commit: str
    upstream: str


def shown(ws: Workspace, path: str) -> bool:
    """Never list a secret or stringsh's own state folder."""
    return path.split("/", 1)[0] != STATE_DIR and not ws.confiner.matcher.denied(path.rstrip("/"))


def checked(done: GitOutput, what: str) -> GitOutput:
    if done.status != 0:
        raise StringError(f"EXIT_{done.status}", f"git {what} failed: {first_line(done)}",
                          "!git status shows the repository's state.")
    return done


def status(ws: Workspace, topic: str | None = None) -> GitStatus:
    with ws.state.audited("git.status", [], topic):
        require(ws.policy, ws.policy.permissions.read, "read")
        runner = GitRunner(ws)
        done = checked(runner.run(["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=normal",
                                   "--no-renames", "--ignore-submodules=all"]), "status")
        return parse_status(ws, done.stdout.decode("utf-8", "surrogateescape"))


def parse_status(ws: Workspace, text: str) -> GitStatus:
    branch: str | None = None
    head = upstream = None
    ahead = behind = 0
    staged: list[Change] = []
    unstaged: list[Change] = []
    untracked: list[str] = []
    hidden = 0
    fields = iter(text.split("\0"))
    for field in fields:
        if field.startswith("# branch.head "):
            name = field.removeprefix("# branch.head ")
            branch = None if name == "(detached)" else name
        elif field.startswith("# branch.oid "):
            oid = field.removeprefix("# branch.oid ")
            head = None if oid == "(initial)" else oid[:7]
        elif field.startswith("# branch.upstream "):
            upstream = field.removeprefix("# branch.upstream ")
        elif field.startswith("# branch.ab "):
            plus, minus = field.removeprefix("# branch.ab ").split()
            ahead, behind = int(plus), -int(minus)
        elif field.startswith(("1 ", "2 ")):
            parts = field.split(" ", 9 if field[0] == "2" else 8)
            path = parts[-1]
            old = next(fields) if field[0] == "2" else None
            if not shown(ws, path):
                hidden += path.split("/", 1)[0] != STATE_DIR
                continue
            x, y = parts[1][0], parts[1][1]
            if x != ".":
                staged.append(Change(KINDS.get(x, x), path, old))
            if y != ".":
                unstaged.append(Change(KINDS.get(y, y), path))
        elif field.startswith("u "):
            path = field.split(" ", 10)[-1]
            if shown(ws, path):
                unstaged.append(Change("conflict", path))
            else:
                hidden += 1
        elif field.startswith("? "):
            if shown(ws, field[2:]):
                untracked.append(field[2:])
            else:
                hidden += field[2:].split("/", 1)[0] != STATE_DIR
    return GitStatus(branch, head, upstream, ahead, behind, staged, unstaged, untracked, hidden)


def diff(ws: Workspace, *, staged: bool = False, path: str | None = None, topic: str | None = None) -> GitDiff:
    """Unstaged (or staged) changes as a unified diff, no external diff or textconv, secrets' files left out."""
    with ws.state.audited("git.diff", [path] if path is not None else [], topic):  # refusals recorded too
        require(ws.policy, ws.policy.permissions.read, "read")
        rels = confine_paths(ws, [path]) if path is not None else []
        runner = GitRunner(ws)
        base = ["diff", *(["--cached"] if staged else []), "--no-ext-diff", "--no-textconv", "--no-color",
                "--no-renames", "--ignore-submodules=all"]
        names = checked(runner.run([*base, "--name-only", "-z", "--", *rels]), "diff").stdout
        changed = [name for name in names.decode("utf-8", "surrogateescape").split("\0") if name]
        files = [name for name in changed if shown(ws, name)]
        if not files:
            return GitDiff("", [], len(changed))
        pathspec = files if len(files) < len(changed) else rels
        done = checked(runner.run([*base, "--", *pathspec], shown=True), "diff")
        return GitDiff(done.text, files, len(changed) - len(files))


def log(ws: Workspace, count: int = LOG_DEFAULT, topic: str | None = None) -> list[LogEntry]:
    """The newest `count` commits of HEAD; none before the first commit."""
    if not 1 <= count <= LOG_MAX:
        raise StringError("INVALID_PAYLOAD", f"-n must be between 1 and {LOG_MAX}, got {count}.",
                          "e.g. /git log -n 20")
    with ws.state.audited("git.log", [], topic):
        require(ws.policy, ws.policy.permissions.read, "read")
        runner = GitRunner(ws)
        done = runner.run(["log", "-z", f"--max-count={count}", "--no-color", "--date=short",
                           f"--format=%h{SEP}%ad{SEP}%an{SEP}%s"])
        if done.status != 0:
            if "does not have any commits yet" in done.stderr:
                return []
            checked(done, "log")
        entries = []
        for record in done.text.split("\0"):  # NUL-terminated: a subject cannot hold one
            fields = record.split(SEP, 3)
            if len(fields) == 4:
                entries.append(LogEntry(*fields))
        return entries


def branches(ws: Workspace, topic: str | None = None) -> list[Branch]:
    """Local branches, sorted by name."""
    with ws.state.audited("git.branch", [], topic):
        require(ws.policy, ws.policy.permissions.read, "read")
        runner = GitRunner(ws)
        fmt = f"--format=%(HEAD){SEP}%(refname:short){SEP}%(objectname:short){SEP}%(upstream:short)"
        done = checked(runner.run(["for-each-ref", fmt, "refs/heads"]), "branch")
        rows = []
        for line in done.text.splitlines():
            mark, name, commit, upstream = line.split(SEP, 3)
            rows.append(Branch(name, mark == "*", commit, upstream))
        return rows
