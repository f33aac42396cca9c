"""A refusal's hint in the JSON tools' own terms: each step of a hint given as data (`errors.Step`) worded as the
tool called next and its arguments as the tool's schema names them (`read {"file_path": "a.md"}`, `undo {"skip":
true}`, `bash {"command": "iconv …"}`), or in words where no tool does it; never a String Command. A hint that is
text only is shown as it is."""

from __future__ import annotations

from stringsh.errors import Step, StringError
from stringsh.hints import shared_tool_step, shell_command, tool_call

#: The lines a window of a file too large for `read` shows through `bash` (as many as /open shows at once).
WINDOW = 400


def tools_hint(exc: StringError) -> str | None:
    """The hint of `exc` as a JSON tools client reads it."""
    return exc.worded(tools_step)


def _symbol(target: str) -> dict[str, object]:
    """`path#Symbol` as the symbol tools' arguments."""
    path, _, symbol = target.partition("#")
    return {"file_path": path, "symbol": symbol}


def tools_step(step: Step) -> str:
    """One step as a JSON tool call, or words where no tool does it."""
    verb = step.verb
    if verb == "read":
        return _read(step)
    if verb == "list":
        return tool_call("read", {"file_path": step.path or "."})
    if verb == "stat":
        return tool_call("bash", {"command": shell_command("ls -l {rel}", rel=step.path)}) if step.path else \
            "bash's ls -l"
    if verb == "view":
        if "#" in step.target:
            return tool_call("read_symbol", _symbol(step.target))
        return tool_call("read", {"file_path": step.target})
    if verb in ("edit", "force"):
        if "#" not in step.target:
            return tool_call("edit", {"file_path": step.target}) if verb == "edit" else \
                "(no force for this tool: write replaces the whole file)"
        args = _symbol(step.target)
        args.update({"position": step.where.removeprefix("--")} if step.where else {})
        args.update({"force": True} if verb == "force" else {})
        return tool_call("edit_symbol", args)
    if verb == "beside":
        return tool_call("edit_symbol", {**_symbol(step.target), "position": "after"}) + " (or before)"
    if verb == "write_parts":
        return "write with the first part, then edit to add the rest after its last line"
    shared = shared_tool_step(verb, step.skip, step.change, step.command)
    if shared is None:
        raise ValueError(f"unknown hint verb {verb!r}")
    return shared


def _read(step: Step) -> str:
    """A file's lines with read's offset and limit; a window of a file past the read limit through bash (read
    reads a file whole)."""
    if step.path is None:
        return f"bash's sed -n (a window of {WINDOW} lines)"
    if step.start is not None:
        return tool_call("read", {"file_path": step.path, "offset": step.start,
                                  "limit": (step.end or step.start) - step.start + 1})
    if step.window:
        return tool_call("bash", {"command": shell_command(f"sed -n 1,{WINDOW}p {{rel}}", rel=step.path)})
    return tool_call("read", {"file_path": step.path})
