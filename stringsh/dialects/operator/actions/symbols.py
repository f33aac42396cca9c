"""fs.symbols, fs.findDefinition, fs.readSymbol, fs.editSymbol and fs.renameSymbol: a source file's definitions
(render/code/) as OPERATOR_CMD actions, on the engine operations `/symbols`, `/symbols --def`, `/open path#Symbol`,
`/edit path#Symbol` and `/rename`
use (documents/symbolsearch.py, scopedrefs.py, symboledit.py and rename.py), so the walk, masking, refusals and
journal are theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.symbolrefs import ref_line
from stringsh.dialects.operator.actions.common import ask, invalid, ok, unified
from stringsh.errors import StringError
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Confirmer, Result
    from stringsh.render.code.index import SymbolIndex
    from stringsh.workspace import TextFile, Workspace

POSITIONS = {"replace": None, "before": "--before", "after": "--after"}


def _flag(command: Command, name: str) -> bool:
    value = command.fields.get(name, "false").strip().lower()
    if value not in ("true", "false"):
        raise invalid("ERR_INVALID_FLAG", f"{name} must be true or false.")
    return value == "true"


def fs_symbols(workspace: Workspace, command: Command, topic: str) -> Result:
    """Definitions matching `query` under `path` (a folder or file), or with `refs: true` identifiers spelled so."""
    from stringsh.documents.symbolsearch import search

    query = (command.fields.get("query") or command.fields.get("q") or "").strip()
    if not query:
        raise invalid("ERR_MISSING_QUERY", "missing query; use query: <text>.")
    refs = _flag(command, "refs")
    if refs and "#" in query:
        return _attributed(workspace, command, query, topic)
    found = search(workspace, query, [command.fields["path"]], refs=refs, topic=topic)
    if refs:
        lines = [ref_line(r, query) for r in found.refs]
        summary = f"Found {len(found.refs)} references (syntactic)"
    else:
        lines = [f"{shown_name(h.path)}:L{h.symbol.start + 1}-L{h.symbol.end} {h.symbol.kind} #{h.symbol.id}"
                 for h in found.hits]
        summary = f"Found {len(found.hits)} symbols"
    head = [f"# symbols in {found.path}", f"# query: {query}",
            f"# matches: {len(lines)}{' (truncated)' if found.truncated else ''}", ""]
    return ok(command, summary, "\n".join(head + lines))


def fs_find_definition(workspace: Workspace, command: Command, topic: str) -> Result:
    """The definitions of the name at `line` and `column` of the file at `path` (1-based, as fs.symbols with
    `refs: true` lists them)."""
    from stringsh.documents.scopedrefs import definitions_at

    line, column = (command.fields.get(key, "").strip() for key in ("line", "column"))
    if not (line.isdigit() and column.isdigit() and int(line) > 0 and int(column) > 0):
        raise invalid("ERR_INVALID_POSITION", "line and column must be whole numbers from 1.")
    path = command.fields["path"]
    jump = definitions_at(workspace, f"{path}:{line}:{column}", topic=topic)
    rows = [f"{d.rel}:{d.line}:{d.column}: {d.kind}{' #' + d.id if d.id else ''}" for d in jump.found]
    head = [f"# definition of {jump.name} at {path}:{line}:{column}", f"# found: {jump.how}",
            f"# definitions: {len(rows)}", ""]
    return ok(command, f"Found {len(rows)} definition{'' if len(rows) == 1 else 's'}", "\n".join(head + rows))


def _attributed(workspace: Workspace, command: Command, query: str, topic: str) -> Result:
    """refs of `file#id`: the references attributable to that definition, then the ambiguous ones."""
    from stringsh.commands.symbolrefs import attributed_lines
    from stringsh.documents.scopedrefs import attributed

    attribution, _traversal, texts = attributed(workspace, query, [command.fields["path"]],
                                                command=f"symbols --refs {query}", topic=topic)
    sites, ambiguous = attributed_lines(workspace, attribution, texts)
    head = [f"# references to {shown_name(attribution.rel)}#{attribution.symbol.id} in {command.fields['path']}",
            f"# sites: {len(sites)}", f"# ambiguous: {len(ambiguous)}", ""]
    body = sites + (["", "# ambiguous (syntax cannot tell):", *ambiguous] if ambiguous else [])
    return ok(command, f"Found {len(sites)} references ({len(ambiguous)} ambiguous)", "\n".join(head + body))


def _source(workspace: Workspace, command: Command, topic: str) -> tuple[TextFile, SymbolIndex, str]:
    from stringsh.render.code.cache import symbol_cache
    from stringsh.render.code.suffixes import language_of

    symbol = command.fields.get("symbol", "").strip()
    if not symbol:
        raise invalid("ERR_MISSING_SYMBOL", "missing symbol; use symbol: <id> (fs.symbols lists them).")
    file = workspace.read_text(command.fields["path"], topic=topic)
    language = language_of(file.rel, file.text)
    if language is None:
        raise StringError("BLOCK_NOT_FOUND", f"{file.rel} is not a source file stringsh indexes")
    return file, symbol_cache(None).symbols(file.text, language, file.sha256), symbol


def fs_read_symbol(workspace: Workspace, command: Command, topic: str) -> Result:
    """One definition, numbered with the file's line numbers, secrets masked; `plain: true`, its lines alone (the
    body fs.editSymbol takes back)."""
    from stringsh.documents.symbolbody import symbol_body

    plain = _flag(command, "plain")
    name = command.fields.get("symbol", "").strip()
    if not name:
        raise invalid("ERR_MISSING_SYMBOL", "missing symbol; use symbol: <id> (fs.symbols lists them).")
    body = symbol_body(workspace, command.fields["path"], command.fields["path"], name, topic)
    symbol = body.symbol
    out = [f"# {body.rel}#{symbol.id}", f"# {symbol.kind}, lines {symbol.start + 1}-{symbol.end}", ""]
    lines = body.text.split("\n")
    out += lines if plain else [f"{number:>6}: {line}" for number, line in enumerate(lines, symbol.start + 1)]
    return ok(command, f"Read symbol ({symbol.start + 1}-{symbol.end})", "\n".join(out))


def fs_edit_symbol(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """Replace a definition by `body_b64`, or (`position: before|after`) add one beside it; confirmed with the
    diff, one journaled write."""
    from stringsh.documents.symboledit import SymbolEdit, plan_edit, source, write_symbol
    from stringsh.render.code.cache import symbol_cache
    from stringsh.render.code.views import resolve_symbol

    if "body_b64" not in command.payloads:
        raise invalid("ERR_MISSING_BODY_B64", "body_b64 is required.")
    position = command.fields.get("position", "replace").strip()
    if position not in POSITIONS:
        raise invalid("ERR_INVALID_POSITION", "position must be replace, before or after.")
    file, index, name = _source(workspace, command, topic)
    edit = SymbolEdit(name, command.payloads["body_b64"], _flag(command, "force"), POSITIONS[position])
    spliced = plan_edit(workspace, file.rel, file.text, index, *edit)
    what = "replace" if position == "replace" else f"insert {position}"
    ask(workspace, confirm, command, file.rel, f"{what} {file.rel}#{name}",
        lambda: unified(workspace, file.text, spliced.text, f"a/{file.rel}", f"b/{file.rel}"))
    expected = source(file.text, resolve_symbol(index, file.rel, name))
    written = write_symbol(workspace, file.rel, (file.sha256, file.text), spliced, expected, edit, symbol_cache(None),
                           topic)
    return ok(command, "Edited symbol" if position == "replace" else "Inserted symbol", change_id=written.change_id)


def fs_rename_symbol(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """Rename `symbol` of the file at `path` to `new_name` with its references, across files: confirmed with the
    diff of every file, one change set (`dry_run: true`: the diff only)."""
    from stringsh.documents.rename import plan_rename, summary, write_rename

    symbol = command.fields.get("symbol", "").strip()
    if not symbol:
        raise invalid("ERR_MISSING_SYMBOL", "missing symbol; use symbol: <id> (fs.symbols lists them).")
    new_name = command.fields["new_name"].strip()
    plan = plan_rename(workspace, f"{command.fields['path']}#{symbol}", new_name, topic=topic)
    diff = "\n".join(unified(workspace, f.old, f.new, f"a/{f.rel}", f"b/{f.rel}") for f in plan.files)
    if _flag(command, "dry_run"):
        return ok(command, f"Would rename symbol ({summary(plan)})", diff)
    ask(workspace, confirm, command, plan.attribution.rel, f"rename {plan.label} to {new_name}", diff)
    change_id = write_rename(workspace, plan, topic=topic)
    return ok(command, f"Renamed symbol ({summary(plan)})", diff, change_id)
