"""Real git repositories for the /git tests: made and inspected with the real git, never through stringsh."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: The test side's git: no user or system config, a fixed identity and dates.
ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
}


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run the real git in `repo` (hooks of the repository may run: only for the test's own set-up)."""
    done = subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def make_repo(ws: Path) -> Path:
    """`ws` as a repository on `main` with one commit of `a.txt` (identity in the repository's config)."""
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "user.name", "Ana")
    git(ws, "config", "user.email", "ana@example.com")
    (ws / "a.txt").write_text("hello\n")
    git(ws, "add", "a.txt")
    git(ws, "commit", "-q", "-m", "first")
    return ws


def short(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", "--short", rev).strip()
