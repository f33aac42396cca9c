"""/set: session variables `{name}`, substituted into later commands and exported to the shell; persistent `$NAME`.

`$NAME` values live in the user's config directory (see stringsh.actions.envstore), never in the workspace, and
are masked in every reply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from stringsh.actions import envstore
from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.render.blocks import closes_fence

NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
ASSIGNMENT = re.compile(
    rf"^(?:\{{(?P<braced>{NAME})\}}|\$(?P<env>[A-Z_][A-Z0-9_]*)|(?P<bare>{NAME}))\s*=\s*(?P<value>.*)$"
)
FENCE_OPEN = re.compile(rf"^(?P<fence>`{{3,}}|~{{3,}})\s*(?:\{{(?P<braced>{NAME})\}}|\$(?P<env>[A-Z_][A-Z0-9_]*))\s*$")
ASSIGN_HINT = 'Write {name} = "value", name = value, or a fence ```{name} … ``` for several lines.'


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def parse_assignments(text: str) -> Iterator[tuple[str, str, bool]]:
    """Yield (kind, name, value) for each assignment line or fenced block; kind is `{` or `$`."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        stripped = line.strip()
        if not stripped:
            continue
        fence = FENCE_OPEN.match(stripped) if stripped.startswith(("```", "~~~")) else None
        if fence:
            value_lines: list[str] = []
            while index < len(lines) and not closes_fence(line.strip(), lines[index].strip()):
                value_lines.append(lines[index].rstrip("\r"))
                index += 1
            if index >= len(lines):
                raise StringError("INVALID_PAYLOAD", f"Unclosed fence for {line.strip()}", ASSIGN_HINT)
            index += 1
            kind = "$" if fence.group("env") else "{"
            yield kind, fence.group("env") or fence.group("braced"), "\n".join(value_lines)
            continue
        match = ASSIGNMENT.match(stripped)
        if not match:
            raise StringError("INVALID_PAYLOAD", f"Invalid assignment: {stripped}", ASSIGN_HINT)
        env, braced, bare, value = match.group("env", "braced", "bare", "value")
        yield ("$" if env else "{"), env or braced or bare, _unquote(value)


def echo(name: str, value: str) -> str:
    if "\n" in value:
        return f"{{{name}}} = ({value.count(chr(10)) + 1} lines)"
    return f'{{{name}}} = "{value}"'


def env_store(ctx: Context) -> envstore.EnvStore:
    """The persistent store; refused when the config directory lies inside the workspace (secrets stay out)."""
    store = envstore.EnvStore()
    try:
        inside = store.directory.resolve().is_relative_to(ctx.dispatcher.root.resolve())
    except OSError:
        inside = False
    if inside:
        raise StringError(
            "NOT_PERMITTED",
            f"The variable store {store.directory} is inside the workspace; $NAME values are never written there.",
            "Point STRINGSH_CONFIG_DIR at a folder outside the workspace.",
        )
    return store


@handler("set")
def set_variables(ctx: Context) -> Result:
    arg_text, body = ctx.arg_text, ctx.body or ""
    text = "\n".join(part for part in (arg_text, body) if part.strip()) if body else arg_text
    variables = ctx.session.variables
    scope = envstore.scope_for_topic(ctx.session.topic)
    if not text.strip():
        persistent = env_store(ctx).items(scope)
        if not variables and not persistent:
            return Result("No variables set.")
        lines = [echo(name, value) for name, value in variables.items()]
        lines += [envstore.echo(name, where) for name, _, where in persistent]
        return Result("Variables", "\n".join(lines))  # a value that is a key is masked with the reply
    assignments = list(parse_assignments(text))
    store = env_store(ctx) if any(kind == "$" for kind, _, _ in assignments) else None
    echoes = []
    for kind, name, value in assignments:
        if kind == "$" and store is not None:
            store.set(name, value, scope)
            echoes.append(envstore.echo(name, scope))
        else:
            variables[name] = value
            echoes.append(echo(name, value))
    return Result("\n".join(echoes))
