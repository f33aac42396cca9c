"""/help: the command listing and each command's page, generated from the dispatcher's command table."""

from __future__ import annotations

from collections.abc import Mapping

from stringsh.commands.context import Context
from stringsh.commands.registry import SECTIONS, handler, read_help_page
from stringsh.commands.table import CommandSpec
from stringsh.errors import ERROR_CODES, StringError
from stringsh.protocol.response import Result


def listing(commands: Mapping[str, CommandSpec]) -> str:
    visible = [cmd for cmd in commands.values() if not cmd.hidden]
    width = max(len(cmd.syntax) for cmd in visible)
    parts = ["## String Commands"]
    for section in SECTIONS:
        members = sorted((cmd for cmd in visible if cmd.section == section), key=lambda cmd: cmd.syntax)
        if members:
            parts.append(f"\n### {section}\n" + "\n".join(f"{cmd.syntax:<{width}}  {cmd.summary}" for cmd in members))
    parts.append(
        "\nUse /help <command> for a page, /help errors for error codes, /help bash for the shell.\n"
        "A request is one header line, optionally prefixed by [id]; lines after it, or a <<EOF heredoc, are its body."
    )
    return "\n".join(parts)


def page_actions_section(ctx: Context) -> str:
    """String's "Actions on this page" after the listing: one `/act.<id>` line per action of the open page with
    its required flags (`-x/--name <type>`); "" when the page has none. `/act.<id> --help` shows every flag."""
    view = ctx.documents.current_or_none()
    if view is None or view.kind != "markdown" or not view.index.actions:
        return ""
    from stringsh.documents.actions import page_actions

    lines = []
    for action in page_actions(view):
        flags = [f"{f'-{f.short}/' if f.short else ''}--{f.name} <{f.type}>" for f in action.fields if f.required]
        lines.append(" ".join([f"/act.{action.id}", *flags]))
    return "\n\n## Actions on this page\n" + "\n".join(lines) if lines else ""


def errors_page() -> str:
    width = max(len(code) for code in ERROR_CODES)
    lines = [f"{code:<{width}}  {meaning}" for code, meaning in ERROR_CODES.items()]
    return "Every error is one line ERROR(CODE): message, sometimes followed by a hint line.\n\n" + "\n".join(lines)


def find_command(commands: Mapping[str, CommandSpec], word: str) -> CommandSpec | None:
    name = word.lstrip("/").lower()
    if name.startswith("act."):
        name = "act"
    return commands.get(name)


@handler("help")
def help_command(ctx: Context) -> Result:
    commands = ctx.dispatcher.commands
    if not ctx.args:
        return Result("String Commands", listing(commands) + page_actions_section(ctx))
    topic = ctx.args[0].lower()
    if topic == "errors":
        return Result("Error Codes", errors_page())
    if topic in ("bash", "!", "shell"):
        return Result("Bash Session", read_help_page("bash"))
    if topic in ("operator", "operator_cmd"):
        from stringsh.protocol.operator_spec import interface_spec

        return Result("OPERATOR_CMD Blocks", f"{read_help_page('operator')}\n{interface_spec()}")
    found = find_command(commands, topic)
    if found is None:
        raise StringError("NOT_FOUND", f"No help for: {ctx.args[0]}", "Use /help to list every command.")
    return Result(f"Help: /{found.name}", f"{found.syntax}\n\n{found.help_text()}")
