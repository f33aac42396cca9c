"""CLI actions: the author's command with caller values single-quoted, run by a stateless `bash -c`.

Values are data, never shell syntax: every value that is not plainly safe is wrapped in single quotes (an
embedded `'` becomes `'\\''`), so `; rm -rf`, `$(…)`, backticks, quotes and newlines reach the program as text.
The reply is the bash format `exit: N | cwd: /abs` + output, with code `EXIT_N` when N is not 0.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stringsh.workspace.shell.clean import clean_text

SAFE = re.compile(r"[A-Za-z0-9_\-./=@:+,]+")  # fullmatch: `$` would let a final newline through
PLACEHOLDER = re.compile(r"\{(\.\.\.args|[A-Za-z_]\w*)(?:\[(\d+)\])?\}")
#: Once bash has returned, the longest its leftover jobs may keep the output pipe open before they are killed (a job
#: that left the process group is then no longer waited for).
DRAIN_MAX = 1.0


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
    """One `bash -c`, stdout and stderr merged, stdin empty; on timeout the process group is killed.

    `wrap` rewrites the command line (the policy's sandbox); the command then starts with a `cd` to `cwd`.
    `separate` keeps the two streams apart (a response template reads each); `output` is then stdout, stderr.
    """
    full_env = {**os.environ, "TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_EDITOR": ":", **(env or {})}
    argv = ["bash", "--norc", "--noprofile", "-c", command]
    if wrap is not None:
        argv = wrap(["bash", "--norc", "--noprofile", "-c", f"cd {shell_quote(str(cwd))} && {command}"])
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if separate else subprocess.STDOUT,
        start_new_session=True,
    )
    # Timers rather than communicate(timeout=…): a timed wait polls with sleeps, which costs every short command.
    expired = threading.Event()

    def stop(sig: int) -> None:
        expired.set()
        _kill_group(proc.pid, sig)

    timers = [threading.Timer(timeout, stop, (signal.SIGTERM,)), threading.Timer(timeout + 5, stop, (signal.SIGKILL,))]
    for timer in timers:
        timer.daemon = True
        timer.start()
    streams = [proc.stdout, proc.stderr] if separate else [proc.stdout]
    chunks: list[list[bytes]] = [[] for _ in streams]
    readers = [
        threading.Thread(target=_read_all, args=(stream, got), name="stringsh-cli-output", daemon=True)
        for stream, got in zip(streams, chunks, strict=True)
    ]
    for reader in readers:
        reader.start()
    try:
        proc.wait()
    finally:
        for timer in timers:
            timer.cancel()
    for reader in readers:
        reader.join(DRAIN_MAX)
    if any(reader.is_alive() for reader in readers):  # a job bash left behind holds a pipe: stop it
        _kill_group(proc.pid, signal.SIGKILL)
        for reader in readers:
            reader.join(0.1)
    timed_out = expired.is_set()
    texts = [clean_output(b"".join(list(got)), cap) for got in chunks]
    output = "\n".join(text for text in texts if text)
    if timed_out:
        output = f"{output}\n[timed out after {timeout:g}s; process group killed]".lstrip("\n")
    code = proc.returncode
    run = CliRun(code if code >= 0 else 128 - code, str(cwd), output, timed_out)
    if separate:
        run.stdout, run.stderr = texts
    return run


def _read_all(stream: Any, chunks: list[bytes]) -> None:
    """Collect a pipe until EOF (on its own thread: the reply never waits on a job that outlived bash)."""
    with contextlib.suppress(OSError, ValueError):
        while data := stream.read1(65536):
            chunks.append(data)
    with contextlib.suppress(OSError):
        stream.close()


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, sig)
