"""/git commit as the user: their own git config (`$XDG_CONFIG_HOME/git/config`, `~/.gitconfig`) and
`GIT_AUTHOR_*`/`GIT_COMMITTER_*` give the identity, a key there that runs a program is overridden like the
repository's, and a failed commit leaves the index exactly as the user had it."""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from tests.commands.gitrepo import git

pytestmark = pytest.mark.needs("git")

IDENTITY_VARIABLES = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home with no git config yet and no identity variables."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in IDENTITY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return folder


def reply(dispatcher: Dispatcher, command: str) -> str:
    return dispatcher.execute(command).text.split("\n", 1)[1]


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "unsandboxed"])
def test_identity_from_the_users_own_config_and_variables(ws: Path, home: Path, tmp_path: Path, sandbox: bool,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Sandboxed, git sees no file outside the workspace (the identity travels as variables); unsandboxed, it
    reads the user's files itself, with their program-running keys overridden."""
    if not sandbox:  # ("sandboxed" in the id: the conftest requires bwrap)
        config = Path(os.environ["STRINGSH_CONFIG_DIR"])
        config.mkdir(parents=True, exist_ok=True)
        (config / "policy.toml").write_text("[shell]\nsandbox = false\n")
    canary = tmp_path / "canary"
    xdg = Path(os.environ["XDG_CONFIG_HOME"]) / "git"
    xdg.mkdir(parents=True)
    (xdg / "config").write_text("[user]\n\tname = Xdg\n\temail = xdg@example.com\n")
    (home / ".gitconfig").write_text(  # ~/.gitconfig wins over the XDG file; its filter never runs
        f'[user]\n\tname = Home\n[filter "f"]\n\tclean = touch {canary}\n\trequired = true\n'
        f'[includeIf "gitdir:{ws}/"]\n\tpath = ~/.gitconfig-work\n')
    (home / ".gitconfig-work").write_text("[user]\n\temail = work@example.com\n")
    git(ws, "init", "-q", "-b", "main")
    (ws / ".gitattributes").write_text("*.txt filter=f\n")
    (ws / "a.txt").write_text("a\n")
    with closing(Dispatcher(ws)) as dispatcher:
        assert reply(dispatcher, "/git commit -m one a.txt .gitattributes").startswith("Committed ")
        assert git(ws, "log", "-1", "--format=%an <%ae> / %cn <%ce>") == (
            "Home <work@example.com> / Home <work@example.com>\n")
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Env Author")
        monkeypatch.setenv("GIT_COMMITTER_EMAIL", "env@example.com")
        (ws / "a.txt").write_text("b\n")
        assert reply(dispatcher, "/git commit -m two a.txt").startswith("Committed ")
        assert git(ws, "log", "-1", "--format=%an <%ae> / %cn <%ce>") == (
            "Env Author <work@example.com> / Home <env@example.com>\n")
    assert not canary.exists()


def test_a_failed_commit_leaves_the_index_as_it_was(ws: Path, home: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    for name in ("a.txt", "b.txt", "c.txt"):
        (ws / name).write_text(f"{name}\n")
    git(ws, "add", "b.txt")
    git(ws, "add", "--intent-to-add", "c.txt")
    before = (ws / ".git" / "index").read_bytes()
    with closing(Dispatcher(ws)) as dispatcher:
        assert reply(dispatcher, "/git commit -m x a.txt").startswith("ERROR(INVALID_TARGET): git does not know")
        assert (ws / ".git" / "index").read_bytes() == before
        assert git(ws, "status", "--porcelain") == "A  b.txt\n A c.txt\n?? a.txt\n"
        (ws / ".env").write_text("TOKEN=x\n")
        git(ws, "add", "-f", ".env")
        before = (ws / ".git" / "index").read_bytes()
        assert reply(dispatcher, "/git commit -m x a.txt").startswith("ERROR(SECRET_DENIED): ")
        assert (ws / ".git" / "index").read_bytes() == before
    fresh = ws / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    (fresh / "n.txt").write_text("n\n")
    with closing(Dispatcher(fresh)) as dispatcher:
        assert reply(dispatcher, "/git commit -m x n.txt").startswith("ERROR(INVALID_TARGET): git does not know")
    assert not (fresh / ".git" / "index").exists()


def test_an_index_that_is_a_symlink_is_never_copied_from(ws: Path, home: Path) -> None:
    """`.git/index` naming the workspace's secret: a failed commit leaves the link alone, never copying the
    secret's bytes into a file the shell may read."""
    git(ws, "init", "-q", "-b", "main")
    (ws / "a.txt").write_text("a\n")
    (ws / ".env").write_text("TOKEN=sk-live-1234567890\n")
    (ws / ".git" / "index").symlink_to("../.env")
    with closing(Dispatcher(ws)) as dispatcher:
        assert reply(dispatcher, "/git commit -m x a.txt").startswith("ERROR(")
    index = ws / ".git" / "index"
    assert index.is_symlink() or b"TOKEN" not in index.read_bytes()
    assert not list((ws / ".git").glob("index.stringsh-*"))
