"""Every tool's published schemas with their `$defs` inlined: pydantic writes a nested model as a `$ref` into
`$defs`, and a client that checks results (the SDK's client checks every `structuredContent` against the tool's
`outputSchema`) resolves that reference once per item: for `list_directory`'s 1,000 entries that was most of the
call (bench/mcp.py). The inlined schema accepts exactly what the declared one did.

Only a recursive definition (`directory_tree`'s node, whose `children` are nodes) keeps its `$ref`, as it cannot
be written out. An output schema also loses a `type` beside an `enum` whose values all are of that type, which says
nothing the `enum` does not (pydantic writes one for every `Literal`) and costs the client a check per item; an
input schema keeps it, as clients that turn a tool's arguments into a model's function declaration want a `type`
on every property."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

DEFS = "#/$defs/"
#: Keywords beside a `$ref` that only describe (a pydantic field's description and title), never validate.
NOTES = frozenset({"title", "description", "default", "examples", "deprecated"})
TYPES: dict[str, type | tuple[type, ...]] = {"string": str, "boolean": bool, "null": type(None), "array": list,
                                             "object": dict}


def inline(schema: dict[str, Any], *, output: bool = False) -> dict[str, Any]:
    """`schema` with each `#/$defs/...` reference to a definition that is not recursive replaced by the definition
    (a new dict; `schema` is left as it was); `$defs` keeps the recursive ones. `output`: an output schema, whose
    redundant `type`s go too."""
    defs: dict[str, Any] = schema.get("$defs", {})
    recursive = {name for name in defs if name in referred(defs[name], defs, set())}

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        name = local_name(node.get("$ref"), defs)
        if name is not None and name not in recursive:
            siblings = {key: walk(value) for key, value in node.items() if key != "$ref"}
            definition = walk(defs[name])
            if set(siblings) - NOTES & set(definition):  # both constrain one keyword: apply both
                return {"allOf": [definition], **siblings}
            return {**definition, **siblings}
        out = {key: value if key in ("enum", "const") else walk(value) for key, value in node.items()
               if key != "$defs"}
        return without_redundant_type(out) if output else out

    inlined = walk(schema)
    if recursive:
        inlined["$defs"] = {name: walk(defs[name]) for name in defs if name in recursive}
    return inlined


def local_name(ref: Any, defs: dict[str, Any]) -> str | None:
    """The definition a `$ref` names, when it is one of `defs`."""
    if isinstance(ref, str) and ref.startswith(DEFS) and ref[len(DEFS):] in defs:
        return ref[len(DEFS):]
    return None


def referred(node: Any, defs: dict[str, Any], seen: set[str]) -> set[str]:
    """The definitions `node` refers to, directly or through other definitions (`seen`: those walked)."""
    if isinstance(node, list):
        for item in node:
            referred(item, defs, seen)
    elif isinstance(node, dict):
        name = local_name(node.get("$ref"), defs)
        if name is not None and name not in seen:
            seen.add(name)
            referred(defs[name], defs, seen)
        for key, value in node.items():
            if key not in ("$defs", "enum", "const"):
                referred(value, defs, seen)
    return seen


def without_redundant_type(node: dict[str, Any]) -> dict[str, Any]:
    """`node` less a `type` that its `enum` already implies (every value of that JSON type)."""
    kind, values = node.get("type"), node.get("enum")
    if not isinstance(kind, str) or not isinstance(values, list) or kind not in TYPES:
        return node
    if kind != "boolean" and any(isinstance(value, bool) for value in values):
        return node
    if all(isinstance(value, TYPES[kind]) for value in values):
        return {key: value for key, value in node.items() if key != "type"}
    return node


def register(server: MCPServer, calls: object) -> None:
    """Inline every registered tool's input and output schema (run once every tool is in)."""
    del calls
    for tool in server._tool_manager.list_tools():
        tool.parameters = inline(tool.parameters)
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = inline(tool.fn_metadata.output_schema, output=True)
            tool.__dict__.pop("output_schema", None)  # Tool.output_schema is a cached_property of it
