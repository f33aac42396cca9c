"""Policy: defaults, stringsh.toml and --policy, strict validation, permissions and read-only roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import Workspace, load_policy, trust


def test_defaults_without_a_file(tmp_path: Path) -> None:
    policy = load_policy(tmp_path)
    assert policy.source is None
    assert [(r.id, r.path, r.mode) for r in policy.roots] == [("main", tmp_path.resolve(), "read_write")]
    matcher = policy.matcher()
    for denied in (".env", ".env.local", "a/.env.production", "id_rsa", "x/id_ed25519", ".ssh/config", ".netrc",
                   "home/.aws/credentials", "k.pem", "credentials-prod.json", ".docker/config.json"):
        assert matcher.denied(denied), denied
    for allowed in (".env.example", ".env.sample", "id_rsa.pub", "README.md", "envelope.txt", "src/env.py"):
        assert not matcher.denied(allowed), allowed
    assert policy.redactor()("key AKIAABCDEFGHIJKLMNOP end") == "key ***REDACTED*** end"


def test_workspace_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "stringsh.toml").write_text(
        '[limits]\nmax_write_bytes = 10\n[secrets]\ndeny_globs = ["*.secret"]\nallow_globs = ["id_rsa.demo"]\n'
        '[permissions]\ndelete = false\n[shell]\ntimeout = 5.5\nsandbox = true\n'
    )
    trust.record(tmp_path, (tmp_path / "stringsh.toml").read_bytes())  # allow_globs widens: only when trusted
    workspace = Workspace.load(tmp_path)
    assert workspace.policy.limits.max_write_bytes == 10
    assert workspace.policy.shell.timeout == 5.5 and workspace.policy.shell.sandbox
    assert workspace.policy.matcher().denied("x.secret") and workspace.policy.matcher().denied(".env")
    assert not workspace.policy.matcher().denied("id_rsa.demo")
    with pytest.raises(StringError) as caught:
        workspace.write_text("big.txt", "more than ten bytes\n")
    assert caught.value.code == "TOO_LARGE"
    workspace.write_text("small.txt", "ok\n")
    from stringsh.workspace import ChangeSet

    with pytest.raises(StringError) as caught:
        workspace.apply(ChangeSet().delete("small.txt"))
    assert (caught.value.code, caught.value.message) == ("NOT_PERMITTED", "delete is disabled by policy")
    workspace.close()


def test_read_only_root(tmp_path: Path) -> None:
    policy_file = tmp_path / "ro.toml"
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.txt").write_text("a\n")
    policy_file.write_text(f'[[roots]]\nid = "docs"\npath = "{tmp_path / "proj"}"\nmode = "read_only"\n')
    dispatcher = Dispatcher(tmp_path / "proj", policy_file=policy_file)
    assert dispatcher.execute("/write b.txt\nb\n").text == (
        "re: /write b.txt\nERROR(NOT_PERMITTED): write is not allowed: root docs is read_only\n"
        "A read_only root is never changed; /info lists the roots and their modes."
    )
    assert dispatcher.execute("/append a.txt\nb\n").code == "NOT_PERMITTED"
    assert dispatcher.execute("/undo").code == "NOT_PERMITTED"
    assert dispatcher.execute("/ls").text == "re: /ls\nListing ./\n---\n  a.txt"
    assert (tmp_path / "proj" / "a.txt").read_text() == "a\n" and not (tmp_path / "proj" / "b.txt").exists()
    dispatcher.close()


BAD = {
    "syntax": ("[limits\n", "not valid TOML"),
    "unknown-section": ("[limitz]\n", "unknown section 'limitz'"),
    "unknown-key": ("[limits]\nmax_reed_bytes = 1\n", "unknown key 'max_reed_bytes' in [limits]"),
    "wrong-type": ('[limits]\nmax_read_bytes = "big"\n', "limits.max_read_bytes has the wrong type (str)"),
    "negative": ("[limits]\nmax_read_bytes = -1\n", "limits.max_read_bytes has the wrong type (int)"),
    "bool-as-int": ("[permissions]\nwrite = 1\n", "permissions.write has the wrong type (int)"),
    "bad-mode": ('[[roots]]\npath = "."\nmode = "rw"\n', "roots[0].mode must be one of read_only, read_write"),
    "bad-root-id": ('[[roots]]\nid = "a b"\npath = "."\n', "roots[0].id must match"),
    "missing-root": ('[[roots]]\npath = "nowhere"\n', "roots[0].path 'nowhere' is not a directory"),
    "roots-not-array": ('roots = "."\n', "[[roots]] must be a non-empty array of tables"),
    "bad-regex": ('[secrets]\nredact_regexes = ["("]\n', "is not a valid regex"),
    "globs-not-strings": ("[secrets]\ndeny_globs = [1]\n", "secrets.deny_globs has the wrong type (tuple)"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_policy_is_a_clear_start_up_error(tmp_path: Path, case: str) -> None:
    text, problem = BAD[case]
    (tmp_path / "stringsh.toml").write_text(text)
    dispatcher = Dispatcher(tmp_path)
    with pytest.raises(StringError) as caught:
        dispatcher.check()
    assert caught.value.code == "INVALID_PAYLOAD"
    assert caught.value.message.startswith(f"Bad policy file {tmp_path / 'stringsh.toml'}: ")
    assert problem in caught.value.message
    dispatcher.close()


def test_missing_policy_file_given_explicitly(tmp_path: Path) -> None:
    with pytest.raises(StringError) as caught:
        load_policy(tmp_path, tmp_path / "nope.toml")
    assert caught.value.message == f"Bad policy file {tmp_path / 'nope.toml'}: file not found"


def test_the_real_program_refuses_to_start_with_a_bad_policy(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo), "TERM": "dumb"}
    (tmp_path / "stringsh.toml").write_text("[permissions]\nwrite = 'yes'\n")
    proc = subprocess.run([sys.executable, "-m", "stringsh", "-c", "/ls"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and proc.stdout == ""
    assert (
        f"ERROR(INVALID_PAYLOAD): Bad policy file {tmp_path / 'stringsh.toml'}: "
        "permissions.write has the wrong type (str)" in proc.stderr
    )
    (tmp_path / "stringsh.toml").unlink()
    ro = tmp_path / "ro.toml"
    ro.write_text('[[roots]]\npath = "."\nmode = "read_only"\n')
    proc = subprocess.run([sys.executable, "-m", "stringsh", "--policy", str(ro), "-c", "/write a.txt hi"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout == (
        "re: /write a.txt hi\nERROR(NOT_PERMITTED): write is not allowed: root root0 is read_only\n"
        "A read_only root is never changed; /info lists the roots and their modes.\n"
    )


def test_the_policy_file_cannot_be_changed_through_the_workspace(tmp_path: Path) -> None:
    # An agent the policy confines must not relax it for the next start (CVE-2026-25725: a protected settings
    # file created from inside the sandbox), whether it exists yet or not, nor through an in-root alias.
    (tmp_path / "pol").symlink_to("stringsh.toml")
    dispatcher = Dispatcher(tmp_path)
    refused = (
        "ERROR(NOT_PERMITTED): stringsh.toml is the workspace's policy and cannot be changed through stringsh\n"
        "A session never changes its own policy; edit the policy file outside stringsh."
    )
    assert dispatcher.execute("/write stringsh.toml\n[shell]\nsandbox = false\n").text == (
        f"re: /write stringsh.toml\n{refused}"
    )
    assert not (tmp_path / "stringsh.toml").exists()
    (tmp_path / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    assert dispatcher.execute("/open stringsh.toml").ok
    assert dispatcher.execute("/write stringsh.toml\n").code == "NOT_PERMITTED"
    assert dispatcher.execute("/write --force pol\n[shell]\nsandbox = false\n").text == (
        f"re: /write --force pol\n{refused}"
    )
    assert dispatcher.execute("/append stringsh.toml\n[limits]\n").code == "NOT_PERMITTED"
    assert (tmp_path / "stringsh.toml").read_text() == "[shell]\nsandbox = true\n"
    dispatcher.close()


def test_a_policy_file_given_inside_the_root_is_protected_too(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "agent.toml").write_text("[shell]\ntimeout = 5.0\n")
    workspace = Workspace.load(tmp_path, tmp_path / "conf" / "agent.toml")
    with pytest.raises(StringError) as caught:
        workspace.write_text("conf/agent.toml", "")
    assert caught.value.code == "NOT_PERMITTED"
    assert (tmp_path / "conf" / "agent.toml").read_text() == "[shell]\ntimeout = 5.0\n"
    workspace.close()
