"""/git: status, diff, log, commit, checkout, branch and push with exact replies, on real
repositories made by the real git in temp folders; push goes to a local bare repository outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from tests.commands.gitrepo import git, make_repo, short
from tests.conftest import run_stringsh, spool_named

pytestmark = pytest.mark.needs("git")


def reply(dispatcher: Dispatcher, command: str) -> str:
    """The reply without its `re:` line."""
    text: str = dispatcher.execute(command).text
    return text.split("\n", 1)[1]


@pytest.fixture
def repo(ws: Path) -> Path:
    return make_repo(ws)


def test_status_lists_staged_unstaged_untracked(repo: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/git status") == (
        "On branch main\n---\nstaged: (none)\nunstaged: (none)\nuntracked: (none)"
    )
    (repo / "a.txt").write_text("hello\nmore\n")
    (repo / "new.txt").write_text("new\n")
    git(repo, "add", "new.txt")
    (repo / "notes").mkdir()
    (repo / "notes" / "n.md").write_text("n\n")
    (repo / "c.txt").write_text("c\n")
    (repo / ".env").write_text("TOKEN=x\n")  # a secret: never listed, counted
    assert reply(dispatcher, "/git status") == (
        "On branch main\n---\n"
        "staged:\n  added: new.txt\n"
        "unstaged:\n  modified: a.txt\n"
        "untracked:\n  c.txt\n  notes/\n"
        "(1 secret path not shown)"
    )
    git(repo, "rm", "-q", "--cached", "a.txt")
    assert reply(dispatcher, "/git status").startswith(
        "On branch main\n---\nstaged:\n  deleted: a.txt\n  added: new.txt\nunstaged: (none)\nuntracked:\n  a.txt\n"
    )


def test_status_before_the_first_commit_and_detached(ws: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/git status") == (
        "ERROR(NOT_FOUND): The workspace is not a git repository (no .git at its root).\n"
        "Make one with !git init, or open stringsh in the repository's top folder."
    )
    git(ws, "init", "-q", "-b", "trunk")
    assert reply(dispatcher, "/git status") == (
        "On branch trunk, no commits yet\n---\nstaged: (none)\nunstaged: (none)\nuntracked: (none)"
    )
    assert reply(dispatcher, "/git log") == "No commits yet"
    assert reply(dispatcher, "/git branch") == "No branches yet (the first commit makes one)"
    make_repo(ws)
    git(ws, "checkout", "-q", "--detach")
    assert reply(dispatcher, "/git status").startswith(f"HEAD detached at {short(ws)}\n---\n")
    assert reply(dispatcher, "/git status extra") == (
        "ERROR(INVALID_PAYLOAD): /git status takes no arguments. Usage: /git status\n"
        "/help git shows every subcommand."
    )


def test_diff_unstaged_staged_and_one_path(repo: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/git diff") == "No unstaged changes"
    (repo / "a.txt").write_text("hello\nmore\n")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    blob_a = git(repo, "hash-object", "a.txt").strip()[:7]
    blob_b = git(repo, "hash-object", "b.txt").strip()[:7]
    head_a = git(repo, "rev-parse", "HEAD:a.txt").strip()[:7]
    unstaged = (
        f"diff --git a/a.txt b/a.txt\nindex {head_a}..{blob_a} 100644\n--- a/a.txt\n+++ b/a.txt\n"
        "@@ -1 +1,2 @@\n hello\n+more"
    )
    assert reply(dispatcher, "/git diff") == f"Unstaged changes: 1 file\n---\n{unstaged}"
    assert reply(dispatcher, "/git diff a.txt") == f"Unstaged changes: 1 file\n---\n{unstaged}"
    assert reply(dispatcher, "/git diff b.txt") == "No unstaged changes"
    assert reply(dispatcher, "/git diff --staged") == (
        "Staged changes: 1 file\n---\n"
        f"diff --git a/b.txt b/b.txt\nnew file mode 100644\nindex 0000000..{blob_b}\n--- /dev/null\n+++ b/b.txt\n"
        "@@ -0,0 +1 @@\n+b"
    )
    assert reply(dispatcher, "/git diff a.txt b.txt") == (
        "ERROR(INVALID_PAYLOAD): /git diff takes at most one path. Usage: /git diff [--staged] [path]\n"
        "/help git shows every subcommand."
    )


def test_diff_and_log_are_redacted(repo: Path, dispatcher: Dispatcher) -> None:
    token = "ghp_" + "A" * 36
    (repo / "a.txt").write_text(f"hello\nkey = {token}\n")
    assert reply(dispatcher, "/git diff").endswith("@@ -1 +1,2 @@\n hello\n+key = ***REDACTED***")
    git(repo, "commit", "-q", "-am", f"add {token}")
    assert reply(dispatcher, "/git log -n 1") == (
        f"Last 1 commit, newest first\n---\n{short(repo)} 2026-01-02 Ana: add ***REDACTED***"
    )


def test_log_n(repo: Path, dispatcher: Dispatcher) -> None:
    for n in (2, 3):
        (repo / "a.txt").write_text(f"v{n}\n")
        git(repo, "commit", "-q", "-am", f"change {n}")
    rows = [f"{short(repo, f'HEAD~{i}')} 2026-01-02 Ana: {s}" for i, s in enumerate(("change 3", "change 2", "first"))]
    assert reply(dispatcher, "/git log") == "Last 3 commits, newest first\n---\n" + "\n".join(rows)
    assert reply(dispatcher, "/git log -n 2") == "Last 2 commits, newest first\n---\n" + "\n".join(rows[:2])
    assert reply(dispatcher, "/git log -n1") == "Last 1 commit, newest first\n---\n" + rows[0]
    for bad in ("-n", "-n x", "--all", "-n 2 HEAD"):
        assert reply(dispatcher, f"/git log {bad}") == (
            "ERROR(INVALID_PAYLOAD): Give the number of commits as -n N. Usage: /git log [-n N]\n"
            "/help git shows every subcommand."
        )
    assert reply(dispatcher, "/git log -n 5000") == (
        "ERROR(INVALID_PAYLOAD): -n must be between 1 and 1000, got 5000.\ne.g. /git log -n 20"
    )


def test_commit_with_files(repo: Path, dispatcher: Dispatcher) -> None:
    (repo / "a.txt").write_text("hello\nworld\n")
    (repo / "b.txt").write_text("b\n")
    (repo / "left.txt").write_text("not committed\n")
    text = reply(dispatcher, '/git commit -m "second: a and b" a.txt b.txt')
    assert text == f"Committed {short(repo)} on main: 2 files changed, 2 insertions(+)"
    assert git(repo, "log", "-1", "--format=%s%n%an <%ae>") == "second: a and b\nAna <ana@example.com>\n"
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "a.txt\nb.txt\n"
    assert reply(dispatcher, "/git status") == (
        "On branch main\n---\nstaged: (none)\nunstaged: (none)\nuntracked:\n  left.txt"
    )
    (repo / "b.txt").unlink()  # a deletion is staged by naming the file
    assert reply(dispatcher, "/git commit -m gone b.txt") == (
        f"Committed {short(repo)} on main: 1 file changed, 1 deletion(-)"
    )
    git(repo, "add", "left.txt")  # without files: what is staged
    assert reply(dispatcher, "/git commit -m staged").startswith(f"Committed {short(repo)} on main: 1 file changed")


def test_commit_refusals(repo: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/git commit -m nothing") == (
        "ERROR(INVALID_TARGET): Nothing to commit: no staged changes.\n"
        "/git status shows what changed; /git commit -m MSG FILE… stages files and commits them."
    )
    (repo / "a.txt").write_text("changed\n")
    assert reply(dispatcher, "/git commit a.txt") == (
        "ERROR(INVALID_PAYLOAD): A commit needs a message (-m MSG); no editor is opened. "
        "Usage: /git commit -m MSG [file…]\n/help git shows every subcommand."
    )
    assert reply(dispatcher, '/git commit -m " "') == (
        'ERROR(INVALID_PAYLOAD): The commit message is empty.\nGive one: /git commit -m "what and why"'
    )
    (repo / ".env").write_text("TOKEN=x\n")
    git(repo, "add", "-f", ".env")
    assert reply(dispatcher, "/git commit -m x a.txt") == (
        "ERROR(SECRET_DENIED): A secret file is staged and would be committed: .env\n"
        "Unstage it (!git restore --staged -- .env), then commit again; nothing was committed."
    )
    assert git(repo, "log", "--format=%s") == "first\n"


def test_commit_without_identity(ws: Path, dispatcher: Dispatcher, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.gitconfig
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    git(ws, "init", "-q", "-b", "main")
    (ws / "a.txt").write_text("a\n")
    assert reply(dispatcher, "/git commit -m first a.txt") == (
        "ERROR(INVALID_TARGET): git does not know who you are (no user.name / user.email).\n"
        'Tell git once, in a terminal: git config --global user.name "Your Name" && '
        "git config --global user.email you@example.com"
    )
    assert git(ws, "diff", "--cached", "--name-only") == ""  # a.txt is not left staged
    config = Path(__import__("os").environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "gitconfig").write_text("[user]\n\tname = Bo\n\temail = bo@example.com\n")
    assert reply(dispatcher, "/git commit -m first a.txt").startswith(f"Committed {short(ws)} on main: 1 file changed")
    assert git(ws, "log", "-1", "--format=%an <%ae>") == "Bo <bo@example.com>\n"


def test_checkout_b_and_branch(repo: Path, dispatcher: Dispatcher) -> None:
    head = short(repo)
    assert reply(dispatcher, "/git branch") == f"1 branch; current: main\n---\n* main {head}"
    assert reply(dispatcher, "/git checkout -b feature/x") == "Switched to a new branch feature/x"
    assert git(repo, "symbolic-ref", "--short", "HEAD") == "feature/x\n"
    assert reply(dispatcher, "/git branch") == f"2 branches; current: feature/x\n---\n* feature/x {head}\n  main {head}"
    (repo / "a.txt").write_text("on feature\n")
    reply(dispatcher, "/git commit -m feat a.txt")
    assert reply(dispatcher, "/git checkout main") == "Switched to branch main"
    assert (repo / "a.txt").read_text() == "hello\n"
    assert reply(dispatcher, "/git checkout nope") == (
        "ERROR(NOT_FOUND): No branch named nope.\n/git branch lists branches; /git checkout -b nope makes one."
    )
    assert reply(dispatcher, "/git checkout -b main") == (
        "ERROR(CONFLICT): A branch named main already exists.\n/git checkout main switches to it."
    )
    (repo / "a.txt").write_text("local edit\n")
    assert reply(dispatcher, "/git checkout feature/x") == (
        "ERROR(CONFLICT): Local changes would be overwritten by the checkout: a.txt\n"
        "Commit them first (/git commit -m MSG FILE…)."
    )
    assert (repo / "a.txt").read_text() == "local edit\n"
    assert reply(dispatcher, "/git checkout") == (
        "ERROR(INVALID_PAYLOAD): Name one branch. Usage: /git checkout [-b] BRANCH\n/help git shows every subcommand."
    )


def test_push_to_a_local_bare_repository(repo: Path, tmp_path: Path, dispatcher: Dispatcher) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    assert reply(dispatcher, "/git push") == "Pushed main to origin: [new branch]"
    assert git(bare, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    old = short(repo)
    (repo / "a.txt").write_text("two\n")
    reply(dispatcher, "/git commit -m two a.txt")
    assert reply(dispatcher, "/git push origin main") == f"Pushed main to origin: {old}..{short(repo)}"
    assert reply(dispatcher, "/git push origin main") == "Pushed main to origin: [up to date]"
    assert git(bare, "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    git(repo, "branch", "-q", "other")
    assert reply(dispatcher, "/git push origin other") == "Pushed other to origin: [new branch]"
    git(repo, "fetch", "-q", "origin")
    git(repo, "branch", "-q", "--set-upstream-to=origin/main")
    (repo / "a.txt").write_text("three\n")
    reply(dispatcher, "/git commit -m three a.txt")
    assert reply(dispatcher, "/git status").startswith("On branch main (origin/main: ahead 1, behind 0)\n---\n")
    assert reply(dispatcher, "/git branch") == (
        f"2 branches; current: main\n---\n* main {short(repo)} [origin/main]\n  other {short(repo, 'other')}"
    )
    assert reply(dispatcher, "/git push").startswith("Pushed main to origin: ")
    assert reply(dispatcher, "/git status").startswith("On branch main (origin/main: ahead 0, behind 0)\n")
    assert reply(dispatcher, "/git push upstream") == (
        "ERROR(NOT_FOUND): No remote named 'upstream' (configured: origin).\nAdd it with !git remote add NAME URL."
    )
    assert reply(dispatcher, "/git push origin nope").startswith("ERROR(EXIT_1): git push failed: ")


def test_push_rejected_non_fast_forward(repo: Path, tmp_path: Path, dispatcher: Dispatcher) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    reply(dispatcher, "/git push")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    (other / "a.txt").write_text("theirs\n")
    git(other, "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-q", "-am", "theirs")
    git(other, "push", "-q", "origin", "main")
    (repo / "a.txt").write_text("ours\n")
    reply(dispatcher, "/git commit -m ours a.txt")
    assert reply(dispatcher, "/git push") == (
        "ERROR(CONFLICT): The remote rejected main: [rejected] (fetch first)\n"
        "Bring in its changes first (!git pull --rebase), then /git push again."
    )


def test_unknown_subcommand_and_usage(repo: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/git") == (
        "ERROR(INVALID_PAYLOAD): Usage: /git SUBCOMMAND; one of: status, diff, log, commit, checkout, branch, push\n"
        "/help git shows each; any other git command: !git …"
    )
    assert reply(dispatcher, "/git rebase -i") == (
        "ERROR(INVALID_PAYLOAD): Unknown /git subcommand: rebase\n"
        "One of: status, diff, log, commit, checkout, branch, push (/help git); any other git command: !git …"
    )


def test_through_the_real_program(repo: Path) -> None:
    (repo / "a.txt").write_text("hello\nagain\n")
    done = run_stringsh(["-c", "/git commit -m again a.txt"], cwd=repo)
    assert done.stdout.decode() == f"re: /git commit -m again a.txt\nCommitted {short(repo)} on main: " \
        "1 file changed, 1 insertion(+)\n"
    assert done.returncode == 0
    done = run_stringsh(["-c", "/git checkout nope"], cwd=repo)
    assert done.returncode == 1
    assert done.stdout.decode().startswith("re: /git checkout nope\nERROR(NOT_FOUND): No branch named nope.")


@pytest.mark.needs("bwrap")
def test_sandboxed_git(repo: Path) -> None:
    """With the policy's sandbox on, the subcommands run inside bubblewrap and still work."""
    (repo / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    (repo / "a.txt").write_text("sandboxed\n")
    script = "/git status\n/git commit -m boxed a.txt\n/git log -n 1\n/git checkout -b boxed\n"
    (repo.parent / "s.txt").write_text(script)
    out = run_stringsh(["run", str(repo.parent / "s.txt")], cwd=repo).stdout.decode()
    head = short(repo)
    date = git(repo, "log", "-1", "--format=%ad", "--date=short").strip()
    assert out == (
        "re: /git status\nOn branch main\n---\nstaged: (none)\nunstaged:\n  modified: a.txt\nuntracked:\n"
        "  stringsh.toml\n"
        f"re: /git commit -m boxed a.txt\nCommitted {head} on main: 1 file changed, 1 insertion(+), 1 deletion(-)\n"
        f"re: /git log -n 1\nLast 1 commit, newest first\n---\n{head} {date} Ana: boxed\n"
        "re: /git checkout -b boxed\nSwitched to a new branch boxed\n"
    )


def test_write_permission_off(repo: Path) -> None:
    """Commit, checkout and push change things: the policy's `write` permission governs them; reads stay."""
    (repo / "stringsh.toml").write_text("[permissions]\nwrite = false\n")
    (repo / "a.txt").write_text("x\n")
    dispatcher = Dispatcher(repo)
    try:
        assert reply(dispatcher, "/git commit -m x a.txt") == (
            "ERROR(NOT_PERMITTED): write is disabled by policy\n"
            "The policy's [permissions] write = false."
        )
        assert reply(dispatcher, "/git checkout -b x") == (
            "ERROR(NOT_PERMITTED): write is disabled by policy\n"
            "The policy's [permissions] write = false."
        )
        assert reply(dispatcher, "/git push") == (
            "ERROR(NOT_PERMITTED): write is disabled by policy\n"
            "The policy's [permissions] write = false."
        )
        assert reply(dispatcher, "/git diff").startswith("Unstaged changes: 1 file\n")
    finally:
        dispatcher.close()
    assert git(repo, "log", "--format=%s") == "first\n"


def test_non_ascii_paths(repo: Path, dispatcher: Dispatcher) -> None:
    (repo / "café.txt").write_text("crème\n")
    assert reply(dispatcher, "/git status").endswith("untracked:\n  café.txt")
    assert reply(dispatcher, "/git commit -m café café.txt").startswith(f"Committed {short(repo)} on main: 1 file")
    (repo / "café.txt").write_text("brûlée\n")
    assert reply(dispatcher, "/git diff café.txt").startswith(
        "Unstaged changes: 1 file\n---\ndiff --git a/café.txt b/café.txt\n"
    )


def test_audited_without_contents(repo: Path, dispatcher: Dispatcher) -> None:
    """Every /git subcommand is one audit record: op, paths, outcome (the error code on failure), no output."""
    import json

    (repo / "a.txt").write_text("secret-ish content\n")
    reply(dispatcher, "/git status")
    reply(dispatcher, "/git commit -m audited a.txt")
    reply(dispatcher, "/git checkout nope")
    reply(dispatcher, "/git diff ../out")
    lines = dispatcher.workspace.state.audit_path.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["op"], r["ops"], r["paths"], r["outcome"]) for r in records if r["op"] == "/git"] == [
        ("/git", ["git.status"], [], "ok"), ("/git", ["git.commit"], ["a.txt"], "ok"),
        ("/git", ["git.checkout"], [], "NOT_FOUND"), ("/git", ["git.diff"], ["../out"], "INVALID_PATH"),
    ]
    assert "secret-ish" not in "\n".join(lines) and "audited" not in "\n".join(lines)


