"""Through real bubblewrap: a sandboxed shell cannot plant code that runs later outside it, cannot read what the
policy denies, and cannot change what governs it."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.shell.watch import benign_config
from tests.conftest import run_stringsh, wait_until
from tests.shell.sandboxnotes import READ_ONLY_NOTE

pytestmark = [pytest.mark.needs("bwrap"), pytest.mark.needs("git")]
SANDBOX = "[shell]\ntimeout = 20.0\nsandbox = true\n"
SECRET = "hunter2-secret-value"
GIT_ENV = ["-c", "user.name=t", "-c", "user.email=t@example.com"]


def sandboxed(ws: Path, *commands: str) -> str:
    """Each command through the real program (`stringsh -c`, a process each) under the sandbox policy."""
    (ws / "stringsh.toml").write_text(SANDBOX)
    out = ""
    for command in commands:
        done = run_stringsh(["-c", command], ws)
        assert done.stderr.decode() == "stringsh: this workspace's stringsh.toml narrows the policy (untrusted)\n"
        out += done.stdout.decode()
    return out


def git_commit_runs_no_hook(ws: Path, marker: Path) -> None:
    """The user's next commit, outside any sandbox: the hook a command tried to plant must not run."""
    subprocess.run(["git", *GIT_ENV, "-C", str(ws), "commit", "-q", "--allow-empty", "-m", "x"], check=True,
                   capture_output=True)
    assert not marker.exists()


# -- finding 3: git hooks and config in a `.git` made after the shell started ----------------------------------


