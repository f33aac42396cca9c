"""`git`: status, diff, log, commit, push and checkout through stringsh's hardened git engine (stringsh/workspace/git/:
no hooks, no workspace config that runs code, secrets never staged or shown), in docs/json-tools.md's fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.schema import Field, args_error
from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

ACTIONS = ("status", "diff", "log", "commit", "push", "checkout")
FIELDS = (
    Field("action", "string", required=True, choices=ACTIONS),
    Field("message", "string"),
    Field("files", "string[]"),
    Field("branch", "string"),
    Field("remote", "string"),
    Field("limit", "integer", minimum=1, maximum=1000),  # log: Git.LOG_MAX
)
#: The fields each action takes besides `action`.
ACTION_FIELDS = {"status": (), "diff": (), "log": ("limit",), "commit": ("message", "files"),
                 "push": ("remote", "branch"), "checkout": ("branch",)}


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    words = [str(args.get("action", "")), *(str(args[k]) for k in ("remote", "branch") if k in args)]
    return list(args.get("files", [])), " ".join(words)


def run(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    action = args["action"]
    extra = sorted(set(args) - {"action", *ACTION_FIELDS[action]})
    if extra:
        takes = ", ".join(ACTION_FIELDS[action]) or "nothing else"
        raise args_error(f"git {action} does not take {extra[0]!r}.", f"git {action} takes: {takes}.")
    return HANDLERS[action](ws, args, topic)  # git's own words can quote file text or a URL: masked as they leave


def _status(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    state = ws.git.status(topic)
    return {
        "branch": state.branch, "head": state.head, "upstream": state.upstream, "ahead": state.ahead,
        "behind": state.behind,
        "changed": [{"file_path": c.path, "kind": c.kind} for c in state.unstaged],
        "staged": [{"file_path": c.path, "kind": c.kind} for c in state.staged],
        "untracked": list(state.untracked),
    }


def _diff(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    unstaged = ws.git.diff(topic=topic)
    staged = ws.git.diff(staged=True, topic=topic)
    return {"unstaged": unstaged.text, "staged": staged.text,
            "files": sorted({*unstaged.files, *staged.files})}


def _log(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    """HEAD's newest `limit` commits (default 10, as /git log), newest first; none before the first commit."""
    entries = ws.git.log(args.get("limit", ws.git.LOG_DEFAULT), topic)
    return {"commits": [{"commit": e.commit, "date": e.date, "author": e.author, "subject": e.subject}
                        for e in entries]}


def _commit(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    message = args.get("message")
    if not message:
        raise args_error("git commit needs a non-empty 'message'.")
    files = args.get("files")
    if not files:  # everything changed (upstream's `git add -A`), as status lists it: never a secret
        state = ws.git.status(topic)
        files = [*(c.path for c in state.unstaged), *state.untracked]
    done = ws.git.commit(message, files, topic)
    return {"commit": done.commit, "branch": done.branch, "summary": done.summary}


def _push(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    done = ws.git.push(args.get("remote"), args.get("branch"), topic)
    return {"remote": done.remote, "branch": done.branch, "summary": done.summary}


def _checkout(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    """Switch to `branch`, creating it from HEAD when no branch of that name exists."""
    branch = args.get("branch")
    if not branch:
        raise args_error("git checkout needs 'branch'.")
    try:
        done = ws.git.checkout(branch, topic=topic)
    except StringError as exc:
        if exc.code != "NOT_FOUND":
            raise
        done = ws.git.checkout(branch, create=True, topic=topic)
    return {"branch": done.branch, "created": done.created}


HANDLERS = {"status": _status, "diff": _diff, "log": _log, "commit": _commit, "push": _push, "checkout": _checkout}
