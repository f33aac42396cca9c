"""The call interface of actions as String prints it: `/act.<id>`, a description, one line per flag.

Method, target, headers, body and template are implementation and stay hidden (`/source` shows them).
"""

from __future__ import annotations

from stringsh.actions.model import Action
from stringsh.actions.shellscan import RULE


def render_action(action: Action) -> str:
    lines = [f"/act.{action.id}"]
    if action.description:
        lines.append(f"   {action.description}")
    for f in action.fields:
        alias = f"-{f.short}, " if f.short else ""
        need = "(required)" if f.required else "(optional)" if f.default is None else f"(optional, default {f.default})"
        about = f" — {f.description}" if f.description else ""
        lines.append(f"   {alias}--{f.name} <{f.type}> {need}{about}")
    if not action.fields:
        lines.append("   (no flags)")
    lines += [f"   refused: {problem}" for problem in action.problems]
    if action.problems:
        lines.append(f"   {RULE}")
    return "\n".join(lines)


def render_actions(actions: list[Action]) -> str:
    """The body of `/act`: every schema, separated by blank lines."""
    if not actions:
        return "No actions defined on this page."
    return "\n\n".join(render_action(action) for action in actions)


def usage(action: Action) -> str:
    """The short usage block shown under flag errors."""
    return "\n".join(f"  --{f.name} <{f.type}>{' (required)' if f.required else ''}" for f in action.fields)


def hint_line(actions: list[Action]) -> str:
    """The `[actions]` line a rendered page starts with."""
    names = ", ".join(action.id for action in actions)
    return f"[actions] {names}  ·  /act --help (all)  ·  /act.<name> --help"
