"""/exec: one stateless `bash -c` in the topic's folder (String's rule), with the shell's reply format and limits."""

from __future__ import annotations

import re

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.shellreply import call_timeout, to_result
from stringsh.errors import StringError
from stringsh.protocol.request import substitute
from stringsh.protocol.response import Result
from stringsh.workspace import ShellRequest

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

    workspace = ctx.dispatcher.workspace
    workdir = exec_folder(ctx)
    request = ShellRequest(text, ctx.session.topic, timeout, ctx.session.exported_variables(), workdir)
    return to_result(workspace.exec_once(request))


def exec_folder(ctx: Context) -> str:
    """String's rule: the folder `/open <folder>` entered, else the open document's, else the root. A page a server
    returned, a folder of another root or one that no longer exists leaves the workspace root."""
    view = ctx.session.document
    if ctx.session.cwd_override is None and view is not None and view.remote:
        return "."
    folder = ctx.documents.folder
    if not folder or ":" in folder.split("/", 1)[0]:
        return "."
    info = ctx.dispatcher.workspace.stat(folder)
    return folder if info is not None and info.is_dir else "."
