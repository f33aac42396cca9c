"""/topics (and its alias /sessions): this client's topics and what each has open, in String's layout; and
/session close, which ends one.

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


@handler("session")
def session_close(ctx: Context) -> Result:
    """`/session close [topic]`: this topic starts afresh (document, history, variables, shortcuts, reads and shell
    dropped), or another topic of this client is ended and forgotten (a later request in its name starts anew)."""
    if not ctx.args or ctx.args[0].lower() != "close" or len(ctx.args) > 2:
        raise StringError("INVALID_PAYLOAD", "Usage: /session close [topic]", "/topics lists this client's topics.")
    name = ctx.args[1] if len(ctx.args) == 2 else ctx.session.topic
    if name == ctx.session.topic:
        session = ctx.session
        session.close()
        session.seen.clear()
        session.known.clear()
        session.seen_navs.clear()
        session.bash_mode = False
        return Result(f"Session closed: {name}")
    if all(s.topic != name for s in ctx.dispatcher.topic_sessions()):
        raise StringError("NOT_FOUND", f"No such topic: {name}", "/topics lists this client's topics.")
    ctx.dispatcher.end_topic(name)
    return Result(f"Session closed: {name}")
