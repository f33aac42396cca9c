"""`symbols`, `definition`, `read_symbol` and `edit_symbol`: a source file's definitions (render/code/) as JSON
tools, on the same engine operations as `/symbols`, `/symbols --def`, `/open path#Symbol` and `/edit path#Symbol`
(documents/symbolwrite.py
and documents/symboledit.py plan and write every dialect's symbol edit), so the refusals, masking and journal are
theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field

if TYPE_CHECKING:
    from stringsh.documents.symbolsearch import Ref
    from stringsh.render.code.index import SymbolIndex
    from stringsh.workspace import TextFile, Workspace

SYMBOLS_FIELDS = (Field("query", "string", required=True), Field("path", "string"), Field("refs", "boolean"),
                  Field("max_results", "integer", minimum=1))
READ_FIELDS = (Field("file_path", "string", required=True), Field("symbol", "string", required=True))
DEFINITION_FIELDS = (Field("file_path", "string", required=True), Field("line", "integer", required=True, minimum=1),
                     Field("column", "integer", required=True, minimum=1))
EDIT_FIELDS = (Field("file_path", "string", required=True), Field("symbol", "string", required=True),
               Field("new_body", "string", required=True),
               Field("position", "string", choices=("replace", "before", "after")), Field("force", "boolean"))
SYMBOLS_ABOUT = ("definitions whose name matches (or, with refs, identifiers spelled so, each with its role by scope "
                 "and containing symbol; refs of `file#id`: the references attributable to that definition) in source "
                 "files: path, id, kind, lines")
DEFINITION_ABOUT = ("the definitions of the name at a line and column (as symbols with refs lists them): a local "
                    "binding or parameter first, then the file's own definition, then the import followed to its "
                    "file, else every definition of the name")
READ_ABOUT = "one definition of a source file (path and id as symbols lists them), with decorators and comments"
EDIT_ABOUT = ("replace a definition's bytes, or add one before or after it; refused unless it parses as the same "
              "definition (force overrides)")


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [args["path"]] if "path" in args else [], str(args.get("query", ""))


def symbol_summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [str(args.get("file_path", ""))], str(args.get("symbol", ""))


def symbols(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.documents.symbolsearch import search

    refs = bool(args.get("refs", False))
    if refs and "#" in args["query"]:
        return _attributed(ws, args, topic)
    found = search(ws, args["query"], [engine_path(args.get("path", "."), "path")], refs=refs,
                   limit=args.get("max_results"), topic=topic)
    result: dict[str, Any]
    if refs:
        result = {"references": [_reference(r) for r in found.refs]}
    else:
        result = {"symbols": [{"file_path": h.path, "id": h.symbol.id, "name": h.symbol.name, "kind": h.symbol.kind,
                               "start_line": h.symbol.start + 1, "end_line": h.symbol.end} for h in found.hits]}
    if found.truncated:
        result["truncated"] = True
    return result


def definition(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    """`/symbols --def path:LINE:COL` as JSON: the name there, how its definitions were found, and them."""
    from stringsh.documents.scopedrefs import definitions_at

    jump = definitions_at(ws, f"{engine_path(args['file_path'], 'file_path')}:{args['line']}:{args['column']}",
                          topic=topic)
    return {"name": jump.name, "how": jump.how,
            "definitions": [{"file_path": d.rel, "line_number": d.line, "column": d.column, "kind": d.kind,
                             "id": d.id} for d in jump.found]}


def _reference(ref: Ref) -> dict[str, Any]:
    """A reference as JSON: where, its role by scope, the symbol holding it and, for `x.name`, the `x`."""
    found = {"file_path": ref.path, "line_number": ref.line, "column": ref.column, "line": ref.text, "role": ref.role,
             "container": ref.container}
    if ref.via:
        found["via"] = ref.via
    return found


def _attributed(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    """refs of `file#id`: the definition's references, and the sites syntax cannot attribute (with why)."""
    from stringsh.commands.symbolrefs import site_lines, site_ref
    from stringsh.documents.scopedrefs import attributed

    target = engine_path(args["query"], "query")
    attribution, _traversal, texts = attributed(ws, target, [engine_path(args.get("path", "."), "path")],
                                                command=f"symbols --refs {target}", topic=topic)
    lines = site_lines(attribution, texts)
    return {"definition": {"file_path": attribution.rel, "id": attribution.symbol.id},
            "references": [_reference(site_ref(ws, site, lines)) for site in attribution.sites],
            "ambiguous": [{**_reference(site_ref(ws, site, lines)), "why": site.why}
                          for site in attribution.ambiguous]}


def _source(ws: Workspace, given: str, topic: str) -> tuple[TextFile, SymbolIndex]:
    from stringsh.documents.symbolbody import symbol_source

    return symbol_source(ws, engine_path(given), given, topic)


def read_symbol(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.documents.symbolbody import symbol_body

    body = symbol_body(ws, engine_path(args["file_path"]), args["file_path"], args["symbol"], topic)
    symbol = body.symbol
    return {"file_path": body.rel, "id": symbol.id, "kind": symbol.kind, "start_line": symbol.start + 1,
            "end_line": symbol.end, "content": body.text}


def edit_symbol(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.documents.symboledit import AFTER, BEFORE, SymbolEdit, plan_edit, source, write_symbol
    from stringsh.render.code.cache import symbol_cache
    from stringsh.render.code.views import resolve_symbol

    text_file, index = _source(ws, args["file_path"], topic)
    position = args.get("position", "replace")
    where = {"replace": None, "before": BEFORE, "after": AFTER}[position]
    edit = SymbolEdit(args["symbol"], args["new_body"], bool(args.get("force", False)), where)
    spliced = plan_edit(ws, text_file.rel, text_file.text, index, *edit)
    expected = source(text_file.text, resolve_symbol(index, text_file.rel, edit.block_id))
    written = write_symbol(ws, text_file.rel, (text_file.sha256, text_file.text), spliced, expected, edit,
                           symbol_cache(None), topic)
    spliced = written.spliced
    return {"success": True, "file_path": text_file.rel, "start_line": spliced.line + 1,
            "lines_replaced": spliced.old_count, "lines_written": spliced.new_count,
            "total_lines": spliced.index.line_count, "change_id": int(written.change_id)}
