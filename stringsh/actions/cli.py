"""CLI actions: the author's command with caller values single-quoted, run by a stateless `bash -c`.

Values are data, never shell syntax: every value that is not plainly safe is wrapped in single quotes (an
embedded `'` becomes `'\\''`), so `; rm -rf`, `$(…)`, backticks, quotes and newlines reach the program as text.
The reply is the bash format `exit: N | cwd: /abs` + output, with code `EXIT_N` when N is not 0.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from stringsh.workspace.shell.clean import clean_text
from stringsh.workspace.shell.runner import BashCall, execute

SAFE = re.compile(r"[A-Za-z0-9_\-./=@:+,]+")  # fullmatch: `$` would let a final newline through
PLACEHOLDER = re.compile(r"\{(\.\.\.args|[A-Za-z_]\w*)(?:\[(\d+)\])?\}")
#: Seconds between SIGTERM and SIGKILL to a timed-out action's process group.
KILL_GRACE = 5.0


def shell_quote(value: str) -> str:
    """String's quoting: `''` for empty, safe words as they are, everything else single-quoted."""
    if value == "":
        return "''"
    if SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def build_command(template: str, payload: Mapping[str, str], variables: Mapping[str, str]) -> str:
    """Fill `{...args}` (every payload field as `--k 'v'`), `{field}`, `{field[N]}` and `{var}` into the command.

    One pass over the author's template: inserted values are never scanned again.
    """

    def replace(match: re.Match[str]) -> str:
        name, index = match.group(1), match.group(2)
        if name == "...args":
            return " ".join(f"--{key} {shell_quote(value)}" for key, value in payload.items())
        if name in payload:
            value = payload[name]
            if index is not None:
                parts = value.split(",")
                value = parts[int(index)] if int(index) < len(parts) else ""
            return shell_quote(value)
        if name in variables and index is None:
            return shell_quote(variables[name])
        return match.group(0)

    return PLACEHOLDER.sub(replace, template)


@dataclass
class CliRun:
    exit: int
    cwd: str
    output: str
    timed_out: bool = False
    #: With `separate`: each stream on its own (what a response template's `{Response.stdout}` … show).
    stdout: str = ""
    stderr: str = ""

    @property
    def message(self) -> str:
        return f"exit: {self.exit} | cwd: {self.cwd}"


def clean_output(data: bytes, cap: int) -> str:
    text = clean_text(data.decode("utf-8", "replace"))
    if len(text) > cap:
        half = cap // 2
        cut = len(text) - 2 * half
        text = f"{text[:half]}\n... ({cut} characters cut) ...\n{text[-half:]}"
    return text.rstrip()


def run_bash(
    command: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    timeout: float = 120.0,
    cap: int = 50 * 1024,
    wrap: Callable[[list[str]], list[str]] | None = None,
    separate: bool = False,
) -> CliRun:
    """One `bash -c` (the shared runner), stdout and stderr merged, stdin empty; on timeout the group is killed.

    `wrap` rewrites the command line (the policy's sandbox); the command then starts with a `cd` to `cwd`.
    `separate` keeps the two streams apart (a response template reads each); `output` is then stdout, stderr.
    """
    full_env = {**os.environ, "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_EDITOR": ":", **(env or {})}
    if wrap is not None:
        command = f"cd {shell_quote(str(cwd))} && {command}"
    call = BashCall(command, cwd, full_env, timeout, KILL_GRACE, wrap=wrap, bash="bash")
    chunks: list[list[bytes]] = [[], []] if separate else [[]]
    ended = execute(call, chunks[0].append, chunks[1].append if separate else None)
    texts = [clean_output(b"".join(got), cap) for got in chunks]
    output = "\n".join(text for text in texts if text)
    if ended.timed_out:
        output = f"{output}\n[timed out after {timeout:g}s; process group killed]".lstrip("\n")
    run = CliRun(ended.status, str(cwd), output, ended.timed_out)
    if separate:
        run.stdout, run.stderr = texts
    return run