def test_git_never_comes_from_the_workspace(repo: Path) -> None:
    """A relative PATH entry (or one inside the workspace) is dropped: a planted `bin/git` never runs."""
    fake = repo / "bin" / "git"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {repo}/MARKER\nexit 1\n")
    fake.chmod(0o755)
    import os

    for path in (f"bin:{os.environ['PATH']}", f"{repo / 'bin'}:{os.environ['PATH']}"):
        done = run_stringsh(["-c", "/git log -n 1"], cwd=repo, env={"PATH": path})
        assert done.stdout.decode().startswith("re: /git log -n 1\nLast 1 commit, newest first\n---\n")
    assert not (repo / "MARKER").exists()


def test_git_errors_are_redacted(repo: Path, dispatcher: Dispatcher) -> None:
    """git's own error text is shown, masked: here a pathspec that quotes a token-like name."""
    token = "ghp_" + "C" * 36
    assert reply(dispatcher, f"/git commit -m x {token}.txt") == (
        "ERROR(EXIT_128): git add failed: pathspec '***REDACTED***.txt' did not match any files\n"
        "!git status shows the repository's state."
    )
    assert reply(dispatcher, "/git commit -m") == (
        "ERROR(INVALID_PAYLOAD): A commit needs a message (-m MSG); no editor is opened. "
        "Usage: /git commit -m MSG [file…]\n/help git shows every subcommand."
    )


