"""A refusal's hint in MCP's own terms: each step of a hint given as data (`errors.Step`) worded as the tool an MCP
client calls next and its JSON arguments (`read_text_file {"path": "a.md"}`, `undo {"skip": true}`, `bash
{"command": "iconv …"}`), or in words where no tool does it; never a String Command. A hint that is text only is
shown as it is. `tool` is the tool that was refused: a step redoing its edit names that tool."""

from __future__ import annotations

from stringsh.errors import Step, StringError
from stringsh.hints import shared_tool_step, tool_call

#: The tools whose edits a `force` step can redo with `"force": true`.
FORCING = ("replace_symbol", "insert_symbol")
#: The tools of source files' definitions, whose targets view_symbol shows.
SYMBOL_TOOLS = (*FORCING, "view_symbol")
#: The tools that edit one part (a block, a symbol, lines), for an `edit` step redoing the refused one.
PART_EDITS = ("edit_block", "replace", "replace_symbol", "insert_symbol")


def mcp_hint(exc: StringError, tool: str | None = None) -> str | None:
    """The hint of `exc` as an MCP client reads it."""
    return exc.worded(lambda step: mcp_step(step, tool))


def mcp_step(step: Step, tool: str | None = None) -> str:
    """One step as an MCP tool call, or words where no tool does it."""
    verb = step.verb
    if verb == "read":
        return _read(step)
    if verb == "list":
        return tool_call("list_directory", {"path": step.path or "."})
    if verb == "stat":
        return tool_call("get_file_info", {"path": step.path}) if step.path else "get_file_info"
    if verb == "view":
        if "#" not in step.target:  # a file's lines, counted from 1 (no MCP tool numbers a whole file)
            return tool_call("read_text_file", {"path": step.target})
        return tool_call("view_symbol" if tool in SYMBOL_TOOLS else "open", {"target": step.target})
    if verb in ("edit", "force"):
        return _edit(step, tool)
    if verb == "beside":
        return tool_call("insert_symbol", {"target": step.target, "position": "after"}) + " (or before)"
    if verb == "write_parts":
        return "write_file with the first part, then edit_file to add the rest after its last line"
    shared = shared_tool_step(verb, step.skip, step.change, step.command)
    if shared is None:
        raise ValueError(f"unknown hint verb {verb!r}")
    return shared


def _read(step: Step) -> str:
    """A whole file with read_text_file; lines or a window of a long file with open, which pages it."""
    if step.path is None:
        return "open with fromLine and toLine"
    if step.start is not None:
        return tool_call("open", {"target": step.path, "fromLine": step.start, "toLine": step.end or step.start})
    if step.window:
        return tool_call("open", {"target": step.path, "fromLine": 1})
    return tool_call("read_text_file", {"path": step.path})


def _edit(step: Step, tool: str | None) -> str:
    """The refused edit again: on the same tool where it edits parts, else the tool for the kind of target."""
    position = step.where.removeprefix("--")
    if step.verb == "force" or position:
        name = "insert_symbol" if position else tool if tool in FORCING else "replace_symbol"
        if step.verb == "force" and "#" not in step.target:
            return f"(no force for {tool or 'this tool'}: write_file replaces the whole file)"
        args: dict[str, object] = {"target": step.target}
        args.update({"position": position} if position else {})
        args.update({"force": True} if step.verb == "force" else {})
        return tool_call(name, args)
    name = tool if tool in PART_EDITS else "edit_block" if "#" in step.target else "replace"
    return tool_call(name, {"target": step.target})
