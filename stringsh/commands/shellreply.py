"""Shell results as replies, shared by `!`/`/bash` and `/exec` (a neutral module: commands never import each other)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.commands.context import Context
    from stringsh.workspace import ShellResult

#: Session variable with a per-call timeout in seconds for the shell front ends (invalid: the policy default).
TIMEOUT_VARIABLE = "_timeout"


def call_timeout(ctx: Context) -> float | None:
    """`{_timeout}` in seconds when it is a positive number, else None (the policy's timeout)."""
    raw = ctx.session.variables.get(TIMEOUT_VARIABLE, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if 0 < value < 1e6 else None


def to_result(result: ShellResult) -> Result:
    """`exit: N | cwd: /abs` + content; `EXIT_N` when N is not 0, `TIMEOUT` (exit 124) past the deadline.
    The output is masked with the reply (protocol/response.py): a token a command prints is masked like one in a
    file."""
    return Result(result.message, result.content, ok=result.ok, code=result.code)
