"""The shell's protocol text: the line typed for each command, each command file's first line, and the sentinel.

Each command is written to a private file and run by one typed line (`run_line`):
`PS1=; PROMPT_COMMAND=<tail>; __ss_go=; { source FILE; } </dev/null; <tail>` where the tail saves `$?`, checks
the shell's health and sets PS1 to `\n__SSH_<secret>_<n>__ <status> <health> <cwd>\n`. The secret and counter
appear only in that typed line and in bash's prompt (history is off, PS1 is empty while the command runs), so
`env`, `echo $PS1` or a changed PS1/PROMPT_COMMAND can neither fake nor lose the end.

The health word says whether the protocol still works: `ok`; `norun` when the command file never started (the
user disabled `source` or `builtin` with `enable -n`, or `ulimit -n 4` left no descriptor for `</dev/null`), the
file's first statement (`file_prelude`) having set `__ss_go` to the counter; `trap` when a DEBUG trap ran a
command inside the tail (it runs around every statement of the protocol and mixes into every reply); `broken`
when a builtin the tail needs failed (`enable -n builtin`, no descriptor left for a redirection). The session
restarts a shell that is not `ok` (session.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

#: Health words of the sentinel line (see the module docstring).
HEALTHY, NOT_RUN, DEBUG_TRAP, BROKEN = "ok", "norun", "trap", "broken"

#: First line of every command file: re-enable the xtrace/verbose flags the previous tail turned off.
RESTORE_FLAGS = "[[ $__ss_f != *[xv]* ]] || \\builtin set -${__ss_f//[^xv]/}; "


def file_prelude(count: int) -> str:
    """First line of command file `count`: mark that it started, and restore xtrace/verbose."""
    return f"__ss_go={count}; {RESTORE_FLAGS}"


def sentinel_pattern(sentinel: bytes) -> re.Pattern[bytes]:
    """The sentinel line: status, health word, cwd."""
    return re.compile(re.escape(sentinel) + rb" (\d+) ([a-z]+) ([^\r\n]*)\r*\n")


def stale_pattern(secret: str) -> re.Pattern[bytes]:
    """An earlier prompt printed again: bash got a timeout's or Ctrl-C's SIGINT just after its command ended."""
    return re.compile(rb"\n{0,2}__SSH_" + secret.encode() + rb"_\d+__ \d+ [a-z]+ [^\r\n]*\r*\n")


def ansi_quote(value: str) -> str:
    """Quote for bash on one line: `$'…'` with backslash escapes for quotes and control characters."""
    out = []
    for char in value:
        if char in "\\'":
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return "$'" + "".join(out) + "'"


def find_sentinel(buf: bytes, sentinel: bytes, tail: re.Pattern[bytes]) -> re.Match[bytes] | None:
    """The real sentinel line in `buf`; look-alikes (an xtrace of the prompt assignment) are skipped."""
    at = buf.find(sentinel)
    while at >= 0:
        match = tail.match(buf, at)
        if match:
            return match
        at = buf.find(sentinel, at + 1)
    return None


def started_mark(secret: str, count: int) -> bytes:
    """What the typed line prints once bash runs it, before the command file: an OSC sequence (output cleaning
    drops it) saying that a SIGINT now ends the command and still gets the sentinel (see `run_line`)."""
    return f"\x1b]stringsh-go;{secret}_{count}\x07".encode()


def run_line(script: Path, secret: str, count: int) -> str:
    """The typed line: clear PS1, source the command with stdin /dev/null, then print the sentinel prompt.

    The tail turns xtrace and verbose off so they do not show it (the next command file turns them back on),
    and puts stdout and stderr back on the terminal if a command moved them (the prompt is written to stderr).
    The sentinel-setting tail runs twice over: inline after the command, and as PROMPT_COMMAND for when bash
    drops the rest of the line (an interrupted builtin, SIGINT). Its text splits the marker (`__SS''H_`) so
    that printing PROMPT_COMMAND cannot show it; only bash's prompt expansion does. Once PROMPT_COMMAND is set the
    line prints `started_mark`: a Ctrl-C before it could reach a bash still reading the line (dropped, or lost);
    after it, bash is running the line and the tail prints the sentinel however the command ends.
    """
    ps1 = f"'\\n__SS''H_{secret}_{count}__ ${{__ss_r}} ${{__ss_h}} ${{__ss_d}}\\n'"
    quiet = "{ __ss_r=$? __ss_f=$-; \\builtin set +xv; } 2>/dev/null"
    cwd = "__ss_d=${PWD//[$'\\n\\r']/?}"  # a newline in the cwd must not break the sentinel line
    # after `exec 2>/dev/null` (`exec`, not `builtin exec`: that would undo its own redirection)
    tty = "[[ -t 1 ]] || \\exec >/dev/tty; [[ -t 2 ]] || \\exec 2>/dev/tty"
    # `$_` is empty after an assignment unless a DEBUG trap ran a command in between; `__ss_go`: see above
    health = f"__ss_h={HEALTHY}; [[ -z $_ ]] || __ss_h={DEBUG_TRAP}; [[ ${{__ss_go-}} == {count} ]] || __ss_h={NOT_RUN}"
    reset = (  # with `builtin` disabled these fail: the prompt still shows, and says `broken`
        f"\\builtin unset PROMPT_COMMAND PS0 2>/dev/null || {{ PROMPT_COMMAND=; PS0=; __ss_h={BROKEN}; }}; "
        f"\\builtin shopt -s promptvars 2>/dev/null || __ss_h={BROKEN}"
    )
    tail = f"{quiet}; {tty}; {cwd}; {health}; PS1={ps1}; {reset}"
    source = shlex.quote(str(script))
    go = f"\\builtin printf '\\033]stringsh-go;{secret}_{count}\\007'"
    return (f"PS1=; PROMPT_COMMAND={shlex.quote(tail)}; __ss_go=; {go}; {{ \\builtin source {source}; }} </dev/null;"
            f" {tail}\n")
