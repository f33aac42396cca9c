"""/git in a repository an attacker wrote: nothing its `.git/config` (or a file it includes),
`.gitattributes` or hooks name ever runs, no user argument becomes a git option, paths stay confined, and push
credentials never reach the topic's shell or a reply.

Each planted program appends to `MARKER` in the workspace when it runs; a first check runs the same git
commands the plain way and sees the marker appear, so the planted programs are real."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.git.runner import GitRunner
from tests.commands.gitrepo import git, make_repo

pytestmark = pytest.mark.needs("git")

EVIL = "#!/bin/sh\necho \"$0 $*\" >> \"$(dirname \"$0\")/../MARKER\"\ncat\n"
HOOKS = ("pre-commit", "commit-msg", "prepare-commit-msg", "post-commit", "post-checkout", "reference-transaction",
         "pre-push", "post-index-change", "pre-auto-gc")


def reply(dispatcher: Dispatcher, command: str) -> str:
    text: str = dispatcher.execute(command).text
    return text.split("\n", 1)[1]


def plant(repo: Path) -> Path:
    """Every program-running setting we know of, each pointing at `tools/evil.sh` in the workspace."""
    tools = repo / "tools"
    tools.mkdir()
    evil = tools / "evil.sh"
    evil.write_text(EVIL)
    evil.chmod(0o755)
    git(repo, "add", "tools")
    git(repo, "commit", "-q", "-m", "tools")
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil merge=evil\n*.md filter=inc\n*.dat filter=a=b\n")
    run = shlex.quote(str(evil))  # the values git runs through `sh -c`, quoted for a path with spaces
    (repo / "included.cfg").write_text(f"[filter \"inc\"]\n\tclean = {run}\n\tsmudge = {run}\n")
    for key, value in {
        "core.fsmonitor": run, "core.pager": run, "core.editor": run,
        "core.sshCommand": run, "core.askPass": str(evil), "core.alternateRefsCommand": run,
        "diff.external": run, "diff.evil.textconv": run, "diff.evil.command": run,
        "filter.evil.clean": run, "filter.evil.smudge": run, "filter.evil.required": "true",
        "filter.a=b.clean": run,  # `-c filter.a=b.clean=` would split at the first `=` and miss it
        "merge.evil.driver": run, "credential.helper": f"!{run}", "gpg.program": str(evil),
        "commit.gpgSign": "true", "log.showSignature": "true", "pager.log": run, "pager.status": "true",
        "include.path": str(repo / "included.cfg"), "status.showUntrackedFiles": "all",
    }.items():
        git(repo, "config", key, value)
    git(repo, "config", "--add", "core.pager", run)
    for hook in HOOKS:
        path = repo / ".git" / "hooks" / hook
        path.write_text(EVIL.replace("../MARKER", "../../MARKER"))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (repo / "a.txt").write_text("changed\n")
    (repo / "doc.md").write_text("doc\n")
    (repo / "data.dat").write_text("data\n")
    return repo / "MARKER"


@pytest.fixture
def evil_repo(ws: Path) -> Path:
    make_repo(ws)
    return ws


def test_the_planted_programs_do_run_under_plain_git(evil_repo: Path, tmp_path: Path) -> None:
    marker = plant(evil_repo)
    git(evil_repo, "status", check=False)
    git(evil_repo, "commit", "-q", "--no-gpg-sign", "-m", "x", "a.txt", check=False)
    ran = marker.read_text()
    assert "evil.sh" in ran and "hooks/pre-commit" in ran
    marker.unlink()
    git(evil_repo, "-c", "filter.a=b.clean=", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
        "add", "data.dat", check=False)
    assert marker.read_text().startswith(str(evil_repo / "tools" / "evil.sh"))  # `-c` missed the `a=b` driver


@pytest.mark.parametrize("policy", ["local", "sandboxed"])
def test_no_repository_program_runs(evil_repo: Path, tmp_path: Path, policy: str) -> None:
    marker = plant(evil_repo)
    if policy == "sandboxed":
        (evil_repo / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(evil_repo, "remote", "add", "origin", str(bare))
    git(evil_repo, "config", "remote.origin.receivepack", str(evil_repo / "tools" / "evil.sh"))
    git(evil_repo, "config", "remote.origin.uploadpack", str(evil_repo / "tools" / "evil.sh"))
    dispatcher = Dispatcher(evil_repo)
    try:
        status = reply(dispatcher, "/git status")
        assert status.startswith("On branch main\n---\nstaged: (none)\nunstaged:\n  modified: a.txt\nuntracked:\n")
        assert reply(dispatcher, "/git diff").startswith("Unstaged changes: 1 file\n---\ndiff --git a/a.txt b/a.txt")
        assert reply(dispatcher, "/git diff a.txt").endswith("-hello\n+changed")
        assert reply(dispatcher, "/git log -n 1").startswith("Last 1 commit, newest first\n---\n")
        committed = reply(dispatcher, "/git commit -m planted a.txt doc.md data.dat .gitattributes")
        assert committed.startswith("Committed "), committed
        assert git(evil_repo, "show", "HEAD:a.txt") == "changed\n"  # the clean filter did not rewrite it
        assert reply(dispatcher, "/git diff --staged") == "No staged changes"
        assert reply(dispatcher, "/git checkout -b side") == "Switched to a new branch side"
        assert reply(dispatcher, "/git checkout main") == "Switched to branch main"
        assert reply(dispatcher, "/git branch").startswith("2 branches; current: main\n---\n")
        git(evil_repo, "config", "--unset", "include.path")  # a workspace include stops push (test below)
        assert reply(dispatcher, "/git push origin main") == "Pushed main to origin: [new branch]"
        assert git(bare, "rev-parse", "main") == git(evil_repo, "rev-parse", "HEAD")
    finally:
        dispatcher.close()
    assert not marker.exists(), marker.read_text()
    assert not (tmp_path / "MARKER").exists()


def test_option_injection_is_refused(evil_repo: Path, tmp_path: Path, dispatcher: Dispatcher) -> None:
    outside = tmp_path / "out.txt"
    for name in ("-x", "--orphan=x", "--output=" + str(outside), "a..b", "@{-1}", "x:y", "HEAD~1", "--"):
        text = reply(dispatcher, f"/git checkout -b '{name}'")
        assert text.startswith(f"ERROR(INVALID_PAYLOAD): Not a valid branch name: {name!r}\n"), text
    assert reply(dispatcher, "/git checkout -b -x") == (
        "ERROR(INVALID_PAYLOAD): Not a valid branch name: '-x'\n"
        "A name starting with - would be read as an option; name the branch without it."
    )
    assert reply(dispatcher, "/git checkout --orphan x") == (
        "ERROR(INVALID_PAYLOAD): Name one branch. Usage: /git checkout [-b] BRANCH\n/help git shows every subcommand."
    )
    for word in ("--upload-pack=touch x", "--receive-pack=touch x", "-c", "--exec=x", "--output=x", "-p"):
        assert reply(dispatcher, f"/git diff '{word}'").startswith("ERROR(INVALID_PAYLOAD): Unknown option for "
                                                                   f"/git diff: {word}. Usage: ")
        assert reply(dispatcher, f"/git commit -m m '{word}'").startswith("ERROR(INVALID_PAYLOAD): Unknown option")
        assert reply(dispatcher, f"/git push '{word}'").startswith(
            f"ERROR(INVALID_PAYLOAD): Unknown option for /git push: {word}. Usage: /git push [remote] [branch]"
        )
    git(evil_repo, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
    for remote in ("ext::sh -c touch% x", str(tmp_path / "x.git"), "https://example.com/r.git", "a b"):
        assert reply(dispatcher, f"/git push '{remote}'") == (
            f"ERROR(INVALID_PAYLOAD): Not a remote name: {remote!r}\n"
            "Give the name of a configured remote (!git remote -v lists them), not a URL or option."
        )
    assert reply(dispatcher, "/git push origin -f").startswith("ERROR(INVALID_PAYLOAD): Unknown option")
    # a path that looks like an option stays a path: after `--`, literal, so git sees no option
    assert reply(dispatcher, "/git diff -- --output=out.txt") == "No unstaged changes"
    assert reply(dispatcher, "/git diff -- ':(top)*'") == "No unstaged changes"
    assert not (evil_repo / "out.txt").exists() and not outside.exists()
    assert reply(dispatcher, "/git commit -m m -- --output=out.txt").startswith("ERROR(EXIT_128): git add failed: ")
    assert not (evil_repo / "out.txt").exists()


def test_paths_are_confined(evil_repo: Path, tmp_path: Path, dispatcher: Dispatcher) -> None:
    (tmp_path / "outside.txt").write_text("outside\n")
    os.symlink(tmp_path / "outside.txt", evil_repo / "link.txt")
    (evil_repo / ".env").write_text("TOKEN=hunter2\n")
    (evil_repo / "id_rsa").write_text("KEY\n")
    assert reply(dispatcher, "/git diff ../outside.txt") == (
        "ERROR(INVALID_PATH): Path escapes the workspace root: ../outside.txt\nUse a path inside the workspace."
    )
    assert reply(dispatcher, f"/git commit -m x {shlex.quote(str(tmp_path / 'outside.txt'))}").startswith(
        f"ERROR(FILE_NOT_ALLOWED): Path is outside the workspace: {tmp_path / 'outside.txt'}\n"
    )
    assert reply(dispatcher, "/git commit -m x link.txt").startswith("ERROR(INVALID_PATH): ")
    for secret in (".env", "id_rsa", "sub/../.env"):
        assert reply(dispatcher, f"/git commit -m x {secret}").startswith("ERROR(SECRET_DENIED): "), secret
        assert reply(dispatcher, f"/git diff {secret}").startswith("ERROR(SECRET_DENIED): "), secret
    assert reply(dispatcher, "/git diff .git/config") == (
        "ERROR(INVALID_PATH): Not a path git tracks: .git/config\nName a file of the work tree."
    )
    assert git(evil_repo, "log", "--format=%s") == "first\n"
    assert git(evil_repo, "diff", "--cached", "--name-only") == ""


def test_secret_values_never_shown(evil_repo: Path, dispatcher: Dispatcher) -> None:
    """A tracked secret file changed: left out of status and diff (by path); a token in a tracked file: masked."""
    (evil_repo / ".env").write_text("TOKEN=hunter2\n")
    git(evil_repo, "add", "-f", ".env")
    git(evil_repo, "commit", "-q", "-m", "env")
    (evil_repo / ".env").write_text("TOKEN=hunter3\n")
    assert reply(dispatcher, "/git diff") == "No unstaged changes (1 secret file left out)"
    (evil_repo / "a.txt").write_text("sk-" + "b" * 29 + "1\n")
    text = reply(dispatcher, "/git diff")
    assert text.endswith("\n(1 secret file left out)") and "hunter" not in text and "sk-bbb" not in text
    assert "+***REDACTED***" in text


def test_push_into_a_repository_inside_the_workspace_is_refused(evil_repo: Path, dispatcher: Dispatcher) -> None:
    inner = evil_repo / "inner.git"
    git(evil_repo, "init", "-q", "--bare", str(inner))
    hook = inner / "hooks" / "pre-receive"
    hook.write_text(EVIL.replace("../MARKER", "../../MARKER"))
    hook.chmod(0o755)
    git(evil_repo, "remote", "add", "inside", "inner.git")
    git(evil_repo, "remote", "add", "inside2", f"file://{inner}")
    for name in ("inside", "inside2"):
        assert reply(dispatcher, f"/git push {name}").startswith(
            "ERROR(NOT_PERMITTED): Refusing to push into a repository inside the workspace: "
        )
    assert not (evil_repo / "MARKER").exists()


def test_only_file_https_and_ssh_transports(evil_repo: Path, dispatcher: Dispatcher) -> None:
    git(evil_repo, "remote", "add", "x", f"ext::sh -c 'touch {evil_repo}/MARKER'")
    text = reply(dispatcher, "/git push x")
    assert text.startswith("ERROR(NOT_PERMITTED): git push to x uses a transport stringsh does not allow.\n"), text
    git(evil_repo, "remote", "add", "plain", "http://127.0.0.1:9/r.git")
    assert reply(dispatcher, "/git push plain").startswith("ERROR(NOT_PERMITTED): git push to plain uses a transport")
    assert not (evil_repo / "MARKER").exists()


def credentials(token: str) -> Path:
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    store = config / "git-credentials"
    store.write_text(f"https://ana:{token}@git.example.com\n")
    store.chmod(0o600)
    return store


def test_credentials_only_for_push_never_in_the_shell(evil_repo: Path, dispatcher: Dispatcher) -> None:
    token = "tok" + "9" * 20
    credentials(token)
    marker = plant(evil_repo)
    ask = b"protocol=https\nhost=git.example.com\n\n"
    runner = GitRunner(dispatcher.workspace)
    filled = runner.run(["credential", "fill"], push=True, stdin=ask)
    assert f"password={token}" in filled.text and "username=ana" in filled.text
    local = runner.run(["credential", "fill"], stdin=ask)  # every other subcommand: no helper at all
    assert local.status != 0 and token not in local.text and "terminal prompts disabled" in local.stderr
    assert not marker.exists()  # the repository's credential helper never ran
    env = reply(dispatcher, "!env")
    assert token not in env and "git-credentials" not in env and "GIT_CONFIG" not in env
    shown = reply(dispatcher, "!cat ~/.git-credentials; git config --get-all credential.helper")
    assert token not in shown


def test_push_refused_when_config_includes_a_workspace_file(evil_repo: Path, tmp_path: Path,
                                                            dispatcher: Dispatcher) -> None:
    """Push runs outside the sandbox; a workspace file it includes could rewrite the URL after it was checked."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(evil_repo, "remote", "add", "origin", str(bare))
    (evil_repo / "extra.cfg").write_text("[core]\n\tquotePath = true\n")
    for include in ("../extra.cfg", str(evil_repo / "extra.cfg")):
        git(evil_repo, "config", "--replace-all", "include.path", include)
        assert reply(dispatcher, "/git push") == (
            f"ERROR(NOT_PERMITTED): The repository's config includes a file of the workspace: {include}\n"
            "Move the included settings into .git/config, then /git push again."
        )
    outside = tmp_path / "outside.cfg"
    outside.write_text("[core]\n\tquotePath = true\n")
    git(evil_repo, "config", "--replace-all", "include.path", str(outside))
    assert reply(dispatcher, "/git push") == "Pushed main to origin: [new branch]"