def test_repository_bytes_cannot_drive_the_terminal(repo: Path, dispatcher: Dispatcher) -> None:
    """Names and subjects come from the repository: escape sequences are removed from subjects, line breaks shown as
    `\\n`; a name holding a control is quoted, as every listing shows it (escapes.shown_name)."""
    (repo / "two\nlines.txt").write_text("x\n")
    assert reply(dispatcher, "/git status").endswith('untracked:\n  "two\\x0alines.txt"')
    (repo / "a.txt").write_text("\x1b[2Jcleared?\n")
    git(repo, "commit", "-q", "-am", "\x1b]0;owned\x07title\x1b[31m red")
    assert reply(dispatcher, "/git log -n 1") == (
        f"Last 1 commit, newest first\n---\n{short(repo)} 2026-01-02 Ana: title red"
    )
    assert "\x1b" not in reply(dispatcher, "/git diff --staged") + dispatcher.execute("/git log").text
    (repo / "a.txt").write_text("\x1b[2Jagain\n")
    assert reply(dispatcher, "/git diff").endswith("\n-cleared?\n+again")
    assert reply(dispatcher, '/git commit -m "#12 keeps its hash" a.txt').startswith("Committed ")
    assert git(repo, "log", "-1", "--format=%s") == "#12 keeps its hash\n"


