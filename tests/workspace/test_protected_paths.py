"""Paths that run code later (git hooks and config, `.gitmodules`, stringsh's own policy and state) are refused
by the engine for every front end and every writer; reading them stays allowed."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.models import ChangeSet
from stringsh.workspace.protected import protected
from tests.conftest import run_stringsh

HINT = "stringsh protects paths that run code later; edit it outside stringsh if you mean it."
CONFIG = "[core]\n\trepositoryformatversion = 0\n"


def refused(command: str, shown: str) -> str:
    return f"re: {command}\nERROR(NOT_PERMITTED): {shown} is protected: it can run code later\n{HINT}"


@pytest.fixture
def repo(ws: Path) -> Path:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text(CONFIG)
    (ws / ".gitmodules").write_text('[submodule "s"]\n\tpath = s\n\turl = ./s\n')
    return ws


def untouched(ws: Path) -> None:
    assert sorted(p.name for p in (ws / ".git" / "hooks").iterdir()) == []
    assert (ws / ".git" / "config").read_text() == CONFIG


@pytest.mark.parametrize("sandbox", ["false", "true"], ids=["local", "bubblewrap"])
def test_git_hooks_and_config_not_writable_through_stringsh(repo: Path, sandbox: str) -> None:
    """The issue's attack through the real program: `/write .git/hooks/pre-commit`, `/write --force .git/config`,
    with and without the sandbox."""
    (repo / "stringsh.toml").write_text(f"[shell]\nsandbox = {sandbox}\n")
    hook = "/write .git/hooks/pre-commit\n#!/bin/sh\ntouch /tmp/pwned\n"
    done = run_stringsh(["-c", hook], repo)
    assert done.stdout.decode() == refused("/write .git/hooks/pre-commit", ".git/hooks/pre-commit") + "\n"
    assert done.returncode != 0
    done = run_stringsh(["-c", "/write --force .git/config\n[core]\n\thooksPath = .evil\n"], repo)
    assert "ERROR(NOT_PERMITTED): .git/config is protected: it can run code later" in done.stdout.decode()
    untouched(repo)


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("/write .git/hooks/pre-commit x", ".git/hooks/pre-commit"),
        ("/write --force .git/config x", ".git/config"),
        ("/write --force .GIT/Config x", ".GIT/Config"),
        ("/write .Git/HOOKS/post-commit x", ".Git/HOOKS/post-commit"),
        ("/write --force ./sub/../.git/config x", "./sub/../.git/config"),
        ("/write --force WS/.git/config x", "WS/.git/config"),
        ("/write --force .gitmodules x", ".gitmodules"),
        ("/write lib/.git/hooks/post-checkout x", "lib/.git/hooks/post-checkout"),
        ("/write .git/modules/s/hooks/post-checkout x", ".git/modules/s/hooks/post-checkout"),
        ("/write --force .git/commondir x", ".git/commondir"),
        ("/write STRINGSH.TOML x", "STRINGSH.TOML"),
        ("/write .Stringsh/journal.db x", ".Stringsh/journal.db"),
        ("/append .git/config x", ".git/config"),
        ("/append .gitmodules x", ".gitmodules"),
    ],
)
def test_every_writer_and_spelling_refused(repo: Path, dispatcher: Dispatcher, command: str,
                                                     shown: str) -> None:
    command = command.replace("WS/.git/config", shlex.quote(f"{repo}/.git/config"))
    shown = shown.replace("WS", str(repo))
    reply = dispatcher.execute(command).text.split("\n", 1)[1]  # past the (shortened) echo of a long command
    assert reply == refused(command, shown).split("\n", 1)[1]
    untouched(repo)


def test_edit_refused(repo: Path, dispatcher: Dispatcher) -> None:
    assert dispatcher.execute("/edit .git/config").ok  # reading (and the numbered view) stays allowed
    command = "/edit .git/config\n[core]\n\thooksPath = evil\n"
    assert dispatcher.execute(command).text == refused("/edit .git/config", ".git/config")
    command = "/edit --force .gitmodules\n[submodule]\n"
    assert dispatcher.execute(command).text == refused("/edit --force .gitmodules", ".gitmodules")
    untouched(repo)


def test_symlinks_into_protected_paths_refused(repo: Path, dispatcher: Dispatcher) -> None:
    (repo / "hk").symlink_to(".git/hooks")
    (repo / "cfg").symlink_to(".git/config")
    (repo / "dotgit").symlink_to(".git")
    assert dispatcher.execute("/write hk/post-commit x").text == refused("/write hk/post-commit x", "hk/post-commit")
    assert dispatcher.execute("/write --force cfg x").text == refused("/write --force cfg x", "cfg")
    command = "/write dotgit/hooks/pre-push x"
    assert dispatcher.execute(command).text == refused(command, "dotgit/hooks/pre-push")
    untouched(repo)


def test_change_sets_refused(repo: Path) -> None:
    """A change set (the agent protocol's writer), a delete, and a creation in a missing `.git` are refused;
    nothing of an all-or-nothing set is written."""
    ws = Workspace(repo)
    try:
        cases = [
            ChangeSet().write("ok.txt", b"fine").write(".git/hooks/post-merge", b"#!/bin/sh\n"),
            ChangeSet().write(".git/config", b"[core]\n\tfsmonitor = evil\n"),
            ChangeSet().delete(".gitmodules"),
            ChangeSet().write("vendor/.git", b"gitdir: /elsewhere\n"),
        ]
        for cs in cases:
            with pytest.raises(StringError) as info:
                ws.apply(cs)
            assert info.value.code == "NOT_PERMITTED"
            assert info.value.hint == HINT
    finally:
        ws.close()
    assert not (repo / "ok.txt").exists()
    assert (repo / ".gitmodules").exists()
    untouched(repo)


def test_missing_git_folder_cannot_be_planted(ws: Path, dispatcher: Dispatcher) -> None:
    command = "/write .git/hooks/post-commit #!/bin/sh"
    assert dispatcher.execute(command).text == refused(command, ".git/hooks/post-commit")
    assert not (ws / ".git").exists()


def test_reads_of_protected_paths_stay_allowed(repo: Path, dispatcher: Dispatcher) -> None:
    assert dispatcher.execute("/open .git/config").text.startswith("re: /open .git/config\nOpened .git/config\n")
    assert dispatcher.execute("/open .gitmodules").ok
    assert dispatcher.execute("/write notes.txt hello").ok  # ordinary files are not affected


@pytest.mark.needs("git")
def test_a_real_git_repository_keeps_working(ws: Path, dispatcher: Dispatcher) -> None:
    """Files a user edits in a repository (`.gitignore`, `.gitattributes`, `.github/`) are not protected."""
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for path in (".gitignore", ".gitattributes", ".github/workflows/ci.yml", "src/git/config"):
        assert dispatcher.execute(f"/write {path} x").ok, path
    assert os.path.exists(ws / ".git" / "HEAD")


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        (".git", True), (".git/hooks", True), (".git/hooks/pre-commit", True), (".git/config", True),
        (".git/HEAD", False), (".git/info/exclude", False), (".gitignore", False), (".gitmodules", True),
        ("a/b/.gitmodules", True), ("stringsh.toml", True), ("docs/stringsh.toml", False), (".stringsh/x", True),
        ("x/.git/worktrees/w/commondir", True), ("git/config", False),
    ],
)
def test_protected_rule(rel: str, expected: bool) -> None:
    assert protected(rel.split("/")) is expected


@pytest.mark.needs("git")
def test_git_dir_not_named_git_is_protected(ws: Path) -> None:
    """`git init --bare .bare` and a `.git` file naming it: its hooks and config run code like `.git`'s."""
    subprocess.run(["git", "init", "-q", "--bare", str(ws / ".bare")], check=True)
    (ws / ".git").write_text("gitdir: ./.bare\n")
    config = (ws / ".bare" / "config").read_bytes()
    out = run_stringsh(["-c", "/write --force .bare/config\n[core]\n\thooksPath = .evil\n"], ws).stdout.decode()
    assert "ERROR(NOT_PERMITTED): .bare/config is protected: it can run code later" in out
    out = run_stringsh(["-c", "/write .bare/hooks/post-commit\n#!/bin/sh\ntouch x\n"], ws).stdout.decode()
    assert out == refused("/write .bare/hooks/post-commit", ".bare/hooks/post-commit") + "\n"
    assert (ws / ".bare" / "config").read_bytes() == config
    assert not (ws / ".bare" / "hooks" / "post-commit").exists()


def test_folder_named_by_a_git_file_is_protected(ws: Path) -> None:
    """Not (yet) a git dir by its contents, but a `.git` file names it: its hooks are refused too."""
    (ws / "repo").mkdir()
    (ws / "repo" / "gd").mkdir()
    (ws / "repo" / ".git").write_text("gitdir: gd\n")
    out = run_stringsh(["-c", "/write repo/gd/hooks/pre-commit\nx\n"], ws).stdout.decode()
    assert out == refused("/write repo/gd/hooks/pre-commit", "repo/gd/hooks/pre-commit") + "\n"
    run_stringsh(["-c", "/write src/config/app.py\nx = 1\n"], ws)
    assert (ws / "src" / "config" / "app.py").read_text() == "x = 1\n"  # an ordinary `config` folder stays writable


@pytest.mark.needs("git")
@pytest.mark.parametrize("kind", ["symlinked HEAD", "dangling HEAD link", "commondir"])
def test_git_dirs_git_takes_for_one_are_protected(ws: Path, kind: str) -> None:
    """git takes a folder whose HEAD is a symlink to refs/… (dangling too) for a repository, and one whose
    `commondir` names where objects and refs are: the engine refuses their hooks, and the sandbox's sweeper
    (shell/watch.py, the same rule) finds them."""
    from stringsh.workspace.shell.watch import GitDir, git_dirs

    subprocess.run(["git", "init", "-q", "--bare", str(ws / "r" / "e::p")], check=True)
    git_dir = ws / "r" / "e::p"
    if kind == "commondir":
        git_dir = ws / "linked"
        git_dir.mkdir()
        (git_dir / "HEAD").write_text("ref: refs/heads/x\n")
        (git_dir / "commondir").write_text("../r/e::p\n")
    else:
        (git_dir / "HEAD").unlink()
        (git_dir / "HEAD").symlink_to("refs/heads/main")
        if kind == "symlinked HEAD":
            (git_dir / "refs" / "heads" / "main").write_text("0" * 40 + "\n")
    rel = git_dir.relative_to(ws).as_posix()
    out = run_stringsh(["-c", f"/write {rel}/hooks/post-receive\n#!/bin/sh\ntouch x\n"], ws).stdout.decode()
    assert out == refused(f"/write {rel}/hooks/post-receive", f"{rel}/hooks/post-receive") + "\n"
    assert GitDir(rel, True) in git_dirs(ws, 10_000)


@pytest.mark.parametrize("header", ["Add File: .git/config", "Add File: .git/hooks/pre-commit",
                                    "Update File: .git/config", "Delete File: .git/config"])
def test_a_codex_patch_says_protected_before_it_says_exists(repo: Path, header: str) -> None:
    """`*** Add File: .git/config` of an existing config: the path is protected, which is why nothing can be done
    there, not that it exists."""
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    patch = f"*** Begin Patch\n*** {header}\n" + ("+x\n" if header.startswith("Add") else "") + "*** End Patch\n"
    if header.startswith("Update"):
        patch = patch.replace("*** End Patch", "@@\n-[core]\n+[core]\n*** End Patch")
    path = header.split(": ", 1)[1]
    out = run_stringsh(["-c", f"/patch\n{patch}"], repo).stdout.decode()
    assert out == refused("/patch", path) + "\n"
    (repo / ".git" / "hooks" / "pre-commit").unlink()
    untouched(repo)


def test_the_hard_link_hint_names_a_file_that_can_allow_them(ws: Path) -> None:
    """An untrusted workspace's stringsh.toml cannot set secrets.allow_hardlinks (layers.py): the hint names the
    user's own policy; once the workspace is trusted, its stringsh.toml can, and the hint says so."""
    (ws / "a.txt").write_text("x\n")
    os.link(ws / "a.txt", ws / "h.txt")
    own = Path(os.environ["STRINGSH_CONFIG_DIR"]) / "policy.toml"
    head = ("re: /open h.txt\nERROR(SECRET_DENIED): Refusing a hard-linked file (it may alias a file outside the "
            "workspace): h.txt\nTo allow hard links, set [secrets] allow_hardlinks = true in ")
    out = run_stringsh(["-c", "/open h.txt"], ws).stdout.decode()
    assert out == f"{head}your own policy ({own}); the workspace's stringsh.toml cannot widen it.\n"
    (ws / "stringsh.toml").write_text("[secrets]\nallow_hardlinks = true\n")
    assert run_stringsh(["-c", "/open h.txt"], ws).stdout.decode() == out  # ignored: not trusted
    assert run_stringsh(["trust"], ws).returncode == 0
    assert run_stringsh(["-c", "/open h.txt"], ws).stdout.decode().startswith("re: /open h.txt\n")
    (ws / "stringsh.toml").write_text("[secrets]\nallow_hardlinks = false\n")
    assert run_stringsh(["trust"], ws).returncode == 0
    assert run_stringsh(["-c", "/open h.txt"], ws).stdout.decode() == (
        f"{head}the workspace's stringsh.toml or your own policy ({own}).\n")
