"""The malicious-repository suite: a cloned repository that ships a planted journal, a planted index-cache
entry, engine-state links out of the folder, a widening `stringsh.toml`, git hooks, escaping symlinks, secrets
and a README whose default action copies `.env` out, opened through every front end (`stringsh -c`,
`stringsh run -`, `stringsh daemon`, the plain loop on a pty, the Dispatcher in-process) and driven through the
same short session.

What the security model (docs/security.md) promises, and so what is asserted for every front end:
- nothing under the sibling `outside/` is created or changed by stringsh itself, and `outside/ran` never appears
  because a page was opened (the `/open` reply says why the default action did not run);
- no planted state is believed: the planted journal's pending hook is never written, `/undo` has nothing to undo,
  the planted cache entry is never used, the state links lead nowhere; the repository changes only by
  `.stringsh/` becoming a private folder with its `.gitignore`;
- `.git/hooks` holds only git's samples and `.git/config` keeps its bytes; `stringsh.toml` cannot be rewritten;
- no secret (the `ghp_` token, the private-key body, the `.env` values) appears in any output, stdout or stderr.

Three user policies (`<config>/policy.toml`, the trusted layer; the workspace's widening, its `sandbox = false`
included, is ignored in each):
- `default`: no user policy. The shell is on and sandboxed by bubblewrap, which is the documented default.
- `sandboxed`: the user's policy says `[shell] sandbox = true`, the same sandbox asked for by name.
  In both, nothing outside changes at all (`outside/` is read-only in the sandbox, or absent when pytest's
  temporary folder is under the sandbox's private /tmp), and `!cat .env` / `!cat id_rsa` print nothing of them
  (masked); the user's explicit `/act.build` (their consent, tests/commands/test_default_actions.py) fails to
  write outside.
- `unsandboxed`: the user's policy says `[shell] sandbox = false`. The shell runs with the user's rights
  (`!cat ../outside/canary.txt` prints the canary), but every command that names a secret path is refused
  before it runs (`!cat .env`, `!cat id_rsa`, and `/act.build`, whose command line reads `.env`): SECRET_DENIED.

Besides the issue's list, the session opens `.stringsh/spool/canary.txt` (the one `.stringsh/` path `/open`
reads, a spool file) and runs `!seq 1 12000` (output over the cap is spooled): both meet the planted spool link.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pexpect
import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.render.index import INDEX_VERSION, build_index
from stringsh.workspace import load_policy, policy_summary
from stringsh.workspace.policy import Permissions
from stringsh.workspace.state import JOURNAL_FILE
from tests.conftest import SANDBOX_INFO, SHELL_ENV_INFO, STRINGSH, info_setup
from tests.workspace.test_planted_state import plant_journal

pytestmark = pytest.mark.needs("git")  # the hostile repository is made by `git init`

TOKEN = "ghp_" + "Zq8Lr3Vx7Tn2Wm5Kp9Hd4Jf6Bc1Ys0Ga3Ue8"  # 36 characters after the prefix
ENV_SK = "sk-live-4f9a2c7e1b8d3f6a0c5e9b2d7a4f1c8e"
ENV_PLAIN = "plain-dotenv-value-correct-horse-7f3a"  # matches no redaction pattern: only the path rules keep it in
KEY_BODY = (
    "MIIEowIBAAKCAQEAwM4lEaKLskdbKbX1Uu3QhMh0vZ8s2hvQk5cXq7Kf3nE9Rt1Lp\n"
    "Xk2JpQ9vT4mN7bR1cW8yZ3aD6fG0hJ5kL2nP9qS4tU7vW1xY3zA6bC8dE0fH2jK\n"
)
ENV = f"GITHUB_TOKEN={TOKEN}\nOPENAI_API_KEY={ENV_SK}\nDB_PASSWORD={ENV_PLAIN}\n"
ID_RSA = f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}-----END RSA PRIVATE KEY-----\n"
SECRETS = (TOKEN, ENV_SK, ENV_PLAIN, *KEY_BODY.split())
CANARY = b"canary: a file outside the workspace\n"
README = (
    "---\ndefault: build\n---\n# Project\n\nDeploy token: " + TOKEN + "\n\n"
    "```act.build\nCLI cat .env > ../outside/leak.txt; touch ../outside/ran\n```\n"
)
#: The planted cache entry's index, if it were believed: a different page, with a `pwn` default action.
FORGED_PAGE = "---\ndefault: pwn\n---\n# Pwned\n\n```act.pwn\nCLI touch ../outside/cached\n```\n"
WIDENING_POLICY = (
    '[[roots]]\nid = "main"\npath = ".."\nmode = "read_write"\n\n'
    '[secrets]\nallow_globs = ["*"]\n\n'
    "[permissions]\n" + "".join(f"{flag} = true\n" for flag in Permissions._fields) + "\n[shell]\nsandbox = false\n"
)
USER_SANDBOX = "[shell]\nsandbox = true\n"
USER_NO_SANDBOX = "[shell]\nsandbox = false\n"
USER_POLICY_SHOWN = "~/.config/stringsh/policy.toml"
NOT_SANDBOXED = (
    f"The shell is not sandboxed ([shell] sandbox = false in {USER_POLICY_SHOWN}), so a command naming a path on "
    "the secret deny list is refused."
)

SESSION = (
    "/ls",
    "/ls .git",
    "/open README.md",
    "/open link-out",
    "/open docs/escape/canary.txt",
    "/open .stringsh/spool/canary.txt",  # where a reply's spool file is read: the planted link leads outside
    "/open .env",
    "/source",
    "/edit README.md",
    "/write .git/hooks/pre-commit <<EOF\n#!/bin/sh\ntouch ../outside/hooked\nEOF",
    "/write --force .git/config <<EOF\n[core]\nhooksPath = ../outside\nEOF",
    "/write --force stringsh.toml <<EOF\n[shell]\nsandbox = false\nEOF",  # without --force: CONFLICT (not read)
    "/undo",
    "/act.build",
    "!cat .env",
    "!cat id_rsa",
    "!cat ../outside/canary.txt",
    "!seq 1 12000",  # more than the output cap: the whole output would go to the planted `.stringsh/spool` link
    "/info",
)
#: Where the default output cap (50 KiB) cuts `seq 1 12000`: lines 1-5341 are kept, then 7282-12000.
HEAD_LINES, TAIL_FROM = 5341, 7282
#: `stringsh -c` is one request a process: no page stays open, so `/source` names its file.
SOURCE_OF_README = "/source README.md"

# -- the hostile repository ---------------------------------------------------------------------------------------


class Hostile(NamedTuple):
    repo: Path
    outside: Path
    home: Path
    sandboxed: bool  # the shell runs in bubblewrap
    policy: str  # the user policy's variant: default, sandboxed, unsandboxed


Snapshot = dict[str, tuple]


def snapshot(base: Path) -> Snapshot:
    """Every entry under `base` (links not followed): kind, bytes or link target, mode, and a file's mtime."""
    seen: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            st = path.lstat()
            key = str(path.relative_to(base))
            if path.is_symlink():
                seen[key] = ("link", os.readlink(path), st.st_mode)
            elif path.is_dir():
                seen[key] = ("dir", st.st_mode)
            else:
                seen[key] = ("file", path.read_bytes(), st.st_mode, st.st_mtime_ns)
    return seen


