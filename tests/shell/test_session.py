"""The persistent shell against the session-killer catalogue, for both providers (real bash, real pty)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings
from stringsh.workspace.shell.reaper import session_members
from tests.conftest import spool_named

RESTARTED = "[shell restarted: previous session ended (exit {}); cwd and exports reset]"
ENDED = "[shell ended (exit {}); the next command starts a new one]"


def test_cwd_and_exports_persist(shell: ShellSession, ws: Path) -> None:
    (ws / "sub").mkdir()
    first = shell.run("cd sub && export GREETING=hello && LOCAL=kept")
    assert (first.exit_code, first.cwd, first.output) == (0, str(ws / "sub"), "")
    second = shell.run('pwd; echo "$GREETING $LOCAL"; bash -c \'echo "child:$GREETING"\'')
    assert second.output == f"{ws / 'sub'}\nhello kept\nchild:hello"
    assert second.message == f"exit: 0 | cwd: {ws / 'sub'}"


def test_status_and_output_layout(shell: ShellSession, ws: Path) -> None:
    failed = shell.run("echo out; echo err >&2; (exit 7)")
    assert (failed.exit_code, failed.output) == (7, "out\nerr")
    silent = shell.run("false")
    assert (silent.exit_code, silent.content) == (1, "(no output)")


def test_fixed_environment(shell: ShellSession) -> None:
    result = shell.run('echo "$TERM|$PAGER|$GIT_PAGER|$GIT_EDITOR|$HISTFILE"')
    assert result.output == "dumb|cat|cat|:|/dev/null"


def test_session_variables_exported_except_underscore(ws: Path, settings: ShellSettings) -> None:
    shell = ShellSession(ws, settings, variables={"name": "v1", "_private": "p", "bad-name": "x"})
    try:
        assert shell.run('echo "$name ${_private-unset}"').output == "v1 unset"
        changed = {"name": "it's\n\"two\" lines", "added": "a"}
        assert shell.run('echo "$name|$added"', variables=changed).output == "it's\n\"two\" lines|a"
        assert shell.run('echo "${name-gone} ${added-gone}"', variables={}).output == "gone gone"
    finally:
        shell.close()


def test_exit_restarts_with_a_note(shell: ShellSession, ws: Path) -> None:
    shell.run("cd /; export KEEP=1")
    ended = shell.run("echo bye; exit 3")
    assert ended.exit_code == 3
    assert ended.output.splitlines()[0] == "bye"
    assert ended.output.splitlines()[-1] == ENDED.format(3)
    after = shell.run('pwd; echo "${KEEP-reset}"')
    assert after.content == "\n".join([RESTARTED.format(3), str(ws), "reset"])
    assert shell.run("echo again").content == "again"


def test_exec_bash_restarts(shell: ShellSession) -> None:
    ended = shell.run("exec bash")
    assert ended.output.endswith(ENDED.format(0))
    assert shell.run("echo alive").content == f"{RESTARTED.format(0)}\nalive"


def test_set_e_then_false_restarts(shell: ShellSession) -> None:
    ended = shell.run("set -e; false")
    assert ended.exit_code == 1
    assert ended.output == ENDED.format(1)
    assert shell.run("echo alive").content == f"{RESTARTED.format(1)}\nalive"


def test_shell_killed_between_commands_restarts(shell: ShellSession) -> None:
    shell.run("true")
    assert shell.pid is not None
    shell._proc.kill(9)  # type: ignore[union-attr]  # the outside world kills it while idle
    shell._proc.wait()  # type: ignore[union-attr]
    assert shell.run("echo alive").content == f"{RESTARTED.format(137)}\nalive"


def test_prompt_changes_do_not_lose_the_end(shell: ShellSession) -> None:
    assert shell.run("PS1='$ '; PS2='> '; PS0='zero'; PROMPT_COMMAND='echo hook'").exit_code == 0
    assert shell.run("echo next").content == "next"
    assert shell.run("shopt -u promptvars; unset PS1").exit_code == 0
    assert shell.run("echo still").content == "still"


def test_xtrace_shows_only_the_command(shell: ShellSession) -> None:
    assert shell.run("set -x; echo traced").output == "++ echo traced\ntraced"
    assert shell.run("echo again").output == "++ echo again\nagain"
    shell.run("set +x")
    assert shell.run("echo quiet").output == "quiet"


@pytest.mark.needs("git")
def test_pager_and_editor_never_wait(shell: ShellSession, ws: Path) -> None:
    git = "git -c user.name=t -c user.email=t@example.com"
    setup = shell.run(f"git init -q . && echo a > a.txt && git add a.txt && {git} commit -qm first && echo done")
    assert setup.output == "done"
    log = shell.run("git log --format=%s")
    assert (log.exit_code, log.output) == (0, "first")
    paged = shell.run("git -p log --format=%s; echo after")
    assert paged.output == "first\nafter"
    commit = shell.run(f"{git} commit --allow-empty")
    assert commit.exit_code == 1
    assert "Aborting commit due to empty commit message" in commit.output


def test_stdin_is_dev_null(shell: ShellSession) -> None:
    result = shell.run('read x; echo "read:$? [$x]"; cat; echo cat:$?')
    assert result.output == "read:1 []\ncat:0"


def test_background_jobs_do_not_hold_the_reply(shell: ShellSession) -> None:
    started = shell.run("sleep 60 & python3 -c 'import time; time.sleep(60)' & echo started")
    assert started.exit_code == 0
    assert started.output.splitlines()[-1] == "started"
    assert shell.run("echo next").output.endswith("next")
    session = shell._proc.pid  # type: ignore[union-attr]
    assert len(session_members(session)) >= 3
    shell.close()
    assert session_members(session) == []


def test_close_leaves_no_process(ws: Path, settings: ShellSettings) -> None:
    shell = ShellSession(ws, settings)
    shell.run("sleep 30 &")
    pid = shell.pid
    assert pid is not None
    private = shell._private
    shell.close()
    assert session_members(pid) == []
    assert private is not None and not private.exists()
    assert shell.pid is None


def test_unclosed_quotes_are_errors_not_hangs(shell: ShellSession) -> None:
    quote = shell.run("echo 'unclosed")
    assert quote.exit_code == 2
    assert quote.output == "bash: line 1: unexpected EOF while looking for matching `''"
    backtick = shell.run("echo ok\necho `date")
    assert backtick.exit_code == 2
    assert backtick.output.startswith("ok\nbash: line 2: unexpected EOF while looking for matching ``'")
    block = shell.run("if true; then echo x")
    assert block.exit_code == 2
    assert shell.run("echo fine").content == "fine"


def test_multi_line_heredoc_tabs_and_long_lines(shell: ShellSession) -> None:
    script = "cat <<'EOF'\n\tindented $HOME\nEOF\nfor i in 1 2; do\n  echo \"n$i\"\ndone"
    assert shell.run(script).output == "\tindented $HOME\nn1\nn2"
    long = "x" * 10_000
    assert shell.run(f"echo {long} | wc -c").output == "10001"


def test_escape_sequences_are_stripped(shell: ShellSession) -> None:
    colours = r"printf '\e[1;31mred\e[0m \e]0;title\a\e]8;;http://x\e\\link\e]8;;\e\\ \e(Bok\r\n'"
    assert shell.run(colours).output == "red link ok"
    assert shell.run(r"printf 'a\r\nb\rc\n'").output == "a\nbc"


def test_binary_output(shell: ShellSession) -> None:
    result = shell.run(r"printf 'A\x00\x01\x7f\xff\xfe\x9bB\n'")
    assert result.exit_code == 0
    assert result.output == "A\ufffd\ufffd\ufffdB"
    noise = shell.run("head -c 20000 /dev/urandom; echo; echo end")
    assert noise.output.endswith("end")
    assert not any(ord(c) < 32 and c not in "\t\n" for c in noise.output)


def test_output_without_final_newline(shell: ShellSession) -> None:
    assert shell.run("printf abc").output == "abc"
    assert shell.run("printf 'x\\n\\n\\n'").output == "x"


def test_utf8_character_split_across_reads(shell: ShellSession) -> None:
    result = shell.run(r"printf 'price: \xe2\x82'; sleep 0.2; printf '\xac 5\n'")
    assert result.output == "price: € 5"


def test_sentinel_cannot_be_faked(shell: ShellSession) -> None:
    secret, count = shell._secret, shell._count + 1
    fake = f"__SSH_{secret}_{count}__ 0 /fake"
    result = shell.run(f"echo; echo '{fake}'; echo after; echo $PS1; echo $PROMPT_COMMAND | grep -c SSH")
    assert result.exit_code == 1  # grep found nothing: PROMPT_COMMAND never holds the marker whole
    assert result.output.splitlines()[:3] == ["", fake, "after"]
    dumps = shell.run("env; set; declare -p; history; echo end")
    assert dumps.output.endswith("end")
    assert dumps.cwd != "/fake"
    assert f"__SSH_{secret}" not in shell.run("env; echo $PS1; history").output


def test_timeout_sigterm_keeps_partial_output_and_session(shell: ShellSession) -> None:
    shell.run("cd /tmp")
    pid = shell.pid
    result = shell.run("echo partial; sleep 30", timeout=1)
    assert result.timed_out
    assert result.exit_code == 143
    assert result.message == "exit: 124 | cwd: /tmp"
    assert result.content.splitlines()[0] == "partial"
    assert result.content.splitlines()[-1] == "[timed out after 1 s; the command was stopped]"
    assert shell.pid == pid
    assert shell.run("pwd").content == "/tmp"


def test_timeout_child_ignoring_sigterm_gets_sigkill(shell: ShellSession) -> None:
    shell.run("true")
    pid = shell.pid
    result = shell.run("bash -c 'trap \"\" TERM; echo ignoring; sleep 30'", timeout=1)
    assert result.timed_out
    assert result.exit_code == 137
    assert result.output.startswith("ignoring")
    assert shell.pid == pid
    assert shell.run("echo alive").content == "alive"


def test_timeout_of_a_builtin_loop_interrupts_bash(shell: ShellSession) -> None:
    shell.run("x=1")
    result = shell.run("while :; do :; done", timeout=1)
    assert (result.timed_out, result.exit_code) == (True, 130)
    assert shell.run("echo $x").content == "1"


def test_unstoppable_command_kills_and_restarts_the_shell(shell: ShellSession) -> None:
    shell.run("trap '' INT")  # ignored before the loop starts, however long a busy machine takes to get there
    result = shell.run("while :; do :; done", timeout=0.5)
    assert result.timed_out
    assert result.output == "[shell killed: the command did not stop]"
    assert shell.run("echo back").content == f"{RESTARTED.format(137)}\nback"


def test_hundred_megabytes_stay_bounded(shell: ShellSession, ws: Path) -> None:
    cap = shell.settings.output_cap
    before = _peak_rss()
    # the fixture's short command timeout is for commands that should stop; this one just takes a busy machine long
    result = shell.run("yes 0123456789abcdef | head -c 100000000; echo; echo tail-end", timeout=280)
    grown = _peak_rss() - before
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[-1] == "tail-end"
    notice = next(line for line in lines if line.startswith("[... "))
    spool = spool_named(notice)
    assert spool.parent == ws / ".stringsh" / "spool"
    assert spool.stat().st_size == 100_000_000 + 1 + len("tail-end\n")
    assert "whole output (100000010 bytes, 5882354 lines)" in notice
    assert len(result.output.encode()) < cap + 400
    assert grown < 60 * 1024 * 1024, f"peak RSS grew by {grown} bytes"


def _peak_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def test_output_under_the_cap_makes_no_spool(shell: ShellSession, ws: Path) -> None:
    result = shell.run("seq 1 1000")
    assert result.output == "\n".join(str(i) for i in range(1, 1001))
    assert not (ws / ".stringsh" / "spool").exists()


def test_nul_byte_refused(shell: ShellSession) -> None:
    import pytest

    from stringsh.errors import StringError

    with pytest.raises(StringError) as caught:
        shell.run("echo a\x00b")
    assert caught.value.code == "INVALID_PAYLOAD"


@pytest.mark.needs("bwrap")
def test_providers_give_identical_replies(ws: Path) -> None:
    commands = [
        'echo "hello"',
        "mkdir -p d && cd d && printf 'a\\tb'",
        "echo err >&2; (exit 4)",
        "echo 'oops",
        "cd ..; ls",
        "exit 5",
        "echo after",
    ]
    replies = {}
    for sandbox in ("none", "bubblewrap"):
        shell = ShellSession(ws, ShellSettings(sandbox=sandbox))
        try:
            replies[sandbox] = [(r.message, r.content) for r in map(shell.run, commands)]
        finally:
            shell.close()
        subprocess.run(["rm", "-rf", str(ws / "d")], check=True)
    assert replies["none"] == replies["bubblewrap"]
    assert replies["none"][0] == (f"exit: 0 | cwd: {ws}", "hello")
    assert os.path.isdir(ws)


def test_missing_workspace_is_a_clean_error(tmp_path: Path, settings: ShellSettings) -> None:
    import pytest

    from stringsh.errors import StringError

    shell = ShellSession(tmp_path / "gone", settings)
    with pytest.raises(StringError) as caught:
        shell.run("true")
    assert caught.value.code == "NOT_FOUND"
    assert caught.value.message == f"The workspace folder does not exist: {tmp_path / 'gone'}"
    assert shell.pid is None


def test_newline_in_the_cwd_keeps_the_session(shell: ShellSession, ws: Path) -> None:
    moved = shell.run("mkdir $'a\\nb' && cd $'a\\nb' && pwd")
    assert moved.cwd == f"{ws}/a?b"
    assert moved.output == f"{ws}/a\nb"
    assert shell.run("echo ok").content == "ok"


def test_background_output_shows_in_a_later_reply(shell: ShellSession) -> None:
    shell.run("(sleep 0.2; echo late) &")
    lines = shell.run("sleep 0.6; echo now").output.splitlines()
    assert (lines[0], lines[-1]) == ("late", "now")  # between them bash's "[1]+  Done" notice


def test_reading_the_terminal_directly_times_out_and_the_session_goes_on(shell: ShellSession) -> None:
    result = shell.run("echo asking; read answer </dev/tty; echo never", timeout=1)
    assert result.timed_out
    assert result.content == "asking\n[timed out after 1 s; the command was stopped]"
    assert shell.run("echo next").content == "next"


def test_terminal_modes_changed_by_a_program_are_undone(shell: ShellSession) -> None:
    assert shell.run("stty -F /dev/tty echo opost").exit_code == 0
    assert shell.run("echo hi").content == "hi"
    assert shell.run("stty -F /dev/tty -a | tr ' ' '\\n' | grep -x -e -echo -e -opost").output == "-opost\n-echo"


def test_redirecting_the_shell_itself_is_undone(shell: ShellSession) -> None:
    assert shell.run("echo a; exec 2>/dev/null").content == "a"
    assert shell.run("echo b >&2").content == "b"
    assert shell.run("exec >/dev/null 2>&-").exit_code == 0
    assert shell.run("echo c; ls /nonexistent-path").output == (
        "c\nls: cannot access '/nonexistent-path': No such file or directory"
    )


def test_aliases_and_functions_cannot_hijack_the_protocol(shell: ShellSession) -> None:
    hijack = "alias builtin=echo exec=echo source=echo PS1=x; printf() { :; }; shopt -s expand_aliases"
    assert shell.run(hijack).exit_code == 0
    assert shell.run("export A=1; echo ok").content == "ok"
    assert shell.run("echo $A", variables={"B": "2"}).content == "1"


def test_a_late_interrupt_leaves_no_stale_prompt(shell: ShellSession) -> None:
    """A timeout's or Ctrl-C's SIGINT that reaches bash just after its command ended makes it print its last
    prompt again; that line is the shell's, never output of the next command."""
    assert shell.run("echo one").output == "one"
    assert shell.pid is not None
    bash = [pid for pid in session_members(shell.pid) if Path(f"/proc/{pid}/comm").read_text() == "bash\n"]
    assert len(bash) == 1
    os.kill(bash[0], signal.SIGINT)
    time.sleep(0.5)  # bash prints its prompt again meanwhile
    assert shell.run("echo next").content == "next"
    assert shell.run("echo again").content == "again"
