"""User arguments for git, checked before git sees them: none may become an option (`--upload-pack=…`, `-c …`,
a branch named `-x`), a ref name is a plain branch name, a path is confined like every other path."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: A branch name git accepts (check-ref-format's rules) that cannot be read as an option or a revision range.
BRANCH = re.compile(r"(?!-)(?!.*\.\.)(?!.*@\{)(?!.*//)(?!.*/\.)(?!\.)[^\x00-\x20\x7f~^:?*\[\\]+(?<![./])(?<!\.lock)")
#: A remote's name as `git remote add` makes them.
REMOTE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
MAX_NAME = 255


def check_branch(name: str) -> str:
    if len(name) > MAX_NAME or not BRANCH.fullmatch(name) or name == "@":
        hint = ("A name starting with - would be read as an option; name the branch without it."
                if name.startswith("-") else "Use letters, digits, / . _ -, e.g. feature/login.")
        raise StringError("INVALID_PAYLOAD", f"Not a valid branch name: {name!r}", hint)
    return name


def check_remote(name: str, known: Sequence[str]) -> str:
    """A configured remote's name only: never a URL or path (`ext::sh -c …`, `--receive-pack=…`)."""
    if not REMOTE.fullmatch(name) or len(name) > MAX_NAME:
        raise StringError("INVALID_PAYLOAD", f"Not a remote name: {name!r}",
                          "Give the name of a configured remote (!git remote -v lists them), not a URL or option.")
    if name not in known:
        listed = ", ".join(known) if known else "none"
        raise StringError("NOT_FOUND", f"No remote named {name!r} (configured: {listed}).",
                          "Add it with !git remote add NAME URL.")
    return name


def check_message(message: str) -> str:
    if not message.strip():
        raise StringError("INVALID_PAYLOAD", "The commit message is empty.", 'Give one: /git commit -m "what and why"')
    if "\x00" in message:
        raise StringError("INVALID_PAYLOAD", "The commit message contains a NUL byte.", "Remove it.")
    return message


def confine_paths(ws: Workspace, paths: Sequence[str]) -> list[str]:
    """Root-relative paths for git's pathspec (after `--`, literal): in the workspace root (not another root),
    no `..` out, no symlink out, no secret, no engine state. A path that no longer exists (a deleted file to
    commit) is checked by name."""
    rels: list[str] = []
    for path in paths:
        target, prefix, _ = ws.confiner.route(path)
        if prefix and target is not ws.confiner:
            raise StringError("INVALID_PATH", f"git works in the workspace root's repository only: {path}",
                              "Name a path inside the workspace root.")
        rel = ws.confiner.relative(path)
        try:
            with ws.confiner.resolve(path):  # a check only: git names a symlink itself, not its target
                pass
        except StringError as exc:
            if exc.code != "NOT_FOUND":
                raise
        if rel == ".git" or rel.startswith(".git/"):
            raise StringError("INVALID_PATH", f"Not a path git tracks: {path}", "Name a file of the work tree.")
        rels.append(rel)
    return rels
