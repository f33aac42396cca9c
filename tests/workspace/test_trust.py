"""Trust (finding 2): the user's configuration is trusted, the workspace's stringsh.toml only narrows it until
`stringsh trust` records its hash; the start-up line says which policy is in force."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.userdirs import config_dir, user_policy_file
from stringsh.workspace import Workspace, load_policy, trust
from stringsh.workspace.layers import startup_line
from tests.conftest import default_start, on_this_machine, run_stringsh

ATTACK = '[[roots]]\npath = ".."\n[secrets]\nallow_globs = ["*"]\n'
#: What `-c` says of the ATTACK file on stderr (no `!` request: nothing about the sandbox).
IGNORED = (
    "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 2 widening settings ignored: "
    "roots, secrets.allow_globs; run 'stringsh trust' to allow them)\n"
)


@pytest.fixture
def cloned(tmp_path: Path) -> Path:
    """A repository someone else wrote: a policy that widens, a secret, and a file outside it."""
    (tmp_path / "outside.txt").write_text("outside\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "stringsh.toml").write_text(ATTACK)
    (repo / ".env").write_text("TOKEN=hunter2\n")
    return repo


def test_workspace_policy_cannot_widen_roots(cloned: Path) -> None:
    proc = run_stringsh(["-c", "/open ../outside.txt"], cloned)
    assert b"outside\n" not in proc.stdout
    assert proc.stdout.decode().startswith("re: /open ../outside.txt\nERROR(INVALID_PATH): ")
    assert proc.stderr.decode() == IGNORED
    secret = run_stringsh(["-c", "/open .env"], cloned)
    assert secret.stdout.decode().startswith("re: /open .env\nERROR(SECRET_DENIED): ")
    assert b"hunter2" not in secret.stdout + secret.stderr
    write = run_stringsh(["-c", "/write ../outside.txt\npwned\n"], cloned)
    assert b"ERROR(" in write.stdout and (cloned.parent / "outside.txt").read_text() == "outside\n"
    # the widened root (`..`) would make these the parent's files: they are not reachable
    for request in ("/open outside.txt", "/open repo/.env", "/write outside.txt\npwned\n"):
        proc = run_stringsh(["-c", request], cloned)
        if request.startswith("/open"):
            assert proc.stdout.decode().startswith(f"re: {request}\nERROR("), proc.stdout
        assert b"hunter2" not in proc.stdout and b"outside\n" not in proc.stdout
    assert (cloned.parent / "outside.txt").read_text() == "outside\n"


def test_a_second_read_write_root_outside_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "var-tmp").mkdir()
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "stringsh.toml").write_text(
        f'[[roots]]\nid = "main"\npath = "."\n[[roots]]\nid = "tmp"\npath = "{tmp_path / "var-tmp"}"\n'
    )
    policy = load_policy(tmp_path / "repo")
    assert [r.path for r in policy.roots] == [(tmp_path / "repo").resolve()]
    assert policy.ignored == ("roots",) and not policy.trusted


def test_trust_round_trip(cloned: Path) -> None:
    assert run_stringsh(["trust", "--status"], cloned).stdout.decode() == (
        f"stringsh: not trusted: {cloned} (run 'stringsh trust' to trust it)\n"
    )
    digest = trust.digest((cloned / "stringsh.toml").read_bytes())
    proc = run_stringsh(["trust"], cloned)
    assert proc.returncode == 0
    assert proc.stdout.decode() == (
        f"stringsh: trusted: {cloned} (stringsh.toml sha256 {digest[:16]}); now allowed: roots, "
        "secrets.allow_globs; editing stringsh.toml lapses trust\n"
    )
    record = trust.trust_file()
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert f"{digest}\t{cloned}\n" in record.read_text()
    # trusted: the widening applies (the root is now the parent folder, .env is allowed)
    opened = run_stringsh(["-c", "/open repo/.env"], cloned)
    assert b"TOKEN=hunter2" in opened.stdout  # `-c` names the policy's files too; the sandbox only for `!cmd`
    assert opened.stderr.decode() == "stringsh: policy from this workspace's stringsh.toml (trusted)\n"
    assert run_stringsh(["run", "-"], cloned, "/set\n").stderr.decode() == (
        on_this_machine("stringsh: policy from this workspace's stringsh.toml (trusted)") + "\n"
    )
    # an edit lapses trust: the widening is ignored again, and asked for again
    with (cloned / "stringsh.toml").open("a") as f:
        f.write("[shell]\nsandbox = false\n")
    assert run_stringsh(["trust", "--status"], cloned).stdout.decode() == (
        f"stringsh: trust lapsed: {cloned} (stringsh.toml changed; run 'stringsh trust' again)\n"
    )
    lapsed = run_stringsh(["-c", "/open .env"], cloned)
    assert b"SECRET_DENIED" in lapsed.stdout and lapsed.stderr.decode() == IGNORED.replace(
        "2 widening settings ignored: roots, secrets.allow_globs",
        "3 widening settings ignored: roots, secrets.allow_globs, shell.sandbox",  # the sandbox is on by default
    )
    assert run_stringsh(["trust"], cloned).returncode == 0
    assert b"TOKEN=hunter2" in run_stringsh(["-c", "/open repo/.env"], cloned).stdout
    # revoked: untrusted again
    assert run_stringsh(["trust", "--revoke"], cloned).stdout.decode() == f"stringsh: trust revoked: {cloned}\n"
    assert run_stringsh(["trust", "--revoke"], cloned).stdout.decode() == f"stringsh: not trusted: {cloned}\n"
    assert b"SECRET_DENIED" in run_stringsh(["-c", "/open .env"], cloned).stdout


def test_trust_with_root_option_and_a_folder_without_policy(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    workspace = Workspace.load(folder)
    assert not workspace.trusted and not workspace.policy.trusted
    workspace.close()
    proc = run_stringsh(["trust", "--root", str(folder)], tmp_path)
    assert proc.stdout.decode() == (
        f"stringsh: trusted: {folder} (no stringsh.toml); editing stringsh.toml lapses trust\n"
    )
    workspace = Workspace.load(folder)
    assert workspace.trusted
    workspace.close()
    (folder / "stringsh.toml").write_text("[shell]\nsandbox = true\n")  # a policy appearing later lapses trust
    assert not load_policy(folder).trusted


def test_trust_refuses_an_invalid_policy(cloned: Path) -> None:
    (cloned / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 0\n")
    proc = run_stringsh(["trust"], cloned)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("stringsh: ERROR(INVALID_PAYLOAD): Bad policy file ")
    assert not trust.trust_file().exists()


def test_a_trust_file_others_can_write_is_not_believed(cloned: Path) -> None:
    trust.record(cloned, (cloned / "stringsh.toml").read_bytes())
    assert load_policy(cloned).trusted
    os.chmod(trust.trust_file(), 0o666)
    assert not load_policy(cloned).trusted


def test_narrowing_applies_without_trust(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "stringsh.toml").write_text(
        '[[roots]]\nid = "docs"\npath = "sub"\nmode = "read_only"\n[permissions]\nshell = false\n'
        '[limits]\nmax_read_bytes = 100\n[secrets]\ndeny_globs = ["*.bak"]\n'
        '[changes]\nallow_globs = ["docs/*.md"]\nmax_files = 3\n[shell]\nsandbox = true\ntimeout = 5.0\n'
    )
    policy = load_policy(tmp_path)
    assert policy.ignored == () and not policy.trusted
    assert [(r.id, r.mode) for r in policy.roots] == [("docs", "read_only")]
    assert not policy.permissions.shell and policy.limits.max_read_bytes == 100
    assert policy.matcher().denied("x.bak")
    assert policy.changes == policy.changes._replace(allow_globs=("docs/*.md",), max_files=3)
    assert policy.shell.sandbox and policy.shell.timeout == 5.0
    assert startup_line(policy) == "stringsh: this workspace's stringsh.toml narrows the policy (untrusted)"


def test_every_widening_setting_is_named(tmp_path: Path) -> None:
    user = user_policy_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        '[permissions]\nedit = false\n[limits]\nmax_read_bytes = 1000\n[shell]\nsandbox = true\n'
        '[changes]\nallow_globs = ["src/**"]\nmax_loc = 10\n'
    )
    (tmp_path / "stringsh.toml").write_text(
        '[permissions]\nedit = true\n[limits]\nmax_read_bytes = 2000\n[shell]\nsandbox = false\ntimeout = 500.0\n'
        '[changes]\nallow_globs = ["**"]\nmax_loc = 11\n[secrets]\nallow_hardlinks = true\nreplacement = "x"\n'
    )
    policy = load_policy(tmp_path)
    assert policy.ignored == (
        "permissions.edit", "limits.max_read_bytes", "secrets.replacement", "secrets.allow_hardlinks",
        "changes.allow_globs", "changes.max_loc", "shell.timeout", "shell.sandbox",
    )
    assert not policy.permissions.edit and policy.limits.max_read_bytes == 1000 and policy.shell.sandbox
    assert policy.changes.allow_globs == ("src/**",) and policy.changes.max_loc == 10
    assert policy.files == (user.resolve(), (tmp_path / "stringsh.toml").resolve())
    assert startup_line(policy).startswith(
        f"stringsh: policy from {user}; this workspace's stringsh.toml narrows it (untrusted: 8 widening settings"
    )


def test_the_user_policy_and_policy_option_are_trusted(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    given = tmp_path / "given.toml"
    given.write_text('[secrets]\nallow_globs = [".env"]\n[[roots]]\npath = "."\n[[roots]]\npath = "../other"\n')
    (tmp_path / "ws").mkdir()
    policy = load_policy(tmp_path / "ws", given)
    assert len(policy.roots) == 2 and not policy.matcher().denied(".env") and policy.ignored == ()
    assert policy.files == (given.resolve(),)
    assert startup_line(policy) == f"stringsh: policy from --policy {given}"
    assert config_dir() == Path(os.environ["STRINGSH_CONFIG_DIR"])


def test_every_front_end_says_the_same_and_nothing_under_the_defaults(ws: Path) -> None:
    """One rule for every front end, `-c` included; `-c` names the sandbox only for a `!` request (the one that
    starts the shell), so `-c /ls` never probes it."""
    assert run_stringsh(["-c", "/ls"], ws).stderr == b""
    assert run_stringsh(["-c", "!true"], ws).stderr.decode() == default_start()
    assert run_stringsh(["daemon"], ws, "/ls\n").stderr.decode() == default_start()
    (ws / "stringsh.toml").write_text("[permissions]\ndelete = false\n")
    line = "stringsh: this workspace's stringsh.toml narrows the policy (untrusted)"
    assert run_stringsh(["-c", "/ls"], ws).stderr.decode() == line + "\n"
    assert run_stringsh(["-c", "[a1] !true"], ws).stderr.decode() == on_this_machine(line) + "\n"
    for front_end in (["daemon"], ["run", "-"], ["--no-echo"]):
        assert run_stringsh(front_end, ws, "/ls\n").stderr.decode() == on_this_machine(line) + "\n", front_end


def test_a_workspace_holding_the_config_folder_cannot_trust_itself(tmp_path: Path) -> None:
    # A root of ~ holds ~/.config/stringsh: the agent must not record trust, or widen the user's policy, through it.
    home = tmp_path / "home"
    config = home / ".config" / "stringsh"
    config.mkdir(parents=True)
    env = {"STRINGSH_CONFIG_DIR": str(config)}
    (home / "stringsh.toml").write_text(ATTACK)
    digest = trust.digest((home / "stringsh.toml").read_bytes())
    for target in (".config/stringsh/trusted-workspaces", ".config/stringsh/policy.toml"):
        proc = run_stringsh(["-c", f"/write {target}\n{digest}\t{home}\n"], home, env=env)
        assert proc.stdout.decode().startswith(f"re: /write {target}\nERROR(NOT_PERMITTED): "), proc.stdout
    assert sorted(p.name for p in config.iterdir()) == []


def test_untrusted_redaction_patterns_wait_for_trust(tmp_path: Path) -> None:
    """A pattern runs on every byte shown: a catastrophic one from a cloned repository would hang every view."""
    (tmp_path / "README.md").write_text("x" * 40 + "\n")
    (tmp_path / "stringsh.toml").write_text('[secrets]\nredact_regexes = ["(x+x+)+y"]\n')
    policy = load_policy(tmp_path)
    assert policy.ignored == ("secrets.redact_regexes",)
    assert "(x+x+)+y" not in policy.secrets.redact_regexes
    done = run_stringsh(["-c", "/open README.md"], tmp_path, timeout=20)
    assert done.stdout.decode() == "re: /open README.md\nOpened README.md\n---\n" + "x" * 40 + "\n"
    trust.record(tmp_path, (tmp_path / "stringsh.toml").read_bytes())
    assert "(x+x+)+y" in load_policy(tmp_path).secrets.redact_regexes


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\x1e", "\r", "\n"])
def test_a_line_break_in_a_folder_name_cannot_forge_a_trust_record(tmp_path: Path, sep: str) -> None:
    """The record file is one line per folder: a name holding any line break (str.splitlines() knows more than
    "\\n") must not write a second, forged record for another folder."""
    victim = tmp_path / "victim"
    victim.mkdir()
    evil = b'[secrets]\nallow_globs = ["*"]\n'
    (victim / "stringsh.toml").write_bytes(evil)
    crafted = tmp_path / f"a{sep}{trust.digest(evil)}\t{victim}"
    with pytest.raises(StringError) as refused:
        trust.record(crafted, None)
    assert refused.value.code == "INVALID_PATH"
    assert not trust.is_trusted(victim, evil)
    if sep == "\n":
        return  # a real line break ends the record; the rest is about the ones str.splitlines() also splits on
    trust_file = trust.trust_file()
    trust_file.parent.mkdir(parents=True, exist_ok=True)
    trust_file.write_text(f"# planted\n-\t{tmp_path}/a{sep}{trust.digest(evil)}\t{victim}\n")  # written by hand
    trust_file.chmod(0o600)
    assert not trust.is_trusted(victim, evil)


def test_two_processes_trusting_at_once_lose_no_record(tmp_path: Path) -> None:
    """`stringsh trust` in two terminals at once: each is a read-modify-write of one file, so it is locked."""
    import subprocess
    import sys

    folders = [tmp_path / f"w{i}" for i in range(24)]
    for folder in folders:
        folder.mkdir()
    code = (
        "import sys\nfrom pathlib import Path\nfrom stringsh.workspace import trust\n"
        "for name in sys.argv[1:]:\n    trust.record(Path(name), None)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, *map(str, folders[i::2])]) for i in (0, 1)]
    assert [proc.wait(timeout=60) for proc in procs] == [0, 0]
    assert all(trust.is_trusted(folder, None) for folder in folders)