def test_a_diff_over_the_output_cap_is_cut_as_the_shell_cuts(repo: Path) -> None:
    """git runs through the engine's one process runner: a diff longer than the shell's output cap keeps its head
    and tail around the shell's note, and the whole diff is in the spool file the note names."""
    import os
    import re

    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text("[shell]\noutput_cap = 2000\n")
    (repo / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    whole = git(repo, "diff")
    done = run_stringsh(["-c", "/git diff"], cwd=repo)
    out = done.stdout.decode()
    shape = r"re: /git diff\nUnstaged changes: 1 file\n---\n(.*)\n(\[\.\.\. .*\.\.\.\])\n(.*)\n"
    head, note, tail = re.fullmatch(shape, out, re.S).groups()  # type: ignore[union-attr]
    assert whole.startswith(head + "\n") and whole.endswith(tail + "\n")
    assert head.startswith("diff --git a/a.txt b/a.txt\n") and tail.endswith("+line 3000")
    total = len(whole.encode())
    cut = total - len(head) - 1 - len(tail) - 1
    spooled = re.fullmatch(rf"\[\.\.\. {cut} bytes, \d+ lines cut; whole output \({total} bytes, "
                           rf"{whole.count(chr(10))} lines\) in ('[^']*'|\S+) \.\.\.\]", note)
    assert spooled is not None, note
    assert spool_named(note).read_text() == whole
    assert done.returncode == 0