def test_sandbox_hook_in_a_later_git_is_removed(ws: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    command = (f"!git init -q && printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/post-commit"
               " && chmod +x .git/hooks/post-commit && echo planted")
    out = sandboxed(ws, command)
    assert "planted\nnote: removed .git/hooks/post-commit written by the command: protected path" in out
    assert not (ws / ".git" / "hooks" / "post-commit").exists()
    assert (ws / ".git" / "config").is_file()  # what `git init` wrote runs nothing: the repository stays usable
    assert sorted(p.name for p in (ws / ".git" / "hooks").iterdir()) == sorted(
        p.name for p in (ws / ".git" / "hooks").glob("*.sample"))
    git_commit_runs_no_hook(ws, marker)


def test_sandbox_config_with_code_in_a_later_git_is_removed(ws: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    out = sandboxed(ws, f"!git init -q && git config core.fsmonitor 'touch {marker}; false' && echo set")
    assert "set\nnote: removed .git/config written by the command: protected path" in out
    assert not (ws / ".git" / "config").exists()
    git_commit_runs_no_hook(ws, marker)


def test_sandbox_gitdir_link_and_gitmodules_are_removed(ws: Path) -> None:
    out = sandboxed(ws, "!printf 'gitdir: /elsewhere\\n' > .git; printf '[submodule]\\n' > .gitmodules")
    assert "note: removed .git written by the command: protected path" in out
    assert "note: removed .gitmodules written by the command: protected path" in out
    assert not (ws / ".git").exists() and not (ws / ".gitmodules").exists()


def test_sandbox_existing_hooks_and_config_are_read_only(ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    config = (ws / ".git" / "config").read_bytes()
    out = sandboxed(ws, "!printf x > .git/hooks/pre-commit; git config core.hooksPath /x; echo done")
    assert ".git/hooks/pre-commit: Read-only file system" in out
    assert (ws / ".git" / "config").read_bytes() == config
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()


def wait_for_file(path: Path) -> None:
    wait_until(path.exists)


def test_sandbox_background_writes_are_caught(ws: Path) -> None:
    """A background job of the persistent shell writes after its command ended: the next command's check and the
    shell's close both catch it."""
    (ws / "stringsh.toml").write_text(SANDBOX)
    d = Dispatcher(ws)
    try:
        assert d.execute("!git init -q && (sleep 1; printf x > .git/hooks/pre-push; touch wrote) >/dev/null 2>&1 &").ok
        wait_for_file(ws / "wrote")  # the job has written its hook
        reply = d.execute("!true").text  # the output says the job is done, then the note
        assert reply.endswith("\nnote: removed .git/hooks/pre-push written since the last command: protected path")
        assert not (ws / ".git" / "hooks" / "pre-push").exists()
        assert d.execute("!(sleep 0.5; printf x > .git/hooks/pre-rebase; touch wrote2) >/dev/null 2>&1 &").ok
        wait_for_file(ws / "wrote2")
    finally:
        d.close()
    assert not (ws / ".git" / "hooks" / "pre-rebase").exists()


def test_benign_config_is_what_git_init_writes() -> None:
    assert benign_config(b"[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"o\"]\n\turl = x\n")
    assert not benign_config(b"[core]\n\tfsmonitor = evil\n")
    assert not benign_config(b"[include]\n\tpath = ../x\n")
    assert not benign_config(b"[core]\n\tbare = false \\\n\n")
    assert not benign_config(b"\xff")


# -- finding 7: denied paths are masked inside the sandbox ---------------------------------------------------


@pytest.fixture
def secrets_ws(ws: Path) -> Path:
    (ws / ".env").write_text(f"TOKEN={SECRET}\n")
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_ed25519").write_text(SECRET)
    (ws / "deploy").mkdir()
    (ws / "deploy" / "server.pem").write_text(SECRET)
    (ws / "env-link").symlink_to(".env")
    (ws / ".env.example").write_text("TOKEN=\n")
    return ws


def test_cat_env_in_the_sandbox_is_denied(secrets_ws: Path) -> None:
    out = sandboxed(secrets_ws, "/open .env", "!cat .env")
    assert "ERROR(SECRET_DENIED)" in out
    assert "cat: .env: Permission denied" in out
    assert SECRET not in out


@pytest.mark.parametrize(
    "command",
    [
        "!cat .env",
        "!cp .env x; cat x",
        "!ln .env y; cat y",
        "!ln -s .env z && cat z",
        "!cat env-link",
        "!cat .ssh/id_ed25519; ls -A .ssh",
        "!cat deploy/server.pem",
        "!grep -r hunter2 . 2>/dev/null",
        "/exec cat .env deploy/server.pem",
    ],
)
def test_no_way_round_the_mask(secrets_ws: Path, command: str) -> None:
    out = sandboxed(secrets_ws, command)
    assert SECRET not in out
    assert (secrets_ws / ".env").read_text() == f"TOKEN={SECRET}\n"  # masked, not changed


def test_allowed_and_ordinary_files_stay_readable(secrets_ws: Path) -> None:
    (secrets_ws / "notes.txt").write_text("plain\n")
    out = sandboxed(secrets_ws, "!cat .env.example notes.txt")
    assert "TOKEN=\nplain" in out


def test_user_config_folder_hidden_from_the_sandbox(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The signing key, stored `$NAME` values and trust decisions live there: not readable, not writable. (Under
    /var/tmp: the sandbox's private /tmp would hide a folder under /tmp anyway.)"""
    config = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="stringsh-config-"))
    try:
        monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(config))
        (config / "cache.key").write_text(SECRET)
        out = sandboxed(ws, f"!cat {config}/cache.key; ls -A {config}; touch {config}/trust; echo end")
        assert SECRET not in out
        assert f"touch: cannot touch '{config}/trust': Read-only file system\nend" in out
        assert not (config / "trust").exists()
    finally:
        shutil.rmtree(config)


def test_secrets_in_the_users_home_are_masked(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox shows the system read-only; the user's keys in their home are hidden by the same deny list."""
    home = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="stringsh-home-"))
    try:
        monkeypatch.setenv("HOME", str(home))
        (home / ".ssh").mkdir()
        (home / ".ssh" / "id_rsa").write_text(SECRET)
        (home / ".aws").mkdir()
        (home / ".aws" / "credentials").write_text(SECRET)
        (home / ".netrc").write_text(SECRET)
        (home / "notes.txt").write_text("plain\n")
        out = sandboxed(ws, "!cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc; cat ~/notes.txt")
        assert SECRET not in out
        assert "plain" in out
    finally:
        shutil.rmtree(home)


# -- finding 10: the sandbox cannot unlock itself -----------------------------------------------------------


def test_policy_inside_the_workspace_cannot_be_rewritten(ws: Path) -> None:
    policy = ws / "p.toml"
    policy.write_text(SANDBOX)
    attack = "!printf '[shell]\\nsandbox = false\\n' > p.toml; mv p.toml q.toml; rm -f p.toml; echo tried"
    done = run_stringsh(["--policy", str(policy), "-c", attack], ws)
    out = done.stdout.decode()
    assert "p.toml: Read-only file system" in out
    assert "Device or resource busy" in out
    assert policy.read_text() == SANDBOX
    rerun = run_stringsh(["--policy", str(policy), "-c", "!touch /etc/probe-10"], ws).stdout.decode()
    assert "Read-only file system" in rerun  # still sandboxed on the next run


def test_policy_folder_cannot_be_renamed_away(ws: Path) -> None:
    (ws / "conf").mkdir()
    policy = ws / "conf" / "p.toml"
    policy.write_text(SANDBOX)
    attack = "!mv conf conf-old; mkdir -p conf; printf '[shell]\\nsandbox = false\\n' > conf/p.toml; echo tried"
    out = run_stringsh(["--policy", str(policy), "-c", attack], ws).stdout.decode()
    assert "Device or resource busy" in out
    assert policy.read_text() == SANDBOX


def test_policy_outside_the_workspace_is_not_writable(ws: Path, tmp_path: Path) -> None:
    """Outside every writable root it is read-only already; inside a second read_write root it is bound so."""
    other = tmp_path / "other"
    other.mkdir()
    for policy in (tmp_path / "user.toml", other / "p.toml"):
        text = (f'{SANDBOX}[[roots]]\nid = "main"\npath = "{ws}"\nmode = "read_write"\n'
                f'[[roots]]\nid = "other"\npath = "{other}"\nmode = "read_write"\n')
        policy.write_text(text)
        attack = (f"!touch {shlex.quote(f'{other}/ok')}; printf '[shell]\\nsandbox = false\\n' "
                  f"> {shlex.quote(str(policy))}; echo tried")
        out = run_stringsh(["--policy", str(policy), "-c", attack], ws).stdout.decode()
        if policy.parent == other:
            assert f"{policy}: Read-only file system" in out
        # else the write went to the sandbox's private /tmp, never to the host's file
        assert policy.read_text() == text
        assert (other / "ok").exists()


def test_git_folder_cannot_be_replaced(ws: Path, tmp_path: Path) -> None:
    """`mv .git .git-old && cp -a .git-old .git` would swap in a writable copy: `.git` is a mount point (EBUSY),
    and emptying it cannot reach the read-only hooks and config either."""
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    marker = tmp_path / "pwned"
    hook = f"printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
    out = sandboxed(ws, f"!mv .git .git-old && cp -a .git-old .git && {hook}",
                    f"!rm -rf .git/hooks .git/config; {hook}")
    assert "cannot move '.git' to '.git-old': Device or resource busy" in out
    assert not (ws / ".git-old").exists()
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    git_commit_runs_no_hook(ws, marker)


def test_masks_never_stop_the_shell(ws: Path) -> None:
    """A dangling denied link, a denied FIFO and a denied folder holding the workspace's own files all start."""
    (ws / ".env").symlink_to("missing")
    os.mkfifo(ws / "server.key")
    (ws / "a" / ".ssh").mkdir(parents=True)
    assert "exit: 0" in sandboxed(ws, "!echo ok; timeout 1 cat server.key; ls -A a/.ssh; true")
    assert sorted(p.name for p in ws.iterdir()) == [".env", ".stringsh", "a", "server.key", "stringsh.toml"]


def test_symlinked_git_cannot_be_retargeted(ws: Path, tmp_path: Path) -> None:
    """`.git -> .bare` (a user's layout): its hooks are read-only, and pointing the link at a prepared repository
    is put back."""
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(ws / ".bare"), str(tmp_path / "w")], check=True)
    (ws / ".git").symlink_to(".bare")
    marker = tmp_path / "pwned"
    prepare = f"git init -q evil && printf '#!/bin/sh\\ntouch {marker}\\n' > evil/.git/hooks/pre-commit"
    out = sandboxed(ws, f"!printf x > .git/hooks/pre-commit; {prepare} && chmod +x evil/.git/hooks/pre-commit"
                        " && ln -sfn evil/.git .git; echo tried")
    assert ".git/hooks/pre-commit: Read-only file system" in out
    assert "note: restored .git changed by the command: protected path" in out
    assert os.readlink(ws / ".git") == ".bare"
    git_commit_runs_no_hook(ws, marker)


