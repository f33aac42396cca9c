"""/symbols QUERY [path…] [--refs] [--max N]: definitions in source files by name, or (--refs) the identifiers
spelled so, each with its role by scope and the symbol holding it; `--refs path#Symbol` the references attributable
to one definition, `--def path:LINE:COL` a use's definitions. The walk, limits and masking are /grep's
(documents/symbolsearch.py, documents/scopedrefs.py)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.searchreply import folder, limit_note, number, parse_options, plural, summary
from stringsh.commands.symbolrefs import BY_SYNTAX, ref_line
from stringsh.documents.listing import in_open_folder
from stringsh.documents.symbolsearch import SearchResult, search
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.protocol.response import Result
from stringsh.render.code.views import span

USAGE = "Usage: /symbols QUERY [path…] [--refs] [--max N]"
#: Hits that get an `@sN` shortcut (`/open @s1`).
SHORTCUTS = 20


@handler("symbols")
def symbols(ctx: Context) -> Result:
    args, options = parse_options(ctx.args, "symbols", ("--refs", "--def"), ("--max",))
    if not args:
        raise StringError("INVALID_PAYLOAD", USAGE, "Example: /symbols Parser.parse src, or /symbols --refs parse")
    query, targets = args[0], args[1:] or ["."]
    paths = [in_open_folder(ctx, target) for target in targets]
    refs = "--refs" in options
    if "--def" in options:
        if refs or len(args) > 1:
            raise StringError("INVALID_PAYLOAD", "--def takes one position, path:LINE:COL, and no other flag.",
                              "Example: /symbols --def src/app.py:12:9")
        from stringsh.commands.symbolrefs import definition_reply

        return definition_reply(ctx, in_open_folder(ctx, query))
    if refs and "#" in query:
        from stringsh.commands.symbolrefs import attributed_reply

        return attributed_reply(ctx, in_open_folder(ctx, query), paths)
    result = search(ctx.dispatcher.workspace, query, paths, refs=refs, limit=number(options, "--max", 1, 1_000_000),
                    topic=ctx.session.topic)
    where = result.path if result.one_file else folder(result.path if len(paths) == 1 else ".")
    return refs_reply(query, where, result) if refs else definitions_reply(ctx, query, where, result)


def definitions_reply(ctx: Context, query: str, where: str, result: SearchResult) -> Result:
    """`path:Lx-Ly  kind  #id` per definition, the first ones as `@sN` shortcuts `/open` takes."""
    found = f"{plural(len(result.hits), 'definition')} in {plural(result.files, 'file')}"
    message = f'Symbols "{query}" in {where}: ' + (found if result.hits else "none found")
    shortcuts = ctx.session.value_shortcuts
    for name in [name for name in shortcuts if name.startswith("s") and name[1:].isdigit()]:
        del shortcuts[name]  # the previous search's
    rows = [(f"@s{i}" if i <= SHORTCUTS else "", f"{shown_name(hit.path)}:{span(hit.symbol)}", hit.symbol.kind,
             f"#{hit.symbol.id}") for i, hit in enumerate(result.hits, 1)]
    for i, hit in enumerate(result.hits[:SHORTCUTS], 1):
        shortcuts[f"s{i}"] = f"{hit.path}#{hit.symbol.id}"
    lines = []
    if rows:
        widths = [max(len(row[k]) for row in rows) for k in range(3)]
        lines = [f"{a:<{widths[0]}} {b:<{widths[1]}}  {c:<{widths[2]}}  {d}".lstrip() for a, b, c, d in rows]
    tail = [summary(f"{found}; {plural(result.indexed, 'source file')} indexed", result.traversal)]  # type: ignore[arg-type]
    if result.hits:
        first = result.hits[0]
        tail.insert(0, f"Open one: /open @s1 (or /open {command_word(first.path)}#{first.symbol.id})")
    note = limit_note(result.traversal, len(result.hits))  # type: ignore[arg-type]
    if note:
        tail.append(note)
    return Result(message, "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(tail))


def refs_reply(query: str, where: str, result: SearchResult) -> Result:
    """`path:line:column: role in #Container: text` per identifier; says what a search by syntax cannot know."""
    found = f"{plural(len(result.refs), 'occurrence')} in {plural(result.files, 'file')}"
    message = f'References to "{query}" in {where}: ' + (found if result.refs else "none found")
    lines = [ref_line(ref, query) for ref in result.refs]
    tail = [
        BY_SYNTAX.format(name=query),
        summary(f"{found}; {plural(result.indexed, 'source file')} indexed", result.traversal),  # type: ignore[arg-type]
    ]
    note = limit_note(result.traversal, len(result.refs))  # type: ignore[arg-type]
    if note:
        tail.append(note)
    return Result(message, "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(tail))
