"""Run one git command in the workspace's repository: fixed argv and environment (hardening.py), optionally inside
the policy's bubblewrap sandbox, with a timeout; returns the raw outcome, raises coded errors, never prints."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.git.hardening import (
    ConfigEntry,
    base_env,
    config_env,
    identity_env,
    overrides,
    parse_config,
    push_helpers,
    user_gitconfig,
)
from stringsh.workspace.git.layout import Checker, check_layout
from stringsh.workspace.git.where import allowed_folders

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: Longest git error text kept for a reply.
MAX_ERROR = 4000
#: Most output of a git command whose output is parsed (status, names, log, config) rather than shown.
MAX_PARSED = 64 << 20
#: Seconds between SIGTERM and SIGKILL to a timed-out git's process group (the shell's default).
KILL_GRACE = 5.0


class GitOutput(NamedTuple):
    status: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")


def safe_path(roots: Sequence[Path]) -> str:
    """The user's PATH without relative entries or folders inside a workspace root: git, and what git runs
    (ssh, git-receive-pack), never comes from the workspace."""
    kept = []
    for entry in os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(os.pathsep):
        if not os.path.isabs(entry):
            continue
        real = Path(entry).resolve()
        if any(real == root or real.is_relative_to(root) for root in roots):
            continue
        kept.append(entry)
    return os.pathsep.join(kept) or "/usr/bin:/bin"


class GitRunner:
    """One workspace's repository (its `.git` at the workspace root, never a parent's, and every folder it leads
    to inside the roots or allowed: layout.py); `config` is its config as git reads it (every scope, includes
    followed), read once per request."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.root = ws.confiner.real
        self.roots = [folder for _, folder, _ in ws.confiner.root_list()]
        dot_git = self.root / ".git"
        try:
            mode = os.lstat(dot_git).st_mode
        except FileNotFoundError:
            raise StringError("NOT_FOUND", "The workspace is not a git repository (no .git at its root).",
                              "Make one with !git init, or open stringsh in the repository's top folder.") from None
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            raise StringError("NOT_PERMITTED", "The workspace's .git is neither a folder nor a gitdir file.",
                              "Replace the .git link with the repository itself.")
        policy = ws.policy
        self.checker = Checker(self.roots, allowed_folders(policy.git.allow_outside), policy.trusted)
        self.layout = check_layout(self.root, self.checker)
        self.path = safe_path(self.roots)
        git = shutil.which("git", path=self.path)
        if git is None:
            raise StringError("NOT_FOUND", "git is not installed.", "Install it (apt-get install -y git).")
        self.git = git
        require_version(git)
        self.timeout = float(ws.policy.shell.timeout)
        self.config = self._read_config()

    def env(self, *, push: bool = False, global_config: bool = True) -> dict[str, str]:
        env = base_env(self.root, self.ws.state_dir, push=push, global_config=global_config)
        env["GIT_DIR"] = str(self.layout.git_dir)  # as checked: a `.git` file rewritten since is not read again
        env["PATH"] = self.path
        return env

    def _read_config(self) -> list[ConfigEntry]:
        """Every config entry git will see (`git config` reads files only: nothing runs), read with the user's own
        HOME, so an include of theirs written with `~` counts for the identity and the overrides."""
        argv = [self.git, "--no-pager", "config", "--list", "--null", "--show-scope", "--includes"]
        env = self.env()
        home = os.environ.get("HOME", "")
        if os.path.isabs(home):  # `~` in the user's includes (`[includeIf "gitdir:~/work/"] path = ~/.work`)
            env["HOME"] = home  # as they wrote it: their identity is read from there (hardening.identity_env)
        done = self._spawn(argv, env)
        if done.status not in (0, 1):  # 1: no entries at all
            raise StringError("INVALID_TARGET", f"git cannot read the repository's config: {first_line(done)}",
                              "Check .git/config (!git config --local --list).")
        return parse_config(done.stdout)

    def _stringsh_config(self) -> list[ConfigEntry]:
        """Entries of stringsh's own `<config>/gitconfig` only, as global: the one file whose credential helpers
        push follows (a helper in `~/.gitconfig` is overridden like every key that runs a program)."""
        path = user_gitconfig()
        if not path.is_file():
            return []
        argv = [self.git, "--no-pager", "config", "--file", str(path), "--list", "--null", "--show-scope",
                "--includes"]
        done = self._spawn(argv, self.env())
        return [ConfigEntry("global", e.key, e.value) for e in parse_config(done.stdout)] if done.status == 0 else []

    def run(self, args: Sequence[str], *, push: bool = False, stdin: bytes | None = None,
            shown: bool = False, protocols: str | None = None) -> GitOutput:
        """`git <args>` with the overrides; inside the policy's sandbox unless pushing (which needs the network) or
        the repository lives outside the workspace root (another root's, or one the user allowed: the sandbox
        shows git only the workspace; hooks and configured programs stay off by the overrides either way).
        `shown`: the output is text for a reader (a diff), cut to the shell's output cap as the shell cuts it.
        `protocols`: the transports this push may use (remote.plan), narrower than hardening's PUSH_PROTOCOLS."""
        sandboxed = not push and self.ws.shell_sandboxed() and self._repository_inside()
        argv = [self.git, "--no-pager", *args]
        env = self.env(push=push, global_config=not sandboxed)
        if protocols is not None:
            env["GIT_ALLOW_PROTOCOL"] = protocols
        env.update({name: value for name, value in identity_env(self.config).items() if name not in env})
        env.update(config_env([*overrides(self.config), *(push_helpers(self._stringsh_config()) if push else [])]))
        if sandboxed:
            argv = self.ws.shell_provider().wrap(argv, self.root)
        return self._spawn(argv, env, stdin, shown, reaped=not sandboxed)

    def _repository_inside(self) -> bool:
        root = self.root.resolve()
        return all(folder.resolve().is_relative_to(root) for folder in (self.layout.git_dir, self.layout.common_dir))

    def _spawn(self, argv: Sequence[str], env: Mapping[str, str], stdin: bytes | None = None,
               shown: bool = False, *, reaped: bool = False) -> GitOutput:
        """One git process through the engine's one runner (shell/runner.py: its own session, SIGTERM to the group
        at the deadline, SIGKILL after the grace). Text for a reader is cut to the shell's output cap, head and
        tail kept around the shell's note (the whole of it in a spool file); output a caller parses is never
        cut: past MAX_PARSED bytes the command is refused instead. `reaped`: run outside the sandbox, so its
        session is named to shell/reaper.py while it runs."""
        from stringsh.workspace.paths import spool_folder
        from stringsh.workspace.shell.capture import OutputCapture
        from stringsh.workspace.shell.runner import ProcessCall, Stream, Tail, execute

        call = ProcessCall(tuple(argv), self.root, env, self.timeout, KILL_GRACE, stdin, reaped=reaped)
        err = Tail(MAX_ERROR * 4)
        cap = int(self.ws.policy.shell.output_cap)
        out = Stream(cap if shown else max(MAX_PARSED, cap))
        capture = OutputCapture(cap, spool_folder(self.root)) if shown else None

        def sink(chunk: bytes) -> None:
            out.add(chunk)
            if capture is not None:
                capture.write(chunk)

        try:
            ended = execute(call, sink, err.add)
        finally:
            if capture is not None:
                capture.close()  # the spool file, whatever happens next (text() reads what was kept)
        if ended.timed_out:
            raise StringError("TIMEOUT", f"git ran past the time limit ({self.timeout:g} s) and was stopped.",
                              "The policy's [shell] timeout sets the limit.")
        stdout = bytes(out.data)
        if out.truncated and capture is not None:
            stdout = capture.text().encode("utf-8")  # head, the shell's note, tail
        elif out.truncated:
            raise StringError("TOO_LARGE", f"git printed more than {out.cap} bytes; nothing was read from it.",
                              "Narrow it to a path, or run it in the shell (!git …).")
        return GitOutput(ended.returncode, stdout, bytes(err.data).decode("utf-8", "replace")[-MAX_ERROR:])


#: GIT_CONFIG_COUNT (2.31): without it the overrides would be silently ignored.
MIN_VERSION = (2, 31)
_checked: dict[str, bool] = {}


def require_version(git: str) -> None:
    """Refuse a git too old to read the overrides (asked once per binary)."""
    if git not in _checked:
        try:
            said = subprocess.run([git, "--version"], capture_output=True, text=True, timeout=10,
                                  env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}, check=False).stdout
            parts = said.split()[2].split(".")
            _checked[git] = (int(parts[0]), int(parts[1])) >= MIN_VERSION
        except (OSError, IndexError, ValueError, subprocess.TimeoutExpired):
            _checked[git] = False
    if not _checked[git]:
        raise StringError("NOT_PERMITTED", f"/git needs git {'.'.join(map(str, MIN_VERSION))} or newer: {git}",
                          "Upgrade git; meanwhile !git runs it in the shell.")


def first_line(done: GitOutput) -> str:
    """git's own reason, without its `fatal: `/`error: ` prefix."""
    for line in done.stderr.splitlines():
        line = line.strip()
        if line and not line.startswith("hint:"):
            for prefix in ("fatal: ", "error: "):
                line = line.removeprefix(prefix)
            return line
    return f"git exited with status {done.status}"
