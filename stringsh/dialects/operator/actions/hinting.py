"""A refusal's hint in OPERATOR_CMD's own terms: each step of a hint given as data (`errors.Step`) worded as the action
to send next with its fields (`fs.readSlice {"path": "a.md", "start": 1}`), or in words where no action does it (the
protocol has no shell, undo or change journal of its own: another front end's). Only a hint given as data is shown
(in the refusal's details: its summary is one line); a hint that is text only was written for String Commands."""

from __future__ import annotations

from stringsh.errors import Step, StringError
from stringsh.hints import program_names, tool_call

#: The lines fs.readSlice shows at most, for a window of a file past fs.read's limit.
SLICE = 400
#: Where a step the protocol has no action for is done.
ELSEWHERE = "(not an OPERATOR_CMD action: another front end's)"


def operator_hint(exc: StringError) -> str | None:
    """The hint of `exc` as an OPERATOR_CMD client reads it; None when it is text only (or there is none)."""
    return None if exc.steps is None else exc.steps.render(operator_step)


def _symbol(target: str) -> dict[str, object]:
    path, _, symbol = target.partition("#")
    return {"path": path, "symbol": symbol}


def operator_step(step: Step) -> str:
    """One step as an OPERATOR_CMD action and its fields, or words where no action does it."""
    verb = step.verb
    if verb == "read":
        if step.path is None:
            return "fs.readSlice with start and lines"
        if step.start is not None:
            return tool_call("fs.readSlice", {"path": step.path, "start": step.start,
                                              "lines": (step.end or step.start) - step.start + 1})
        if step.window:
            return tool_call("fs.readSlice", {"path": step.path, "start": 1, "lines": SLICE})
        return tool_call("fs.read", {"path": step.path})
    if verb == "list":
        return tool_call("fs.list", {"path": step.path or "."})
    if verb == "stat":
        return tool_call("fs.stat", {"path": step.path}) if step.path else "fs.stat"
    if verb == "view":
        if "#" in step.target:
            return tool_call("fs.readSymbol", _symbol(step.target))
        return tool_call("fs.readSlice", {"path": step.target, "start": 1, "lines": SLICE})
    if verb in ("edit", "force"):
        if "#" not in step.target:
            return tool_call("fs.applyEdits", {"path": step.target}) if verb == "edit" else \
                "(no force for this action: fs.write replaces the whole file)"
        args = _symbol(step.target)
        args.update({"position": step.where.removeprefix("--")} if step.where else {})
        args.update({"force": True} if verb == "force" else {})
        return tool_call("fs.editSymbol", args)
    if verb == "beside":
        return tool_call("fs.editSymbol", {**_symbol(step.target), "position": "after"}) + " (or before)"
    if verb == "undo":
        return f"an undo{' with skip' if step.skip else ''} {ELSEWHERE}"
    if verb == "changes":
        return f"the change list {ELSEWHERE}"
    if verb == "revert":
        return f"a revert of change {step.change} {ELSEWHERE}"
    if verb == "write_parts":
        return "fs.write with the first part, then fs.applyEdits to add the rest after its last line"
    if verb == "programs":
        return program_names(step.command, "a shell's")
    if verb == "shell":
        import json  # a hint's, on first use

        return f"{json.dumps(step.command, ensure_ascii=False)} (not an OPERATOR_CMD action: a shell's)"
    raise ValueError(f"unknown hint verb {verb!r}")
