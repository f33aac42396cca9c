"""Paths that run code later: stringsh never writes, creates or deletes them, for every front end.

A workspace may be someone else's repository, and an agent may be told to work in it. Writing one of these
paths is not an edit but code the user runs later, outside any sandbox:
- `.git/hooks/**` runs at the next commit, checkout or push;
- `.git/config` and `.git/config.worktree` (`core.hooksPath`, `core.fsmonitor`, `core.sshCommand`, filter and
  diff drivers, `include.path`); `.git/commondir` points git at another folder's config and hooks; `.git/modules/**`
  and `.git/worktrees/**` hold the same files for submodules and worktrees; a `.git` file (`gitdir: …`) points git
  at a repository anywhere;
- `.gitmodules`: a submodule URL runs code where the user allowed the `ext::` transport, and older gits ran
  `update = !command` and option-like URLs from it (CVE-2019-19604, CVE-2018-17456); a cloned repository is the
  classic delivery of those attacks, so it is protected for writes (readable as any file);
- `.stringsh/**` is stringsh's own state (the journal is replayed), and `stringsh.toml` is the policy itself
  (the engine already refuses both with their own messages; their other spellings are refused here).

Names are compared case-insensitively (`.GIT/HOOKS` is the same folder on macOS and Windows file systems), at
any depth (a nested repository is one `cd` away). Reads stay allowed: only secrets are denied for reading.
The engine checks both the requested and the resolved path, so a symlink into these paths is refused too.
"""

from __future__ import annotations

from stringsh.errors import StringError

GIT_DIR = ".git"
#: Entries right under a `.git` folder that decide what git runs.
GIT_CODE = frozenset({"hooks", "config", "config.worktree", "commondir", "modules", "worktrees"})
HINT = "stringsh protects paths that run code later; edit it outside stringsh if you mean it."


def protected(parts: list[str]) -> bool:
    """Whether the root-relative path `parts` is (or lies inside) a path that runs code later."""
    if not parts:
        return False
    low = [p.lower() for p in parts]
    if low[-1] == ".gitmodules":
        return True
    if low[0] == ".stringsh":
        return True
    if len(low) == 1 and low[0] == "stringsh.toml":
        return True
    for i, part in enumerate(low):
        if part == GIT_DIR:
            return i + 1 == len(low) or low[i + 1] in GIT_CODE
    return False


def refuse(shown: str) -> StringError:
    return StringError("NOT_PERMITTED", f"{shown} is protected: it can run code later", HINT)


def check_protected(parts: list[str], shown: str) -> None:
    """Refuse a change to a protected path. The policy file's own spelling (`stringsh.toml`) is left to the
    engine's policy check, whose reply says why (it is the policy), and `.stringsh/` to the state check."""
    if parts == ["stringsh.toml"]:
        return
    if protected(parts):
        raise refuse(shown)
