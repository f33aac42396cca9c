"""The topic's persistent shell: `!cmd`, `/bash` mode, and the line handler of bash topics (`//help` …).

The shell itself is `stringsh.workspace.shell`; this module only picks the settings from the policy, keeps the
shell in `session.bash` and turns its results into replies (`exit: N | cwd: /abs`, code `EXIT_N` or `TIMEOUT`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler, read_help_page
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace.shell.result import ShellResult
from stringsh.workspace.shell.settings import ShellSettings, settings_from_policy

if TYPE_CHECKING:
    from stringsh.workspace.shell.session import ShellSession

#: Session variable with a per-call timeout in seconds for the shell front ends (invalid: the policy default).
TIMEOUT_VARIABLE = "_timeout"
LABEL = 10


def shell_settings(ctx: Context) -> ShellSettings:
    """The policy's shell settings; `NOT_PERMITTED` when the policy turns the shell off."""
    policy = ctx.dispatcher.workspace.policy
    permissions = getattr(policy, "permissions", None)
    if permissions is not None and not getattr(permissions, "shell", True):
        raise StringError("NOT_PERMITTED", "shell is disabled by policy", "The policy's [permissions] shell = false.")
    return settings_from_policy(policy)


def spool_dir(ctx: Context) -> Path:
    return Path(ctx.dispatcher.root) / ".stringsh" / "spool"


def call_timeout(ctx: Context) -> float | None:
    """`{_timeout}` in seconds when it is a positive number, else None (the policy's timeout)."""
    raw = ctx.session.variables.get(TIMEOUT_VARIABLE, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if 0 < value < 1e6 else None


def topic_shell(ctx: Context) -> ShellSession:
    """The topic's shell, made on first use; settings are re-read so a policy change reaches it."""
    from stringsh.workspace.shell.session import ShellSession  # pexpect loads with the first shell only

    settings = shell_settings(ctx)
    shell = ctx.session.bash
    confinement = (settings.sandbox, settings.writable)
    if isinstance(shell, ShellSession) and (shell.settings.sandbox, shell.settings.writable) != confinement:
        ctx.session.close_shell()
        shell = None
    if not isinstance(shell, ShellSession):
        shell = ShellSession(ctx.dispatcher.root, settings, spool_dir=spool_dir(ctx))
        ctx.session.bash = shell
    shell.settings = settings
    return shell


def to_result(result: ShellResult) -> Result:
    """`exit: N | cwd: /abs` + content; `EXIT_N` when N is not 0, `TIMEOUT` (exit 124) past the deadline."""
    if result.timed_out:
        return Result(result.message, result.content, ok=False, code="TIMEOUT")
    status = result.exit_code
    return Result(result.message, result.content, ok=status == 0, code=None if status == 0 else f"EXIT_{status}")


def command_text(ctx: Context) -> str:
    """The header's command and the body's lines, as one bash text."""
    return ctx.request.shell_text(ctx.arg_text)


def audit(ctx: Context, op: str, result: Result | None, started: float, error: str | None = None) -> None:
    """One audit record per shell command: operation and outcome, never the command text or its output."""
    state = getattr(ctx.dispatcher.workspace, "state", None)
    record = getattr(state, "record", None)
    if callable(record):
        outcome = error or ("ok" if result is not None and result.ok else (result.code if result else "ERROR"))
        record(op, [], ctx.session.topic, outcome, (time.perf_counter() - started) * 1000, None)


def audited(ctx: Context, op: str, run: Callable[[], Result]) -> Result:
    started = time.perf_counter()
    try:
        result = run()
    except StringError as exc:
        audit(ctx, op, None, started, exc.code)
        raise
    audit(ctx, op, result, started)
    return result


def run_in_topic_shell(ctx: Context, text: str) -> Result:
    def run() -> Result:
        shell = topic_shell(ctx)
        result = shell.run(text, timeout=call_timeout(ctx), variables=ctx.session.exported_variables())
        return to_result(result)

    return audited(ctx, "shell", run)


@handler("!")
def bang(ctx: Context) -> Result:
    text = command_text(ctx)
    if not text.strip():
        raise StringError("INVALID_PAYLOAD", "Nothing to run.", "Write the command after the !, e.g. !ls -la")
    return run_in_topic_shell(ctx, text)


@handler("bash")
def bash_mode(ctx: Context) -> Result:
    if ctx.arg_text.strip() or ctx.body:
        raise StringError("INVALID_PAYLOAD", "/bash takes no arguments.", "Use !<command> to run one command.")
    shell_settings(ctx)
    ctx.session.bash_mode = True
    return Result(
        "Bash mode on",
        "Every line now goes to this topic's shell. //help lists the meta-commands; //exit returns to String Commands.",
    )


def info_text(ctx: Context) -> str:
    shell = ctx.session.bash if hasattr(ctx.session.bash, "run") else None
    settings = shell.settings if shell is not None else shell_settings(ctx)
    pid = shell.pid if shell is not None else None
    variables = ctx.session.exported_variables()
    rows = [
        ("cwd", shell.cwd if shell is not None else str(ctx.dispatcher.root)),
        ("pid", f"{pid} (running)" if pid is not None else "stopped"),
        ("sandbox", settings.sandbox),
        ("timeout", f"{settings.timeout:g} s"),
        ("vars", ", ".join(f'{{{k}}}="{v}"' for k, v in variables.items()) or "(none)"),
    ]
    return "\n".join(f"{key + ':':<{LABEL}}{value}" for key, value in rows)


def meta(ctx: Context, word: str) -> Result:
    """`//help`, `//info`, `//close`, `//exit`: the only lines of a bash topic that do not reach bash."""
    if word == "help":
        return Result("Bash Session", read_help_page("bash"))
    if word == "info":
        return Result("Bash session info", info_text(ctx))
    if word == "close":
        ctx.session.close_shell()
        return Result("Bash session closed.")
    if word == "exit":
        if ctx.session.kind == "bash":
            raise StringError(
                "INVALID_TARGET",
                f"{ctx.session.topic} is a bash topic: there is no main topic to return to here.",
                "Send String Commands to another topic; //close ends this shell.",
            )
        ctx.session.bash_mode = False
        return Result("Bash mode off")
    raise StringError(
        "COMMAND_UNSUPPORTED", f"Unknown bash meta-command: //{word}", "Use //help, //info, //close or //exit."
    )


@handler("bash-line")
def bash_line(ctx: Context) -> Result:
    if ctx.arg_text.startswith("//"):
        return meta(ctx, ctx.arg_text[2:].strip().lower())
    return run_in_topic_shell(ctx, command_text(ctx))
