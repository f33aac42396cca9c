"""The topic's persistent shell: `!cmd`, `/bash` mode, and the line handler of bash topics (`//help` …).

The shell is reached through the engine (`Workspace.shell`: permission check, audit record, the topic's shell
kept in `session.bash`); this module only turns its results into replies (`exit: N | cwd: /abs`, code `EXIT_N`
or `TIMEOUT`) and answers the `//` meta-commands.
"""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler, read_help_page
from stringsh.commands.shellreply import call_timeout, to_result
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace import ShellRequest

LABEL = 10


def command_text(ctx: Context) -> str:
    """The header's command and the body's lines, as one bash text."""
    return ctx.request.shell_text(ctx.arg_text)


def run_in_topic_shell(ctx: Context, text: str) -> Result:
    """The engine runs it in the topic's shell (kept in the session), checking the permission and auditing."""
    session = ctx.session
    request = ShellRequest(text, session.topic, call_timeout(ctx), session.exported_variables())
    workspace = ctx.dispatcher.workspace
    return to_result(workspace.shell(request, session))


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
    ctx.dispatcher.workspace.shell_settings()
    ctx.session.bash_mode = True
    return Result(
        "Bash mode on",
        "Every line now goes to this topic's shell. //help lists the meta-commands; //exit returns to String Commands.",
    )


def info_text(ctx: Context) -> str:
    shell = ctx.session.bash
    settings = shell.settings if shell is not None else ctx.dispatcher.workspace.shell_settings()
    pid = shell.pid if shell is not None else None
    variables = ctx.session.exported_variables()
    rows = [
        ("cwd", shell.cwd if shell is not None else str(ctx.dispatcher.root)),
        ("pid", f"{pid} (running)" if pid is not None else "stopped"),
        ("sandbox", settings.sandbox),
        ("env", ctx.dispatcher.workspace.shell_environment()),
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
