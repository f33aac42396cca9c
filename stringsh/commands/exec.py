"""/exec: one stateless `bash -c` in the workspace root, with the shell's reply format and limits."""

from __future__ import annotations

import re

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.shellreply import call_timeout, to_result
from stringsh.errors import StringError
from stringsh.protocol.request import substitute
from stringsh.protocol.response import Result
from stringsh.workspace.ops.shell import ShellRequest

TIMEOUT_FLAG = re.compile(r"^--timeout[= ](\S+)\s*")


@handler("exec")
def exec_command(ctx: Context) -> Result:
    text = substitute(ctx.arg_text, ctx.session.variables)  # like every command: the header, never the body
    timeout = call_timeout(ctx)
    flag = TIMEOUT_FLAG.match(text)
    if flag:
        try:
            timeout = float(flag.group(1))
        except ValueError:
            timeout = -1.0
        if not 0 < timeout < 1e6:
            raise StringError(
                "INVALID_PAYLOAD", f"--timeout must be a positive number of seconds, got: {flag.group(1)}"
            )
        text = text[flag.end() :]
    text = ctx.request.shell_text(text)
    if not text.strip():
        raise StringError("INVALID_PAYLOAD", "Nothing to run.", "Usage: /exec <command>, e.g. /exec ls -la")

    request = ShellRequest(text, ctx.session.topic, timeout, ctx.session.exported_variables())
    workspace = ctx.dispatcher.workspace
    return to_result(workspace.exec_once(request))
