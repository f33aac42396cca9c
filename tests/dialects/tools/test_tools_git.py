"""JSON tools' `git` scenarios through the real `stringsh tools`, on real repositories (the engine's hardened git)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands.gitrepo import git, make_repo, short
from tests.dialects.tools.client import call

pytestmark = pytest.mark.needs("git")


@pytest.fixture
def repo(ws: Path) -> Path:
    return make_repo(ws)


def ok(result: dict) -> dict:
    return {"id": 1, "ok": True, "result": result}


def test_git_status(repo: Path) -> None:
    (repo / "a.txt").write_text("changed\n")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    (repo / "new.txt").write_text("n\n")
    (repo / ".env").write_text("TOKEN=1\n")
    assert call(repo, "git", {"action": "status"}) == ok({
        "branch": "main", "head": short(repo), "upstream": None, "ahead": 0, "behind": 0,
        "changed": [{"file_path": "a.txt", "kind": "modified"}],
        "staged": [{"file_path": "b.txt", "kind": "added"}],
        "untracked": ["new.txt"],
    })


def test_git_commit(repo: Path) -> None:
    (repo / "src").mkdir()
    (repo / "src/server.ts").write_text("const port = 8080\n")
    (repo / "left.txt").write_text("not committed\n")
    reply = call(repo, "git", {"action": "commit", "message": "fix: update port", "files": ["src/server.ts"]})
    assert reply == ok({"commit": short(repo), "branch": "main", "summary": "1 file changed, 1 insertion(+)"})
    assert git(repo, "log", "-1", "--format=%s") == "fix: update port\n"
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "src/server.ts\n"
    assert git(repo, "status", "--porcelain") == "?? left.txt\n"


def test_git_commit_without_files_commits_every_change_but_secrets(repo: Path) -> None:
    (repo / "a.txt").write_text("two\n")
    (repo / "n.txt").write_text("n\n")
    (repo / ".env").write_text("TOKEN=1\n")
    reply = call(repo, "git", {"action": "commit", "message": "all"})
    assert reply["ok"] is True
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "a.txt\nn.txt\n"
    assert git(repo, "status", "--porcelain") == "?? .env\n"


def test_git_diff(repo: Path) -> None:
    (repo / "a.txt").write_text("hello\nworld\n")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    reply = call(repo, "git", {"action": "diff"})
    assert reply == ok({
        "unstaged": "diff --git a/a.txt b/a.txt\nindex ce01362..94954ab 100644\n--- a/a.txt\n+++ b/a.txt\n"
                    "@@ -1 +1,2 @@\n hello\n+world\n",
        "staged": "diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..6178079\n--- /dev/null\n"
                  "+++ b/b.txt\n@@ -0,0 +1 @@\n+b\n",
        "files": ["a.txt", "b.txt"],
    })


def test_git_push(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    assert call(repo, "git", {"action": "push"}) == ok({"remote": "origin", "branch": "main",
                                                        "summary": "[new branch]"})
    assert git(bare, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


def test_git_branch_operations(repo: Path) -> None:
    assert call(repo, "git", {"action": "checkout", "branch": "feature/new-thing"}) == \
        ok({"branch": "feature/new-thing", "created": True})
    assert git(repo, "branch", "--show-current") == "feature/new-thing\n"
    assert call(repo, "git", {"action": "checkout", "branch": "main"}) == ok({"branch": "main", "created": False})
    assert git(repo, "branch", "--show-current") == "main\n"


def test_git_bad_arguments_are_refused(repo: Path) -> None:
    assert call(repo, "git", {"action": "rebase"}) == {
        "id": 1, "ok": False, "code": "INVALID_ARGS",
        "error": "git: 'action' must be one of status, diff, log, commit, push, checkout, not 'rebase'."}
    assert call(repo, "git", {"action": "status", "branch": "x"}) == {
        "id": 1, "ok": False, "code": "INVALID_ARGS", "error": "git status does not take 'branch'.",
        "hint": "git status takes: nothing else."}
    assert call(repo, "git", {"action": "commit"}) == {
        "id": 1, "ok": False, "code": "INVALID_ARGS", "error": "git commit needs a non-empty 'message'."}
    reply = call(repo, "git", {"action": "checkout", "branch": "-x"})
    assert (reply["ok"], reply["code"]) == (False, "INVALID_PAYLOAD")
    assert git(repo, "branch", "--show-current") == "main\n"
