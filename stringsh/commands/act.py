"""/act: list the open page's actions, show one's flags, or run it (the running lives in stringsh.documents.actions,
which /open also uses for front matter `default:`)."""

from __future__ import annotations

from stringsh.actions.schema import render_actions
from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.actions import invoke, page_actions, remote_cli_action
from stringsh.errors import StringError
from stringsh.protocol.response import Result

NO_DOCUMENT = "No document open. Use /open <uri> first."


@handler("act")
def act(ctx: Context) -> Result:
    view = ctx.documents.current(NO_DOCUMENT, None)
    text = ctx.arg_text.strip()
    actions = page_actions(view)
    if not text or text in ("--help", "-h"):
        return Result("Actions", render_actions(actions))
    ident, _, flag_text = text.partition(" ")
    action = next((a for a in actions if a.id == ident), None)
    if action is None and remote_cli_action(view, ident):
        raise StringError(
            "NOT_PERMITTED", f"Remote SFMD can only run HTTP actions: /act.{ident} is a CLI action.",
            "A page a server returned never runs commands here; copy the action into a workspace document to run it.",
        )
    if action is None:
        available = ", ".join(a.id for a in actions) or "none"
        tail = "Use /act.<name> --help to inspect an action." if actions else "No actions defined on current document."
        raise StringError("NOT_FOUND", f'Action not found: "{ident}"', f"Available: {available}\n{tail}")
    return invoke(ctx.documents, view, action, flag_text.strip())
