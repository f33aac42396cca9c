"""/git and the JSON tools' git when the workspace's repository leads elsewhere, and `/git push` to local paths.

A canary repository lives OUTSIDE the workspace (under tmp_path). A shipped `.git` file, `commondir`,
`objects/info/alternates` or a symlinked `.git/objects` reach it: each layout is first shown to be real (plain git
in the workspace reads the canary's commit), then every subcommand through the real program refuses with
FILE_NOT_ALLOWED naming the target, and the canary's HEAD, refs, index and objects stay byte-identical. The
user's own policy (`[git] allow_outside`) or `stringsh trust` allows it; the workspace's own stringsh.toml cannot.

Push: a bare remote whose hooks each append to a canary file outside the workspace; plain git runs them (shown
first), /git push never does, whatever path form names the remote."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.commands.gitrepo import git, make_repo, short
from tests.conftest import run_stringsh
from tests.dialects.tools.client import tools

pytestmark = pytest.mark.needs("git")

SUBJECT = "canary: the other repository"
COMMANDS = ("/git status", "/git diff", "/git log", "/git commit -m x a.txt", "/git checkout -b b", "/git branch",
            "/git push")
RECEIVE_HOOKS = ("pre-receive", "update", "post-receive", "post-update", "reference-transaction", "push-to-checkout")


def snapshot(git_dir: Path) -> dict[str, bytes]:
    """HEAD, index, packed-refs, every ref and every object file of a git dir, byte for byte."""
    files: dict[str, bytes] = {}
    for path in sorted(git_dir.rglob("*")):
        rel = path.relative_to(git_dir).as_posix()
        if path.is_file() and (rel in ("HEAD", "index", "packed-refs") or rel.startswith(("refs/", "objects/"))):
            files[rel] = path.read_bytes()
    return files


def new_repo(path: Path) -> Path:
    path.mkdir()
    return make_repo(path)


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """The other repository, outside the workspace: one commit whose subject nobody in the workspace wrote."""
    repo = tmp_path / "canary"
    repo.mkdir()
    make_repo(repo)
    (repo / "a.txt").write_text("the canary's own text\n")
    git(repo, "commit", "-q", "-am", SUBJECT)
    return repo


def ship(layout: str, ws: Path, canary: Path, tmp_path: Path) -> tuple[str, Path]:
    """The workspace as a repository that reaches the canary by `layout`; what the refusal names, and the target."""
    (ws / "a.txt").write_text("the workspace's text\n")
    other = canary / ".git"
    if layout == "gitdir":
        (ws / ".git").write_text(f"gitdir: {other}\n")
        return ".git file (gitdir:)", other
    if layout == "relative gitdir":
        (ws / ".git").write_text(f"gitdir: {os.path.relpath(other, ws)}\n")
        return ".git file (gitdir:)", other
    if layout == "commondir":  # a linked worktree's git dir, shipped, whose main repository is the canary
        git(canary, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
        shutil.copytree(other / "worktrees" / "wt", ws / ".git")
        (ws / ".git" / "commondir").write_text(f"{other}\n")
        shutil.rmtree(tmp_path / "wt")
        return "commondir", other
    git(ws, "init", "-q", "-b", "main")
    (ws / ".git" / "refs" / "heads" / "main").write_text(git(canary, "rev-parse", "HEAD"))
    if layout == "alternates":
        (ws / ".git" / "objects" / "info" / "alternates").write_text(f"# shipped\n{other / 'objects'}\n")
        return "objects/info/alternates", other / "objects"
    shutil.rmtree(ws / ".git" / "objects")  # git-new-workdir's layout: a symlinked objects folder
    (ws / ".git" / "objects").symlink_to(other / "objects")
    return "symlink .git/objects", other / "objects"


LAYOUTS = ("gitdir", "relative gitdir", "commondir", "alternates", "symlink")


def refusal(what: str, target: Path) -> str:
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    return (f"ERROR(FILE_NOT_ALLOWED): The repository's {what} leads outside the workspace roots: {target}\n"
            f"If that repository is yours, allow it in {config / 'policy.toml'} ([git] allow_outside = "
            f"[\"{target}\"]) or run 'stringsh trust' here.")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_repository_leading_outside_is_refused(layout: str, ws: Path, canary: Path, tmp_path: Path) -> None:
    what, target = ship(layout, ws, canary, tmp_path)
    assert git(ws, "log", "-1", "--format=%s") == f"{SUBJECT}\n"  # plain git really reads the canary
    before = snapshot(canary / ".git")
    for command in COMMANDS:
        done = run_stringsh(["-c", command], cwd=ws)
        assert done.stdout.decode() == f"re: {command}\n{refusal(what, target)}\n", command
        assert done.returncode == 1
    requests = [{"id": n, "tool": "git", "args": args} for n, args in enumerate([
        {"action": "status"}, {"action": "diff"}, {"action": "commit", "message": "x", "files": ["a.txt"]},
        {"action": "checkout", "branch": "b"}, {"action": "push"}])]
    for answer in tools(ws, *requests):
        assert answer["ok"] is False and answer["code"] == "FILE_NOT_ALLOWED", answer
        assert answer["error"] == refusal(what, target).split("\n")[0].removeprefix("ERROR(FILE_NOT_ALLOWED): ")
    assert snapshot(canary / ".git") == before
    assert git(canary, "log", "-1", "--format=%s") == f"{SUBJECT}\n"


def test_the_users_policy_or_trust_allows_it_the_workspace_cannot(ws: Path, canary: Path, tmp_path: Path) -> None:
    what, target = ship("gitdir", ws, canary, tmp_path)
    (ws / "stringsh.toml").write_text(f'[git]\nallow_outside = ["{canary}"]\n')
    done = run_stringsh(["-c", "/git log -n 1"], cwd=ws)
    assert done.stdout.decode() == f"re: /git log -n 1\n{refusal(what, target)}\n"
    assert "widening setting ignored: git.allow_outside;" in done.stderr.decode()
    assert run_stringsh(["trust"], cwd=ws).returncode == 0
    assert f"{short(canary)} 2026-01-02 Ana: {SUBJECT}" in run_stringsh(["-c", "/git log -n 1"], cwd=ws).stdout.decode()
    (ws / "stringsh.toml").unlink()  # trust lapses with the file it was given for
    assert run_stringsh(["-c", "/git log"], cwd=ws).stdout.decode() == f"re: /git log\n{refusal(what, target)}\n"
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text(f'[git]\nallow_outside = ["{tmp_path}"]\n')
    done = run_stringsh(["-c", "/git log -n 1"], cwd=ws)
    assert done.stdout.decode() == f"re: /git log -n 1\nLast 1 commit, newest first\n---\n{short(canary)} " \
        f"2026-01-02 Ana: {SUBJECT}\n"


@pytest.mark.parametrize("entry", ["relative/path", ""])
def test_allow_outside_must_be_absolute(entry: str, ws: Path) -> None:
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text(f'[git]\nallow_outside = ["{entry}"]\n')
    done = run_stringsh(["-c", "/ls"], cwd=ws)
    assert f"ERROR(INVALID_PAYLOAD): Bad policy file {config / 'policy.toml'}: git.allow_outside: {entry!r} is " \
        "not an absolute path" in (done.stdout + done.stderr).decode()


def test_a_gitdir_through_proc_is_refused(ws: Path, canary: Path) -> None:
    (ws / ".git").write_text("gitdir: /proc/self/cwd/../canary/.git\n")
    done = run_stringsh(["-c", "/git status"], cwd=ws)
    assert done.stdout.decode() == (
        "re: /git status\nERROR(FILE_NOT_ALLOWED): The repository's .git file (gitdir:) names a process's folder: "
        "/proc/self/cwd/../canary/.git\nPoint it at the repository's real path (/proc and /dev/fd mean another "
        "folder to git).\n")


def test_a_separate_git_dir_inside_the_workspace_works(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main", f"--separate-git-dir={ws / 'store'}")
    git(ws, "config", "user.name", "Ana")
    git(ws, "config", "user.email", "ana@example.com")
    (ws / "a.txt").write_text("one\n")
    done = run_stringsh(["-c", "/git commit -m first a.txt"], cwd=ws)
    assert done.stdout.decode() == f"re: /git commit -m first a.txt\nCommitted {short(ws)} on main: 1 file " \
        "changed, 1 insertion(+)\n"


def test_a_linked_worktree_whose_repository_is_another_root_works(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main")
    wt = tmp_path / "wt"
    git(main, "worktree", "add", "-q", str(wt), "-b", "side")
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text(f'[[roots]]\nid = "main"\npath = "."\n[[roots]]\nid = "repo"\npath = '
                                        f'"{main}"\n')
    (wt / "a.txt").write_text("from the worktree\n")
    script = tmp_path / "s.txt"
    script.write_text("/git status\n/git commit -m wt a.txt\n/git checkout -b more\n")
    out = run_stringsh(["--root", str(wt), "run", str(script)], cwd=tmp_path).stdout.decode()
    assert out == (
        "re: /git status\nOn branch side\n---\nstaged: (none)\nunstaged:\n  modified: a.txt\nuntracked: (none)\n"
        f"re: /git commit -m wt a.txt\nCommitted {short(wt)} on side: 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        "re: /git checkout -b more\nSwitched to a new branch more\n"
    )
    assert git(main, "log", "-1", "--format=%s", "more") == "wt\n"


# -- push ---------------------------------------------------------------------------------------------------------


def hooked_bare(path: Path, canary: Path) -> Path:
    """A bare repository each of whose receiving hooks appends its name to `canary`."""
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    for hook in RECEIVE_HOOKS:
        script = path / "hooks" / hook
        script.write_text(f"#!/bin/sh\necho {hook} >> '{canary}'\ncat >/dev/null\n")
        script.chmod(0o755)
    return path


@pytest.fixture
def pushing(ws: Path) -> Path:
    make_repo(ws)
    return ws


def push(ws: Path, url: str, *, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    git(ws, "remote", "remove", "r", check=False)
    git(ws, "remote", "add", "r", url)
    done = run_stringsh(["--root", str(ws), "-c", "/git push r main"], cwd=cwd or ws, env=env)
    return done.stdout.decode().removeprefix("re: /git push r main\n")


def test_plain_git_push_runs_the_remotes_hooks(pushing: Path, tmp_path: Path) -> None:
    canary = tmp_path / "HOOKS_RAN"
    remote = hooked_bare(tmp_path / "outside.git", canary)
    git(pushing, "push", "-q", str(remote), "main")
    assert canary.read_text().split() == ["pre-receive", "update", "reference-transaction", "reference-transaction",
                                          "post-receive", "post-update"]


def test_push_to_a_hooked_remote_outside_runs_no_hook(pushing: Path, tmp_path: Path) -> None:
    canary = tmp_path / "HOOKS_RAN"
    remote = hooked_bare(tmp_path / "outside.git", canary)
    (remote / "config").write_text((remote / "config").read_text() + f"[core]\n\thooksPath = {remote / 'hooks'}\n")
    assert push(pushing, str(remote)) == "Pushed main to r: [new branch]\n"
    (pushing / "a.txt").write_text("two\n")
    git(pushing, "commit", "-q", "-am", "two")
    assert push(pushing, f"file://{tmp_path}/%6Futside.git").startswith("Pushed main to r: ")
    assert git(remote, "rev-parse", "main") == git(pushing, "rev-parse", "HEAD")
    assert not canary.exists()


def test_push_into_a_checked_out_branch_never_checks_out(pushing: Path, tmp_path: Path) -> None:
    """`receive.denyCurrentBranch=updateInstead` would check the pushed tree out there, running its filters."""
    canary = tmp_path / "HOOKS_RAN"
    other = new_repo(tmp_path / "other")
    git(other, "config", "receive.denyCurrentBranch", "updateInstead")
    git(other, "config", "filter.f.smudge", f"sh -c 'echo smudge >> {canary}; cat'")
    (other / ".git" / "info" / "attributes").write_text("* filter=f\n")
    (pushing / "a.txt").write_text("pushed\n")
    git(pushing, "commit", "-q", "-am", "pushed")
    answer = push(pushing, str(other))
    assert answer.startswith("ERROR(CONFLICT): The remote rejected main: "), answer
    assert (other / "a.txt").read_text() == "hello\n"
    assert not canary.exists()


@pytest.mark.parametrize("form", ["proc-self-cwd", "proc-pid-cwd", "dev-fd", "link-to-proc"])
def test_push_through_proc_or_dev_fd_is_refused(form: str, pushing: Path, tmp_path: Path) -> None:
    """Started with --root from another folder: `/proc/self/cwd` is the workspace to git, not to stringsh."""
    canary = tmp_path / "HOOKS_RAN"
    hooked_bare(pushing / "evil.git", canary)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    hooked_bare(elsewhere / "evil.git", canary)  # what stringsh's own /proc/self/cwd would have found
    url = {"proc-self-cwd": "/proc/self/cwd/evil.git", "proc-pid-cwd": f"/proc/{os.getpid()}/cwd/evil.git",
           "dev-fd": "/dev/fd/0/../../cwd/evil.git", "link-to-proc": str(tmp_path / "link" / "evil.git")}[form]
    (tmp_path / "link").symlink_to("/proc/self/cwd")
    assert push(pushing, url, cwd=elsewhere) == (
        f"ERROR(NOT_PERMITTED): Refusing to push to a path through /proc or /dev/fd: {url}\n"
        "It names another folder to git than to stringsh; give the repository's real path.\n")
    assert not canary.exists()


@pytest.mark.parametrize("form", ["relative", "suffix", "file-url", "encoded-file-url", "symlink", "git-dir"])
def test_push_into_the_workspace_is_refused(form: str, pushing: Path, tmp_path: Path) -> None:
    canary = tmp_path / "HOOKS_RAN"
    hooked_bare(pushing / "evil.git", canary)
    (tmp_path / "link").symlink_to(pushing)
    url = {"relative": "evil.git", "suffix": "evil", "file-url": f"file://{pushing}/evil.git",
           "encoded-file-url": f"file://localhost{pushing}/%65vil.git", "symlink": str(tmp_path / "link" / "evil"),
           "git-dir": str(tmp_path / "link" / ".git")}[form]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert push(pushing, url, cwd=elsewhere) == (
        f"ERROR(NOT_PERMITTED): Refusing to push into a repository inside the workspace: {url}\n"
        "Its hooks and config are the workspace's; push to a repository outside it.\n")
    assert not canary.exists()


def test_push_to_home_uses_gits_home_and_runs_no_hook(pushing: Path, tmp_path: Path) -> None:
    """`~` is expanded by receive-pack with the HOME git runs with (stringsh's state folder), never the user's."""
    canary = tmp_path / "HOOKS_RAN"
    home = tmp_path / "home"
    home.mkdir()
    hooked_bare(home / "evil.git", canary)
    hooked_bare(pushing / "evil.git", canary)
    for url in ("~/evil.git", "file:///~/evil.git"):
        answer = push(pushing, url, env={"HOME": str(home)})
        assert answer.startswith("ERROR(EXIT_128): git push failed: "), answer
        assert "does not appear to be a git repository" in answer
    assert not canary.exists()
    assert git(home / "evil.git", "for-each-ref") == ""


def test_a_git_file_without_gitdir_and_a_quoted_alternate(ws: Path, canary: Path) -> None:
    (ws / ".git").write_text("x\n")
    assert run_stringsh(["-c", "/git status"], cwd=ws).stdout.decode() == (
        "re: /git status\nERROR(NOT_PERMITTED): The workspace's .git file has no gitdir: line.\n"
        "Replace it with the repository, or with `gitdir: PATH` naming one.\n")
    (ws / ".git").unlink()
    git(ws, "init", "-q", "-b", "main")
    inside = ws / "store.git"
    git(ws, "init", "-q", "--bare", str(inside))
    alternates = ws / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(f"{inside / 'objects'}\n")  # inside the workspace: fine
    assert run_stringsh(["-c", "/git log"], cwd=ws).stdout.decode() == "re: /git log\nNo commits yet\n"
    (inside / "objects" / "info" / "alternates").write_text(f'"{canary}/.git/\\157bjects"\n')  # one deeper, C-quoted
    assert run_stringsh(["-c", "/git log"], cwd=ws).stdout.decode() == (
        f"re: /git log\n{refusal('objects/info/alternates', canary / '.git' / 'objects')}\n")
