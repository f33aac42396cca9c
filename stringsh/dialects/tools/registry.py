"""The tools `stringsh tools` serves: name → argument schema, handler and the request summary its audit record
keeps (paths and commands, never contents). Handlers take (workspace, checked args, topic) and return the result
object; a refusal is a StringError (its code goes in the reply)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from stringsh.dialects.tools import bash, files, git, history, patch, rename, repomap, search, symbols
from stringsh.dialects.tools.schema import Field

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

Handler = Callable[["Workspace", dict[str, Any], str], dict[str, Any]]


class Tool(NamedTuple):
    name: str
    fields: tuple[Field, ...]
    run: Handler
    #: (paths, command) for the audit record: what was asked, never contents.
    summary: Callable[[dict[str, Any]], tuple[list[str], str | None]]
    about: str


TOOLS: dict[str, Tool] = {tool.name: tool for tool in (
    Tool("bash", bash.FIELDS, bash.run, bash.summary, "run a command: stdout, stderr, exit_code, duration_ms"),
    Tool("read", files.READ_FIELDS, files.read, files.path_summary, files.READ_ABOUT),
    Tool("write", files.WRITE_FIELDS, files.write, files.path_summary, files.WRITE_ABOUT),
    Tool("edit", files.EDIT_FIELDS, files.edit, files.path_summary, files.EDIT_ABOUT),
    Tool("apply_patch", patch.FIELDS, patch.apply_patch, patch.summary, patch.ABOUT),
    Tool("glob", search.GLOB_FIELDS, search.glob, search.summary, "files matching a pattern, newest first"),
    Tool("grep", search.GREP_FIELDS, search.grep, search.summary, "lines matching a regular expression"),
    Tool("git", git.FIELDS, git.run, git.summary, "status, diff, log, commit, push, checkout"),
    Tool("symbols", symbols.SYMBOLS_FIELDS, symbols.symbols, symbols.summary, symbols.SYMBOLS_ABOUT),
    Tool("definition", symbols.DEFINITION_FIELDS, symbols.definition, symbols.symbol_summary,
         symbols.DEFINITION_ABOUT),
    Tool("read_symbol", symbols.READ_FIELDS, symbols.read_symbol, symbols.symbol_summary, symbols.READ_ABOUT),
    Tool("edit_symbol", symbols.EDIT_FIELDS, symbols.edit_symbol, symbols.symbol_summary, symbols.EDIT_ABOUT),
    Tool("rename", rename.FIELDS, rename.rename, rename.summary, rename.ABOUT),
    Tool("map", repomap.FIELDS, repomap.repo_map, repomap.summary, repomap.ABOUT),
    Tool("changes", history.CHANGES_FIELDS, history.changes, history.summary, history.CHANGES_ABOUT),
    Tool("revert", history.REVERT_FIELDS, history.revert, history.summary, history.REVERT_ABOUT),
    Tool("undo", history.UNDO_FIELDS, history.undo, history.summary, history.UNDO_ABOUT),
)}
