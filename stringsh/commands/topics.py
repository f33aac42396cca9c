"""/topics (and its alias /sessions): this client's topics and what each has open, in String's layout.

A daemon keeps one session per topic for the client on its pipes; a REPL or script has the topics it used.
"""

from __future__ import annotations

import os

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.session import Session

#: String's type filters; this stringsh has no `app:` topics or hubs, so those lists are empty.
KINDS = ("tab", "app", "bash", "hub")


def state(session: Session, root: str) -> str:
    """`current: <what is open>` for a tab, `cwd: <shell folder>` for a bash topic."""
    if session.kind == "bash":
        shell = session.bash
        where = shell.cwd if shell is not None else root
        rel = os.path.relpath(where, root)
        shown = "./" if rel == "." else (f"./{rel}/" if not rel.startswith("..") else where)
        return f"cwd: {shown}"
    view = session.document
    return f"current: {view.label if view is not None else '(none)'}"


@handler("topics")
def topics(ctx: Context) -> Result:
    name = ctx.invocation.name
    if len(ctx.args) > 1:
        raise StringError("INVALID_PAYLOAD", f"Usage: /{name} [{' | '.join(KINDS)}]")
    kind = ctx.args[0].lower() if ctx.args else None
    if kind is not None and kind not in KINDS:
        raise StringError(
            "INVALID_PAYLOAD", f"Unknown topic type: {ctx.args[0]}", f"Use one of: {', '.join(KINDS)}, or none for all."
        )
    root = str(ctx.dispatcher.root)
    sessions = [s for s in ctx.dispatcher.topic_sessions() if kind is None or s.kind == kind]
    count = len(sessions)
    if kind is None:
        rows = [f"  {s.topic:<20} {s.kind:<7} {state(s, root)}" for s in sessions]
        footer = f"{count} topic{'' if count == 1 else 's'} open."
        text = "\n".join(["Active topics:", "", *rows, "", footer])
    else:
        rows = [f"  {s.topic:<20} {state(s, root)}" for s in sessions]
        footer = f"{count} {kind} topic{'' if count == 1 else 's'} open."
        text = "\n".join([*rows, "", footer]) if rows else footer
    return Result(text)  # an open page's URL can carry a token: masked with the reply


@handler("sessions")
def sessions(ctx: Context) -> Result:
    """String's plural alias: the same listing, the same filter."""
    return topics(ctx)