def test_dangling_protected_link_written_through_is_removed(ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".git" / "config").unlink()
    (ws / ".git" / "config").symlink_to("../cfg")
    out = sandboxed(ws, "!printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config; echo tried")
    assert "tried\nnote: removed .git/config changed by the command: protected path" in out
    assert not os.path.lexists(ws / ".git" / "config")


def test_user_state_folder_hidden_from_the_sandbox(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every workspace's journal (previous bytes of its files) and audit log live there: another workspace's
    sandbox reads none of it and writes nothing there."""
    state = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="stringsh-state-"))
    try:
        monkeypatch.setenv("STRINGSH_STATE_DIR", str(state))
        (state / "other-workspace").mkdir()
        (state / "other-workspace" / "journal.db").write_text(SECRET)
        out = sandboxed(ws, f"!cat {state}/other-workspace/journal.db; ls -A {state}; touch {state}/x; echo end")
        assert SECRET not in out
        assert out.split("\n---\n", 1)[1] == (  # an empty folder: nothing to read, nothing listed, read-only
            f"cat: {state}/other-workspace/journal.db: No such file or directory\n"
            f"touch: cannot touch '{state}/x': Read-only file system\nend\n{READ_ONLY_NOTE}\n"
        )
        assert not (state / "x").exists()
    finally:
        shutil.rmtree(state)


# -- review of the landed sandbox (H1-H4, M1) ----------------------------------------------------------------


def test_workspace_limits_cannot_switch_off_the_masks(ws: Path) -> None:
    """An untrusted workspace may lower its limits (narrowing); the mask walk must not get shorter with them."""
    (ws / "a").mkdir()
    (ws / "a" / "b.txt").write_text("x")
    (ws / "z" / "y").mkdir(parents=True)
    (ws / "z" / "y" / ".env").write_text(f"TOKEN={SECRET}\n")
    (ws / "stringsh.toml").write_text(f"{SANDBOX}[limits]\nmax_walk_entries = 1\nmax_walk_files = 1\n")
    out = run_stringsh(["-c", "!cat z/y/.env; cat a/b.txt"], ws).stdout.decode()
    assert SECRET not in out
    assert "Permission denied" in out


def test_a_walk_cut_short_refuses_to_start(ws: Path) -> None:
    """Past its limit the walk fails closed: no shell with unvisited secrets left readable."""
    from stringsh.errors import StringError
    from stringsh.workspace.secrets import SecretMatcher
    from stringsh.workspace.shell.binds import mask_args

    for n in range(5):
        (ws / f"d{n}").mkdir()
        (ws / f"d{n}" / ".env").write_text(SECRET)
    matcher = SecretMatcher(("**/.env",), ())
    with pytest.raises(StringError) as err:
        mask_args(ws, matcher, 3, strict=True)
    assert err.value.code == "NOT_PERMITTED" and "max_walk_entries" in err.value.message
    assert len(mask_args(ws, matcher, 100, strict=True)) == 5 * 3


def test_sandbox_cannot_create_the_user_config(ws: Path) -> None:
    """HOME as the workspace and no config folder yet: the sandbox must not plant a trusted user policy."""
    env = {"HOME": str(ws), "STRINGSH_CONFIG_DIR": "", "XDG_CONFIG_HOME": "", "STRINGSH_STATE_DIR": "",
           "XDG_STATE_HOME": ""}
    (ws / "stringsh.toml").write_text(SANDBOX)
    attack = ("!mkdir -p .config/stringsh"
              " && printf '[secrets]\\nallow_globs=[\"**\"]\\n' > .config/stringsh/policy.toml;"
              " mv .config .config-old; mkdir -p .config/stringsh && printf x > .config/stringsh/policy.toml;"
              " mkdir -p .local/state/stringsh && printf x > .local/state/stringsh/x; echo tried")
    out = run_stringsh(["-c", attack], ws, env=env).stdout.decode()
    assert "tried" in out
    assert not (ws / ".config" / "stringsh" / "policy.toml").exists()
    assert not (ws / ".config-old").exists()
    assert not (ws / ".local" / "state" / "stringsh" / "x").exists()
    assert oct((ws / ".config" / "stringsh").stat().st_mode & 0o777) == "0o700"


def test_nested_repository_made_by_the_command_is_watched(ws: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hook = f"printf '#!/bin/sh\\ntouch {marker}\\n' > sub/.git/hooks/post-commit && chmod +x sub/.git/hooks/post-commit"
    out = sandboxed(ws, f"!mkdir sub && git -C sub init -q && {hook} && echo planted",
                    f"!git -C sub config core.fsmonitor 'touch {marker}; false'; {hook} && echo again")
    assert "planted\nnote: removed sub/.git/hooks/post-commit written by the command: protected path" in out
    assert "sub/.git/hooks/post-commit: Read-only file system" in out  # the next shell finds it and binds it
    assert "again" not in out
    assert not (ws / "sub" / ".git" / "hooks" / "post-commit").exists()
    git_commit_runs_no_hook(ws / "sub", marker)


def test_existing_nested_repository_is_read_only(ws: Path, tmp_path: Path) -> None:
    (ws / "a" / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws / "a" / "sub")], check=True)
    config = (ws / "a" / "sub" / ".git" / "config").read_bytes()
    out = sandboxed(ws, "!printf x > a/sub/.git/hooks/pre-commit; git -C a/sub config core.hooksPath /x;"
                        " mv a/sub/.git a/sub/.git-old; echo done")
    assert "a/sub/.git/hooks/pre-commit: Read-only file system" in out
    assert "Device or resource busy" in out
    assert (ws / "a" / "sub" / ".git" / "config").read_bytes() == config
    assert not (ws / "a" / "sub" / ".git" / "hooks" / "pre-commit").exists()


def test_sandbox_git_dir_not_named_git(ws: Path, tmp_path: Path) -> None:
    """`.bare` with a `.git` file naming it: read-only when it exists at start, swept when a command makes it."""
    marker = tmp_path / "pwned"
    subprocess.run(["git", "init", "-q", "--bare", str(ws / ".bare")], check=True)
    (ws / ".git").write_text("gitdir: ./.bare\n")
    out = sandboxed(ws, f"!printf '#!/bin/sh\\ntouch {marker}\\n' > .bare/hooks/post-commit; echo 'gitdir: x' > .git;"
                        " git init -q --bare other && printf x > other/hooks/pre-commit; echo done")
    assert ".bare/hooks/post-commit: Read-only file system" in out
    assert ".git: Read-only file system" in out
    assert "done\nnote: removed other/hooks/pre-commit written by the command: protected path" in out
    assert not (ws / ".bare" / "hooks" / "post-commit").exists()
    assert not (ws / "other" / "hooks" / "pre-commit").exists()


def test_background_hook_is_removed_without_another_command(ws: Path) -> None:
    """A job left running writes a hook after its command returned: gone within a fraction of a second, not at
    the next command; the next reply says so."""
    (ws / "stringsh.toml").write_text(SANDBOX)
    hook = ws / ".git" / "hooks" / "post-commit"
    d = Dispatcher(ws)
    try:
        plant = ("!git init -q && (sleep 2; printf '#!/bin/sh\\ntouch x\\n' > .git/hooks/post-commit;"
                 " chmod +x .git/hooks/post-commit; touch wrote) >/dev/null 2>&1 &")
        assert d.execute(plant).ok
        wait_for_file(ws / "wrote")  # the job has written its hook; the watch removes it with no command sent
        wait_until(lambda: not hook.exists())  # the watch removes it
        reply = d.execute("!true").text
        assert reply.endswith("\nnote: removed .git/hooks/post-commit written since the last command: protected path")
    finally:
        d.close()
