"""The changing subcommands: commit, checkout (switch) and push, as typed outcomes.

A checkout rewrites work-tree files outside the change journal (`/undo` does not reach it); a push talks to the
network, never sandboxed, with the only credentials stringsh ever hands to git (hardening.push_helpers)."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.hints import shell_hint
from stringsh.workspace.git.args import check_branch, check_message, check_remote, confine_paths
from stringsh.workspace.git.hardening import user_credentials
from stringsh.workspace.git.read import checked
from stringsh.workspace.git.remote import plan, transport_refused
from stringsh.workspace.git.runner import GitOutput, GitRunner, first_line
from stringsh.workspace.git.where import ProcessView, resolve, within
from stringsh.workspace.ops.guard import require

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class CommitOutcome(NamedTuple):
    commit: str
    branch: str | None
    summary: str  # "1 file changed, 2 insertions(+)"


class CheckoutOutcome(NamedTuple):
    branch: str
    created: bool


class PushOutcome(NamedTuple):
    remote: str
    branch: str
    summary: str  # "abc1234..def5678", "[new branch]", "[up to date]"


def current_branch(runner: GitRunner) -> str | None:
    done = runner.run(["symbolic-ref", "--short", "-q", "HEAD"])
    return done.text.strip() or None if done.status == 0 else None


def commit(ws: Workspace, message: str, files: Sequence[str] = (), topic: str | None = None) -> CommitOutcome:
    """Stage `files` (additions, changes and deletions), then commit what is staged with `message`."""
    with ws.state.audited("git.commit", list(files), topic):  # refusals recorded too
        require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
        check_message(message)
        rels = confine_paths(ws, files)
        runner = GitRunner(ws)
        index = runner.layout.git_dir / "index"
        before = read_index(index)
        try:
            if rels:
                checked(runner.run(["add", "--all", "--", *rels]), "add")
            refuse_staged_secrets(ws, runner)
            done = runner.run(["commit", "--no-verify", "--no-gpg-sign", "--cleanup=whitespace",
                               f"--message={message}"])
            if done.status != 0:
                raise commit_error(done)
        except StringError:
            restore_index(index, before)
            raise
        head = checked(runner.run(["rev-parse", "--short", "HEAD"]), "rev-parse").text.strip()
        summary = next((line.strip() for line in done.text.splitlines() if " changed" in line), "no changes")
        return CommitOutcome(head, current_branch(runner), summary)


class SavedIndex(NamedTuple):
    known: bool  # False: the index is not a plain file (a symlink, a folder), and is left alone
    data: bytes | None  # None: there was no index


def read_index(index: Path) -> SavedIndex:
    """The index as the user left it, to put back if the commit fails. Never through a symlink (a workspace's
    `.git/index` could name a file outside it, whose bytes must not be copied in)."""
    try:
        fd = os.open(index, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return SavedIndex(True, None)
    except OSError:
        return SavedIndex(False, None)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return SavedIndex(False, None)
        with os.fdopen(os.dup(fd), "rb") as file:
            return SavedIndex(True, file.read())
    finally:
        os.close(fd)


def restore_index(index: Path, before: SavedIndex) -> None:
    """A failed commit stages nothing: the files `/git commit` added are unstaged again, what the user had staged
    stays staged (the index's bytes put back whole, atomically, through a new temp file; no index at all if there
    was none)."""
    if not before.known:
        return
    if before.data is None:
        index.unlink(missing_ok=True)
        return
    fd, temp = tempfile.mkstemp(prefix="index.stringsh-", dir=index.parent)  # O_EXCL: never a planted link
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(before.data)
        os.replace(temp, index)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def refuse_staged_secrets(ws: Workspace, runner: GitRunner) -> None:
    """A secret staged earlier (`!git add -f .env`) would be committed, then pushed: refused, nothing committed."""
    names = checked(runner.run(["diff", "--cached", "--name-only", "-z", "--no-renames"]), "diff").stdout
    secrets = [name for name in names.decode("utf-8", "surrogateescape").split("\0")
               if name and ws.confiner.matcher.denied(name)]
    if secrets:
        unstage = shell_hint("git restore --staged -- {name}", name=secrets[0])
        raise StringError("SECRET_DENIED", f"A secret file is staged and would be committed: {shown_name(secrets[0])}",
                          f"Unstage it ({unstage}), then commit again; nothing was committed.")


def commit_error(done: GitOutput) -> StringError:
    said = done.text + done.stderr
    if "nothing to commit" in said or "no changes added to commit" in said or "nothing added to commit" in said:
        return StringError("INVALID_TARGET", "Nothing to commit: no staged changes.",
                           "/git status shows what changed; /git commit -m MSG FILE… stages files and commits them.")
    if "tell me who you are" in said or "identity unknown" in said or "empty ident" in said:
        return StringError("INVALID_TARGET", "git does not know who you are (no user.name / user.email).",
                           'Tell git once, in a terminal: git config --global user.name "Your Name" && '
                           "git config --global user.email you@example.com")
    return StringError(f"EXIT_{done.status}", f"git commit failed: {first_line(done)}",
                       "!git status shows the repository's state.")


def checkout(ws: Workspace, branch: str, *, create: bool = False, topic: str | None = None) -> CheckoutOutcome:
    """Switch to `branch` (made from HEAD with `create`); a local branch, or one a remote has (tracked)."""
    with ws.state.audited("git.checkout", [], topic):
        require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
        check_branch(branch)
        runner = GitRunner(ws)
        done = runner.run(["switch", "--no-progress", *(["--create"] if create else []), branch])
        if done.status != 0:
            said = done.stderr
            if "already exists" in said:
                raise StringError("CONFLICT", f"A branch named {branch} already exists.",
                                  f"/git checkout {branch} switches to it.")
            if "invalid reference" in said or "did not match" in said or "not a branch" in said:
                raise StringError("NOT_FOUND", f"No branch named {branch}.",
                                  f"/git branch lists branches; /git checkout -b {branch} makes one.")
            if "would be overwritten" in said:
                files = [line.strip() for line in said.splitlines() if line.startswith("\t")]
                raise StringError("CONFLICT", "Local changes would be overwritten by the checkout: "
                                  + ", ".join(files), "Commit them first (/git commit -m MSG FILE…).")
            raise StringError(f"EXIT_{done.status}", f"git checkout failed: {first_line(done)}",
                              "/git status shows the repository's state.")
        return CheckoutOutcome(branch, create)


def push(ws: Workspace, remote: str | None = None, branch: str | None = None,
         topic: str | None = None) -> PushOutcome:
    """Push `branch` (default: the current one) to `remote` (default: its upstream's remote, else origin)."""
    with ws.state.audited("git.push", [], topic):
        require(ws.policy, ws.policy.permissions.write, "write")
        runner = GitRunner(ws)
        remotes = checked(runner.run(["remote"]), "remote").text.split()
        name = branch or current_branch(runner)
        if name is None:
            raise StringError("INVALID_TARGET", "HEAD is detached: name the branch to push.",
                              "/git push REMOTE BRANCH")
        check_branch(name)
        target = check_remote(remote or default_remote(runner, name, remotes), remotes)
        urls = checked(runner.run(["remote", "get-url", "--push", "--all", target]), "remote").text.split("\n")
        refuse_workspace_includes(runner)
        layout = runner.layout
        how = plan(target, [url for url in urls if url], vcs=remote_vcs(runner, target), root=runner.root,
                   home=runner.env(push=True)["HOME"], protected=[*runner.roots, layout.git_dir, layout.common_dir])
        ref = f"refs/heads/{name}"
        # `remote.*.receivepack` is a list whose FIRST value wins: a `-c` cannot override it, the option does
        done = runner.run(["push", "--porcelain", "--no-verify", "--no-progress", f"--receive-pack={how.receive_pack}",
                           target, f"{ref}:{ref}"], push=True, protocols=how.protocols)
        row = next((line.split("\t") for line in done.text.splitlines() if f"\t{ref}:" in line), None)
        if done.status != 0:
            raise push_error(done, row, target, name)
        return PushOutcome(target, name, row[2] if row and len(row) > 2 else "[done]")


def default_remote(runner: GitRunner, branch: str, remotes: Sequence[str]) -> str:
    upstream = [e.value for e in runner.config if e.key.lower() == f"branch.{branch.lower()}.remote"
                or e.key == f"branch.{branch}.remote"]
    if upstream and upstream[-1] in remotes:
        return upstream[-1]
    if "origin" in remotes or len(remotes) != 1:
        return "origin"
    return remotes[0]


def remote_vcs(runner: GitRunner, remote: str) -> str | None:
    """The remote's `vcs` setting (a remote helper git runs whatever the URL), the last one as git reads it."""
    values = [e.value for e in runner.config if e.key.lower() == f"remote.{remote.lower()}.vcs"]
    return values[-1] if values else None


def refuse_workspace_includes(runner: GitRunner) -> None:
    """Push runs outside the sandbox: a config file it includes from the workspace (writable by a sandboxed
    shell, unlike `.git/config`) could change between the overrides being read and git reading it, and rewrite
    the URL checked above (`url.*.pushInsteadOf`). A relative include lies in the repository: refused too."""
    for entry in runner.config:
        key = entry.key.lower()
        if not (key == "include.path" or (key.startswith("includeif.") and key.endswith(".path"))):
            continue
        value = entry.value
        inside = not (os.path.isabs(value) or value.startswith("~"))
        if not inside and os.path.isabs(value):
            try:
                inside = within(resolve(value, runner.root), runner.roots)
            except ProcessView:
                inside = True  # another folder to git than to stringsh
        if inside:
            raise StringError("NOT_PERMITTED", f"The repository's config includes a file of the workspace: {value}",
                              "Move the included settings into .git/config, then /git push again.")


def push_error(done: GitOutput, row: list[str] | None, remote: str, branch: str) -> StringError:
    said = done.stderr
    if row and row[0] == "!":
        reason = row[2] if len(row) > 2 else "rejected"
        return StringError("CONFLICT", f"The remote rejected {branch}: {reason}",
                           "Bring in its changes first (!git pull --rebase), then /git push again.")
    if any(text in said for text in ("Authentication failed", "terminal prompts disabled", "could not read Username",
                                      "Permission denied (publickey")):
        return StringError("AUTH_REQUIRED", f"{remote} asked for credentials stringsh does not have.",
                           f"Store them in {user_credentials()} (git-credential-store format, mode 0600); "
                           "/help git says how.")
    if "not allowed" in said and "transport" in said:
        return transport_refused(remote)
    return StringError(f"EXIT_{done.status}", f"git push failed: {first_line(done)}",
                       "!git remote -v shows where the remote points.")
