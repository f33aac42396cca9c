"""The OPERATOR_CMD actions on the engine: `run_action` runs one well-formed `Command` (operator_blocks.py checked it
against `ACTIONS`) and always returns a `Result`. Every file operation is one `Workspace` call (policy, secrets,
journal, audit), made inside one `operator` request (Workspace.request); a mutation asks `confirm` first, with
the diff of exactly what will change. Every failure is `ok: false` with a one-line summary, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from stringsh.dialects.operator.actions.common import Refused, error_summary, invalid, one_line
from stringsh.dialects.operator.actions.hinting import operator_hint
from stringsh.errors import StringError
from stringsh.protocol.operator_model import ACTIONS, Command, Confirmer, Result

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

__all__ = ["run_action"]

Reader = Callable[["Workspace", Command, str], Result]
Writer = Callable[["Workspace", Command, Confirmer, str], Result]


def _spec(workspace: Workspace, command: Command, topic: str) -> Result:
    from stringsh.protocol.operator_spec import interface_spec

    return Result(command.id, True, "Interface spec", interface_spec())


def _readers() -> dict[str, Reader]:
    from stringsh.dialects.operator.actions import reading, repomap, symbols

    return {"operator.getInterfaceSpec": _spec, "fs.list": reading.fs_list, "fs.read": reading.fs_read,
            "fs.readSlice": reading.fs_read_slice, "fs.search": reading.fs_search, "fs.stat": reading.fs_stat,
            "fs.symbols": symbols.fs_symbols, "fs.findDefinition": symbols.fs_find_definition,
            "fs.readSymbol": symbols.fs_read_symbol,
            "fs.map": repomap.fs_map}


def _writers() -> dict[str, Writer]:
    from stringsh.dialects.operator.actions import edits, symbols, tree, writing

    return {"fs.write": writing.fs_write, "fs.patch": writing.fs_patch, "fs.applyEdits": edits.fs_apply_edits,
            "fs.editSymbol": symbols.fs_edit_symbol, "fs.renameSymbol": symbols.fs_rename_symbol,
            "fs.delete": tree.fs_delete, "fs.copy": tree.fs_copy, "fs.move": tree.fs_move,
            "fs.rename": tree.fs_move}


#: The policy permissions each change needs (the engine checks them again when it writes): checked before the
#: confirmer is asked, so no one is asked to approve what the policy refuses anyway.
PERMISSIONS: dict[str, tuple[str, ...]] = {
    "fs.write": ("write",), "fs.patch": ("write", "patch"), "fs.applyEdits": ("write", "edit"),
    "fs.editSymbol": ("write", "edit"), "fs.renameSymbol": ("write", "edit"),
    "fs.delete": ("delete",), "fs.copy": ("write",), "fs.move": ("move",), "fs.rename": ("move",),
}


def _permitted(workspace: Workspace, action: str) -> None:
    workspace.permit(*PERMISSIONS[action], mutating=True)


def run_action(workspace: Workspace, command: Command, confirm: Confirmer, *, topic: str,
               agent: str | None = None) -> Result:
    """Run `command` in `topic` (the journal's undo scope); `confirm` is asked before any change. One request of
    the `operator` dialect (by `agent` when named), journalled and audited as such; inside an outer request (a
    block sent to the String Commands loop) it is part of that one."""
    paths = [command.fields[key] for key in ("path", "path_to") if key in command.fields]
    with workspace.request("operator", f"operator.{command.action}", topic=topic,
                           command=" ".join([command.action, *paths]), agent=agent, paths=paths) as ctx:
        try:
            return _run(workspace, command, confirm, topic)
        except Refused as exc:
            ctx.fail(exc.outcome)
            return Result(command.id, False, one_line(exc.summary), exc.details)
        except StringError as exc:
            ctx.fail(exc.code)
            return Result(command.id, False, error_summary(exc), operator_hint(exc))
        except Exception as exc:
            ctx.fail(f"INTERNAL_ERROR:{type(exc).__name__}")
            return Result(command.id, False, one_line(f"INTERNAL_ERROR: {type(exc).__name__}: {exc}"))


def _run(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    if command.action not in ACTIONS:
        raise invalid("ERR_UNKNOWN_ACTION", f"Unknown action: {command.action}")
    if ACTIONS[command.action].needs_path != bool(command.path):  # the parser checks this; a library caller may not
        code, detail = (("ERR_ACTION_REQUIRES_PATH", "fs.* actions require path.") if not command.path else
                        ("ERR_ACTION_FORBIDS_PATH", "operator.* actions must not include path."))
        raise invalid(code, detail)
    if ACTIONS[command.action].mutates:
        _permitted(workspace, command.action)
        return _writers()[command.action](workspace, command, confirm, topic)
    return _readers()[command.action](workspace, command, topic)