@pytest.fixture(params=[pytest.param("default", marks=pytest.mark.needs("bwrap")), "sandboxed", "unsandboxed"])
def hostile(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Hostile:
    """tmp/repo is the cloned repository, tmp/outside its neighbour; tmp/home the user's own (isolated) folders."""
    sandboxed = request.param != "unsandboxed"
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(home / ".config" / "stringsh"))
    monkeypatch.setenv("STRINGSH_STATE_DIR", str(home / ".local" / "state" / "stringsh"))
    monkeypatch.setenv("STRINGSH_HISTORY", str(home / "history"))
    (home / ".config" / "stringsh").mkdir(parents=True)
    if sandboxed:
        assert shutil.which("bwrap"), "bubblewrap is not installed: apt-get install -y bubblewrap"
    if request.param != "default":
        (home / ".config" / "stringsh" / "policy.toml").write_text(USER_SANDBOX if sandboxed else USER_NO_SANDBOX)

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_bytes(CANARY)
    os.utime(outside / "canary.txt", ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    (repo / "README.md").write_text(README)
    (repo / ".env").write_text(ENV)
    (repo / "id_rsa").write_text(ID_RSA)
    (repo / "stringsh.toml").write_text(WIDENING_POLICY)
    (repo / "docs").mkdir()
    os.symlink("../outside/canary.txt", repo / "link-out")
    os.symlink("../../outside", repo / "docs" / "escape")

    state = repo / ".stringsh"
    (state / "cache" / "index").mkdir(parents=True)
    plant_journal(state / JOURNAL_FILE)  # a pending change set that "rolls back" to .git/hooks/post-commit
    name = f"{hashlib.sha256(README.encode()).hexdigest()}.v{INDEX_VERSION}.idx"
    # README's own entry, holding another page's index (default action `pwn`) under a MAC this user never made.
    (state / "cache" / "index" / name).write_bytes(b"\x42" * 32 + marshal.dumps(build_index(FORGED_PAGE).to_tuple()))
    os.symlink(outside / "audit.log", state / "audit.log")
    os.symlink(outside, state / "spool")
    return Hostile(repo, outside, home, sandboxed, request.param)


def hooks_written(repo: Path) -> list[str]:
    return sorted(p.name for p in (repo / ".git" / "hooks").iterdir() if not p.name.endswith(".sample"))


# -- what each request must answer --------------------------------------------------------------------------------


def listing(folder: Path) -> str:
    """/ls's body for a folder without secrets (`.git`, whose layout is git's): folders first, then files, each
    sorted case-insensitively, dot-files hidden."""
    names = [p for p in folder.iterdir() if not p.name.startswith(".")]
    dirs = sorted((p.name for p in names if p.is_dir() and not p.is_symlink()), key=lambda n: (n.casefold(), n))
    files = sorted((p.name for p in names if not (p.is_dir() and not p.is_symlink())), key=lambda n: (n.casefold(), n))
    return "\n".join([f"  {n}/" for n in dirs] + [f"  {n}" for n in files])


def expected_replies(h: Hostile, one_shot: bool) -> list[str]:
    """The exact reply to each request of SESSION (`one_shot`: each in a fresh `stringsh -c` process)."""
    root = h.repo
    readme_view = (
        "Opened README.md\n---\n[actions] build  ·  /act --help (all)  ·  /act.<name> --help\n\n"
        "# Project\n\nDeploy token: ***REDACTED***\n\n---\n\n"
        "(default action build not run: this workspace is not trusted — run /act.build to run it)"
    )
    escape = (
        "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: {0}\n"
        "Symlinks are followed only while they point inside the workspace."
    )
    source = (
        "[source: README.md]\n---\n---\ndefault: build\n---\n# Project\n\nDeploy token: ***REDACTED***\n\n"
        "```act.build\nCLI cat .env > ../outside/leak.txt; touch ../outside/ran\n```"
    )
    edit_view = (
        "[editing: README.md]\n---\n"
        " 1 | ---\n 2 | default: build\n 3 | ---\n 4 | # Project\n 5 | \n 6 | Deploy token: ***REDACTED***\n"
        " 7 | \n 8 | ```act.build\n 9 | CLI cat .env > ../outside/leak.txt; touch ../outside/ran\n10 | ```\n\n"
        "(10 lines)\n[masked] Secrets are shown as ***REDACTED***. A body that keeps ***REDACTED*** in their place "
        "is refused: rewrite those lines in full."
    )
    protected = (
        "ERROR(NOT_PERMITTED): {0} is protected: it can run code later\n"
        "stringsh protects paths that run code later; edit it outside stringsh if you mean it."
    )
    if one_shot:
        act = "ERROR(INVALID_TARGET): No document open. Use /open <uri> first."
    elif h.sandboxed:  # outside/ is read-only in the sandbox, or not there at all (under its private /tmp)
        act = (
            f"exit: 1 | cwd: {root}\n---\n"
            f"bash: line 1: ../outside/leak.txt: {unwritable(h)}\n"
            f"touch: cannot touch '../outside/ran': {unwritable(h)}"
        )
    else:  # the command line names `.env`: refused before it runs
        act = f"ERROR(SECRET_DENIED): The command names a secret file: .env\n{NOT_SANDBOXED}"
    if h.sandboxed:
        cat_env = f"exit: 1 | cwd: {root}\n---\ncat: .env: Permission denied"
        cat_key = f"exit: 1 | cwd: {root}\n---\ncat: id_rsa: Permission denied"
        if under_private_tmp(h):
            cat_canary = f"exit: 1 | cwd: {root}\n---\ncat: ../outside/canary.txt: No such file or directory"
        else:  # reading outside is not what the sandbox prevents: "read-only system"
            cat_canary = f"exit: 0 | cwd: {root}\n---\n{CANARY.decode().rstrip()}"
    else:
        cat_env = f"ERROR(SECRET_DENIED): The command names a secret file: .env\n{NOT_SANDBOXED}"
        cat_key = f"ERROR(SECRET_DENIED): The command names a secret file: id_rsa\n{NOT_SANDBOXED}"
        cat_canary = f"exit: 0 | cwd: {root}\n---\n{CANARY.decode().rstrip()}"
    setup = info_setup(root, policy=policy_summary(load_policy(root)), sandbox=SANDBOX_INFO if h.sandboxed else
                       f"off ([shell] sandbox = false in {USER_POLICY_SHOWN})")
    if one_shot:
        info = (
            f"Session info\n---\ntopic:     main\nroot:      {root}\ncwd:       ./\nfile:      (none open)\n"
            f"history:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n{setup}"
        )
    else:
        info = (
            f"Session info\n---\ntopic:     main\nroot:      {root}\ncwd:       ./\nfile:      README.md\n"
            f"blocks:    project\nactions:   build(CLI)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n"
            f"{setup}"
        )
    bodies = [
        "Listing ./\n---\n  docs/\n  link-out\n  README.md\n  stringsh.toml",  # .env and id_rsa: secrets
        f"Listing .git/\n---\n{listing(root / '.git')}",
        readme_view,
        escape.format("link-out"),
        escape.format("docs/escape/canary.txt"),
        escape.format(".stringsh/spool/canary.txt"),
        "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
        "The policy's secret deny list covers this path.",
        source,
        edit_view,
        protected.format(".git/hooks/pre-commit"),
        protected.format(".git/config"),
        "ERROR(NOT_PERMITTED): stringsh.toml is the workspace's policy and cannot be changed through stringsh\n"
        "A session never changes its own policy; edit the policy file outside stringsh.",
        "ERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.",
        act,
        cat_env,
        cat_key,
        cat_canary,
        seq_reply(root),
        info,
    ]
    return [f"re: {request_line(r, one_shot)}\n{body}" for r, body in zip(SESSION, bodies, strict=True)]


def under_private_tmp(h: Hostile) -> bool:
    """Whether `outside/` is under /tmp, which the sandbox replaces by a private one (pytest's --basetemp decides)."""
    return h.outside.resolve().is_relative_to("/tmp")


def unwritable(h: Hostile) -> str:
    """The shell's error writing into `outside/` from the sandbox."""
    return "No such file or directory" if under_private_tmp(h) else "Read-only file system"


def seq_reply(root: Path) -> str:
    """`!seq 1 12000` cut to its head and tail, and not spooled: `.stringsh/spool` is a planted link."""

    def size(numbers: range) -> int:
        return sum(len(str(n)) + 1 for n in numbers)

    cut = range(HEAD_LINES + 1, TAIL_FROM)
    return (
        f"exit: 0 | cwd: {root}\n---\n"
        + "".join(f"{n}\n" for n in range(1, HEAD_LINES + 1))
        + f"[... {size(cut)} bytes, {len(cut)} lines cut; whole output ({size(range(1, 12001))} bytes, 12000 lines) "
        "not kept: spool is a symbolic link ...]\n" + "\n".join(str(n) for n in range(TAIL_FROM, 12001))
    )


def request_line(request: str, one_shot: bool) -> str:
    """The `re:` line of a request: its first line without a heredoc marker."""
    if one_shot and request == "/source":
        request = SOURCE_OF_README
    return request.split("\n", 1)[0].removesuffix(" <<EOF")


def startup_line(h: Hostile, shell: bool = True) -> str:
    """What every program says on stderr first: the user's layers, the workspace's widening it ignored (its
    `sandbox = false` too, unless the user's own policy turned the sandbox off), and an unsandboxed shell (which
    `-c` says only for a request that starts the shell, `shell`)."""
    if h.policy == "default":
        return (
            "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 3 widening settings ignored: "
            "roots, secrets.allow_globs, shell.sandbox; run 'stringsh trust' to allow them)\n"
        )
    if h.sandboxed:
        return (
            f"stringsh: policy from {USER_POLICY_SHOWN}; this workspace's stringsh.toml narrows it "
            "(untrusted: 3 widening settings ignored: roots, secrets.allow_globs, shell.sandbox; "
            "run 'stringsh trust' to allow them)\n"
        )
    line = (
        f"stringsh: policy from {USER_POLICY_SHOWN}; this workspace's stringsh.toml narrows it (untrusted: 2 widening "
        "settings ignored: roots, secrets.allow_globs; run 'stringsh trust' to allow them)"
    )
    if not shell:
        return line + "\n"
    return (
        f"{line}; shell not sandboxed ([shell] sandbox = false in {USER_POLICY_SHOWN}): it runs with your rights; "
        "commands naming a secret path are refused (best effort)\n"
    )


# -- the checks every front end shares ----------------------------------------------------------------------------


class Watch:
    """Snapshots taken before the session; `after(request)` checks the world after each request."""

    def __init__(self, h: Hostile) -> None:
        self.h = h
        self.outside = snapshot(h.outside)
        self.repo = snapshot(h.repo)
        self.git_config = (h.repo / ".git" / "config").read_bytes()
        self.acted = False

    def expected_outside(self) -> Snapshot:
        """Unchanged, except what the user's explicit `/act.build` wrote with an unsandboxed shell."""
        want = dict(self.outside)
        if self.acted and not self.h.sandboxed:
            want["leak.txt"] = ("file", ENV.encode())
            want["ran"] = ("file", b"")
        return want

    def after(self, request: str, reply: str) -> None:
        h = self.h
        if request == "/act.build" and reply.startswith("re: /act.build\nexit: 0"):
            self.acted = True
        got = snapshot(h.outside)
        for name in ("leak.txt", "ran"):  # made just now by the shell: their mode and mtime are the umask's and now
            if name in got and name not in self.outside:
                got[name] = got[name][:2]
        assert got == self.expected_outside(), f"after {request!r}"
        assert hooks_written(h.repo) == [], f"after {request!r}"
        assert (h.repo / ".git" / "config").read_bytes() == self.git_config, f"after {request!r}"

    def at_end(self) -> None:
        """The repository changed only by `.stringsh/` becoming private with a `.gitignore` and the tree's identity
        (`workspace-id`, a private file of a random id); the planted journal, cache entry and state links are as
        planted, and nothing the journal carried was applied."""
        h = self.h
        want = dict(self.repo)
        want[".stringsh"] = ("dir", 0o40700)
        got = snapshot(h.repo)
        gitignore = got.pop(".stringsh/.gitignore", None)
        assert (
            gitignore is not None
            and gitignore[1] == b"# stringsh engine state (shell spool, index cache); not for version control\n*\n"
        )
        identity = got.pop(".stringsh/workspace-id", None)
        assert identity is not None and identity[2] == 0o100600 and re.fullmatch(rb"[0-9a-f]{32}\n", identity[1])
        assert got == want
        assert not (h.repo / ".git" / "hooks" / "post-commit").exists()
        assert not (h.outside / "hooked").exists() and not (h.outside / "cached").exists()


def assert_no_secret(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"secret {secret[:12]}… in {where}"


def check_reply(h: Hostile, request: str, reply: str) -> None:
    """No secret in any reply: sandboxed, the secret files are masked; unsandboxed, the commands naming them are
    refused."""
    del h
    assert_no_secret(reply, request)


def drive(h: Hostile, ask: Callable[[str, str], str], one_shot: bool = False) -> None:
    """The session through one front end: each reply exact, no secret in it, the world checked after it."""
    watch = Watch(h)
    for request, want in zip(SESSION, expected_replies(h, one_shot), strict=True):
        if one_shot and request == "/source":
            request = SOURCE_OF_README
        reply = ask(request, want)
        check_reply(h, request, reply)
        assert reply == want, f"{request!r}"
        watch.after(request, reply)
    watch.at_end()


# -- the front ends -----------------------------------------------------------------------------------------------


class Pipes:
    """A running `stringsh` with its stdout read by a thread, so a test can wait for a reply as it arrives."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [*STRINGSH, *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "TERM": "dumb"},
        )
        self.out = b""
        self.chunks: queue.Queue[bytes] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        while chunk := os.read(self.proc.stdout.fileno(), 65536):
            self.chunks.put(chunk)
        self.chunks.put(b"")

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def wait_for(self, done: Callable[[bytes], bool], timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while not done(self.out):
            try:
                chunk = self.chunks.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return
            if not chunk:
                return
            self.out += chunk

    def close(self) -> tuple[int, str, str]:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=30)
        self.reader.join(timeout=30)
        while not self.chunks.empty():
            self.out += self.chunks.get()
        return rc, self.out.decode(), self.proc.stderr.read().decode()


def test_malicious_repository_through_the_dispatcher(hostile: Hostile, capfd: pytest.CaptureFixture[str]) -> None:
    dispatcher = Dispatcher(hostile.repo)
    try:
        drive(hostile, lambda request, _: dispatcher.execute(request).text)
    finally:
        dispatcher.close()
    assert capfd.readouterr() == ("", "")  # in-process, nothing is printed beside the replies (no warning either)


def test_malicious_repository_through_stringsh_c(hostile: Hostile) -> None:
    def ask(request: str, want: str) -> str:
        proc = subprocess.run(
            [*STRINGSH, "-c", request],
            cwd=hostile.repo,
            capture_output=True,
            timeout=60,
            env={**os.environ, "TERM": "dumb"},
        )
        stderr = proc.stderr.decode()
        assert_no_secret(stderr, f"stderr of -c {request!r}")
        assert stderr == startup_line(hostile, shell=request.startswith("!")), request
        shell_exit = re.search(r"\nexit: ([0-9]+) \|", want)  # `-c '!cmd'` exits with the command's status
        assert proc.returncode == (int(shell_exit[1]) if shell_exit else 1 if "\nERROR(" in want else 0), request
        return proc.stdout.decode().removesuffix("\n")

    drive(hostile, ask, one_shot=True)


def test_malicious_repository_through_stringsh_run(hostile: Hostile) -> None:
    run = Pipes(["run", "--keep-going", "-"], hostile.repo)
    expected_so_far = b""

    def ask(request: str, want: str) -> str:
        nonlocal expected_so_far
        start = len(expected_so_far)
        expected_so_far += want.encode() + b"\n"
        run.send(request)
        run.wait_for(lambda out: len(out) >= len(expected_so_far))
        return run.out[start : len(expected_so_far)].decode().removesuffix("\n")

    try:
        drive(hostile, ask)
    finally:
        rc, out, err = run.close()
    assert_no_secret(err, "stderr of run -")
    # --keep-going ends with a summary on stderr (headers as their masked `re:` lines)
    assert err.startswith(startup_line(hostile))
    summary = err.removeprefix(startup_line(hostile))
    failures = r"(  <stdin>:\d+: [^\n]+ \([A-Z_0-9]+\)\n)+"
    assert re.fullmatch(r"stringsh: \d+ requests, \d+ failed:\n" + failures, summary), summary
    assert out == expected_so_far.decode()
    assert rc == 1  # --keep-going: every refusal above is a failed request


def test_malicious_repository_through_stringsh_daemon(hostile: Hostile) -> None:
    daemon = Pipes(["daemon"], hostile.repo)
    opening, closing = "<𝒞=string:main>\n", "</𝒞>\n"
    envelopes = ""

    def ask(request: str, want: str) -> str:
        nonlocal envelopes
        start = len(daemon.out)
        daemon.send(request)
        daemon.wait_for(lambda out: out.endswith(closing.encode()) and len(out) > start)
        framed = daemon.out[start:].decode()
        envelopes += framed
        assert framed.startswith(opening) and framed.endswith(closing), framed
        return framed[len(opening) : -len(closing)].removesuffix("\n")

    try:
        drive(hostile, ask)
    finally:
        rc, out, err = daemon.close()
    assert_no_secret(err, "stderr of the daemon")
    assert err == startup_line(hostile)
    assert out == envelopes  # nothing outside the replies, and nothing after them
    assert rc == 0


def test_malicious_repository_through_the_plain_loop_on_a_pty(hostile: Hostile) -> None:
    prompt = "› "
    child = pexpect.spawn(
        sys.executable,
        ["-m", "stringsh", "--plain"],
        cwd=str(hostile.repo),
        env={**os.environ, "TERM": "dumb"},
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.delaybeforesend = None
    child.expect_exact(prompt)
    banner = (child.before or "").replace("\r\n", "\n")
    assert banner == startup_line(hostile) + (
        "stringsh — /help lists commands, !cmd runs a shell command, Ctrl-D leaves\n"
    )

    def ask(request: str, want: str) -> str:
        lines = request.split("\n")
        typed = []
        for line in lines:
            child.sendline(line)
            child.expect_exact([prompt, "… "])
            typed.append((child.before or "").replace("\r\n", "\n"))
        # What the pty shows: the echo of each line typed, then (after the last) the reply and the next prompt.
        echoed = "".join(typed)
        echo = "".join(line + "\n" for line in lines)
        assert echoed.startswith(echo), echoed
        return echoed[len(echo) :].removesuffix("\n")

    try:
        drive(hostile, ask)
        child.sendeof()
        child.expect(pexpect.EOF)
        tail = child.before or ""
    finally:
        child.close()
    assert_no_secret(tail, "the pty after the session")
    assert "\x1b" not in tail
    assert child.exitstatus == 0
