"""`!cmd`, `/bash` mode and bash topics through the dispatcher: exact replies, for both shell providers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.userdirs import user_policy_file
from stringsh.workspace.shell.reaper import session_members
from stringsh.workspace.state import AUDIT_FILE, state_folder
from tests.conftest import SHELL_ENV_INFO, spool_named
from tests.shell.sandboxnotes import READ_ONLY_NOTE

RESTARTED = "[shell restarted: previous session ended (exit 3); cwd and exports reset]"


@pytest.fixture(params=["false", "true"], ids=["local", "bubblewrap"])
def shell_ws(request: pytest.FixtureRequest, ws: Path, dispatcher):  # type: ignore[no-untyped-def]
    """The workspace with a policy choosing the provider; yields (dispatcher, ws). The sandbox is on by default:
    the local case turns it off in the user's own policy (a workspace's file may only turn it on)."""
    if request.param == "false":
        user_policy_file().parent.mkdir(parents=True, exist_ok=True)
        user_policy_file().write_text("[shell]\nsandbox = false\n")
    (ws / "stringsh.toml").write_text(f"[shell]\ntimeout = 20.0\nsandbox = {request.param}\n")
    return dispatcher, ws


def test_bang_runs_in_the_topic_shell(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    assert d.execute("!echo hi").text == f"re: !echo hi\nexit: 0 | cwd: {ws}\n---\nhi"
    (ws / "sub").mkdir()
    assert d.execute("!cd sub").text == f"re: !cd sub\nexit: 0 | cwd: {ws / 'sub'}\n---\n(no output)"
    assert d.execute("!pwd").text == f"re: !pwd\nexit: 0 | cwd: {ws / 'sub'}\n---\n{ws / 'sub'}"


def test_non_zero_exit_is_exit_code(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    reply = d.execute("!echo nope >&2; (exit 3)")
    assert (reply.ok, reply.code) == (False, "EXIT_3")
    assert reply.text == f"re: !echo nope >&2; (exit 3)\nexit: 3 | cwd: {ws}\n---\nnope"


def test_variables_substituted_and_exported(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    d.execute('/set {name} = "Ada"')
    d.execute('/set {_quiet} = "x"')
    reply = d.execute('!echo {name} "$name" "${_quiet-unset}"')
    assert reply.text == f're: !echo {{name}} "$name" "${{_quiet-unset}}"\nexit: 0 | cwd: {ws}\n---\nAda Ada unset'


def test_body_lines_are_more_script(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    reply = d.execute("!echo one\necho two\nfor i in 3; do echo $i; done")
    assert reply.text == f"re: !echo one\nexit: 0 | cwd: {ws}\n---\none\ntwo\n3"


def test_a_heredoc_on_a_shell_line_is_bash_heredoc_too(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    reply = d.execute("!cat > f.md <<'EOF'\n# Title $HOME\necho not-run\nEOF")
    assert reply.text == f"re: !cat > f.md\nexit: 0 | cwd: {ws}\n---\n(no output)"
    assert (ws / "f.md").read_text() == "# Title $HOME\necho not-run\n"
    expanded = d.execute("!cat <<EOF\nhome=$HOME\nEOF")
    assert expanded.text.endswith(f"---\nhome={os.environ['HOME']}")


def test_a_heredoc_with_nothing_before_it_is_the_script(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    assert d.execute("!<<EOF\necho one\necho two\nEOF").text == f"re: !\nexit: 0 | cwd: {ws}\n---\none\ntwo"


def test_a_bash_heredoc_wrapped_in_a_string_heredoc(shell_ws) -> None:  # type: ignore[no-untyped-def]
    # the older spelling still works: the outer tag is String's, the inner one bash's
    d, ws = shell_ws
    reply = d.execute("!cat > f.md <<'EOF' <<END\n# Title $HOME\necho not-run\nEOF\nEND")
    assert reply.text == f"re: !cat > f.md <<'EOF'\nexit: 0 | cwd: {ws}\n---\n(no output)"
    assert (ws / "f.md").read_text() == "# Title $HOME\necho not-run\n"


def test_dead_shell_note_in_the_next_reply(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    ended = d.execute("!exit 3")
    assert ended.code == "EXIT_3"
    assert ended.text == (
        f"re: !exit 3\nexit: 3 | cwd: {ws}\n---\n[shell ended (exit 3); the next command starts a new one]"
    )
    assert d.execute("!echo back").text == f"re: !echo back\nexit: 0 | cwd: {ws}\n---\n{RESTARTED}\nback"


def test_timeout_from_the_session_variable(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    d.execute('/set {_timeout} = "1"')
    reply = d.execute("!echo started; sleep 10")
    assert (reply.ok, reply.code) == (False, "TIMEOUT")
    assert reply.text == (
        f"re: !echo started; sleep 10\nexit: 124 | cwd: {ws}\n---\n"
        "started\nTerminated\n[timed out after 1 s; the command was stopped]"
    )
    d.execute('/set {_timeout} = "soon"')  # not a number: the policy's timeout applies
    assert d.execute("!echo ok").text.endswith("\n---\nok")


def test_bash_mode_and_meta_commands(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    sandbox = "bubblewrap" if "true" in (ws / "stringsh.toml").read_text() else "none"
    assert d.execute("/bash").text == (
        "re: /bash\nBash mode on\n---\nEvery line now goes to this topic's shell. "
        "//help lists the meta-commands; //exit returns to String Commands."
    )
    assert d.execute("ls -A1").text == f"re: ls -A1\nexit: 0 | cwd: {ws}\n---\n.stringsh\nstringsh.toml"
    assert d.execute("/help").code == "EXIT_127"  # a plain /help goes to bash
    d.execute('/set {who} = "me"')  # also bash: sets nothing
    pid = d.session().bash.pid
    assert d.execute("//info").text == (
        f"re: //info\nBash session info\n---\ncwd:      {ws}\npid:      {pid} (running)\n"
        f"sandbox:  {sandbox}\nenv:      {SHELL_ENV_INFO.removeprefix('shell env: ')}\ntimeout:  20 s\n"
        "vars:     (none)"
    )
    help_reply = d.execute("//help").text
    assert help_reply.startswith("re: //help\nBash Session\n---\nAll input is sent to the shell")
    assert d.execute("//bogus").text == (
        "re: //bogus\nERROR(COMMAND_UNSUPPORTED): Unknown bash meta-command: //bogus\n"
        "Use //help, //info, //close or //exit."
    )
    assert d.execute("//close").text == "re: //close\nBash session closed."
    assert session_members(pid) == []
    assert d.execute("//info").text.splitlines()[4] == "pid:      stopped"
    assert d.execute("//exit").text == "re: //exit\nBash mode off"
    assert d.execute("ls").code == "COMMAND_UNSUPPORTED"
    assert d.execute("/help bash").text == help_reply.replace("re: //help", "re: /help bash")


def test_bash_topic(shell_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = shell_ws
    assert d.execute("cd /tmp && echo in", "bash:work").text == "re: cd /tmp && echo in\nexit: 0 | cwd: /tmp\n---\nin"
    assert d.execute("pwd", "bash:work").text.endswith("\n---\n/tmp")
    assert d.execute("!pwd").text.endswith(f"\n---\n{ws}")  # main has its own shell
    assert d.execute("//exit", "bash:work").text == (
        "re: //exit\nERROR(INVALID_TARGET): bash:work is a bash topic: there is no main topic to return to here.\n"
        "Send String Commands to another topic; //close ends this shell."
    )
    assert d.execute("//close", "bash:work").text == "re: //close\nBash session closed."


def test_output_cap_from_policy(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    (ws / "stringsh.toml").write_text("[shell]\noutput_cap = 1000\n")
    reply = dispatcher.execute("!seq 1 10000")
    lines = reply.text.splitlines()
    assert lines[:5] == ["re: !seq 1 10000", f"exit: 0 | cwd: {ws}", "---", "1", "2"]
    assert lines[-1] == "10000"
    notice = next(line for line in lines if line.startswith("[... "))
    assert spool_named(notice).parent == ws / ".stringsh" / "spool"
    assert "whole output (48894 bytes, 10000 lines)" in notice


@pytest.mark.needs("bwrap")
def test_sandbox_from_policy_confines(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    reply = dispatcher.execute("!touch /etc/stringsh-probe")
    assert reply.code == "EXIT_1"
    assert reply.text.endswith(f"touch: cannot touch '/etc/stringsh-probe': Read-only file system\n{READ_ONLY_NOTE}")


@pytest.mark.needs("bwrap")
def test_read_only_root_is_read_only_in_the_sandbox(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    (ws / "stringsh.toml").write_text('[[roots]]\npath = "."\nmode = "read_only"\n\n[shell]\nsandbox = true\n')
    reply = dispatcher.execute("!touch new.txt")
    assert reply.text == (
        f"re: !touch new.txt\nexit: 1 | cwd: {ws}\n---\ntouch: cannot touch 'new.txt': Read-only file system\n"
        f"{READ_ONLY_NOTE}"
    )
    assert not (ws / "new.txt").exists()


def test_shell_disabled_by_policy(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    error = "ERROR(NOT_PERMITTED): shell is disabled by policy\nThe policy's [permissions] shell = false."
    assert dispatcher.execute("!ls").text == f"re: !ls\n{error}"
    assert dispatcher.execute("/bash").text == f"re: /bash\n{error}"
    assert dispatcher.execute("/exec ls").text == f"re: /exec ls\n{error}"


def test_bad_inputs(dispatcher) -> None:  # type: ignore[no-untyped-def]
    assert dispatcher.execute("!").text == (
        "re: !\nERROR(INVALID_PAYLOAD): Nothing to run.\nWrite the command after the !, e.g. !ls -la"
    )
    assert dispatcher.execute("!   ").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/bash now").text == (
        "re: /bash now\nERROR(INVALID_PAYLOAD): /bash takes no arguments.\nUse !<command> to run one command."
    )


def test_dispatcher_close_ends_every_shell(dispatcher) -> None:  # type: ignore[no-untyped-def]
    dispatcher.execute("!sleep 30 &")
    dispatcher.execute("sleep 30 &", "bash:other")
    pids = [dispatcher.session().bash.pid, dispatcher.session("bash:other").bash.pid]
    assert all(pids)
    dispatcher.close()
    assert [session_members(pid) for pid in pids] == [[], []]


def test_audit_records_the_command_line_never_its_output_or_body(ws: Path, dispatcher) -> None:  # type: ignore[no-untyped-def]
    """The command is recorded (as the JSON tools' audit asks) (before: nothing of it), its output and a heredoc body
    (file contents) never are."""
    import json

    assert dispatcher.execute("!printf 'out%sput\\n' -XYZ-").ok
    dispatcher.execute("/exec exit 3")
    assert dispatcher.execute("!cat > f.txt <<'EOF'\nBODY-CONTENT\nEOF").ok
    assert (ws / "f.txt").read_text() == "BODY-CONTENT\n"
    log = (state_folder(ws) / AUDIT_FILE).read_text()
    records = [json.loads(line) for line in log.splitlines()]
    assert [(r["op"], r["ops"], r["outcome"], r["paths"], r["command"]) for r in records[-3:]] == [
        ("!", ["shell"], "ok", [], "printf 'out%sput\\n' -XYZ-"),
        ("/exec", ["exec"], "EXIT_3", [], "exit 3"),
        ("!", ["shell"], "ok", [], "cat > f.txt <<'EOF' [+2 lines]"),
    ]
    assert "out-XYZ-put" not in log and "BODY-CONTENT" not in log
    assert dispatcher.workspace.verify_audit().ok


def test_refused_and_crashed_shell_commands_are_audited(ws: Path, dispatcher, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The engine audits every shell command, including a refusal and an internal error (reported, not raised)."""
    import json

    from stringsh.workspace.shell import oneshot

    token = "ghp_" + "a1B2c3D4" * 5  # the command line is recorded, secrets in it masked
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    dispatcher.execute(f"!echo {token}")
    refused = [json.loads(line) for line in (state_folder(ws) / AUDIT_FILE).read_text().splitlines()]
    (ws / "stringsh.toml").write_text("")
    other = type(dispatcher)(ws)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(oneshot, "run_once", broken)
    reply = other.execute(f"/exec echo {token}")
    other.close()
    assert reply.code == "INTERNAL_ERROR"
    records = [json.loads(line) for line in (state_folder(ws) / AUDIT_FILE).read_text().splitlines()]
    assert [(r["op"], r["ops"], r["outcome"]) for r in refused] == [("!", ["shell"], "NOT_PERMITTED")]
    assert [(r["op"], r["ops"], r["outcome"]) for r in records[len(refused):]] == [
        ("/exec", ["exec"], "INTERNAL_ERROR:RuntimeError")]
    assert [r["command"] for r in records] == ["echo ***REDACTED***", "echo ***REDACTED***"]
    assert token not in (state_folder(ws) / AUDIT_FILE).read_text()
