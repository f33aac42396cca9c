"""The replies of `/symbols --refs` by scope, `--refs path#Symbol` and `--def path:LINE:COL` (shared by /symbols and
/rename's preview; documents/scopedrefs.py finds what they show)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.searchreply import plural, summary
from stringsh.documents.symbolsearch import Ref
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.commands.context import Context
    from stringsh.documents.references import Attribution, Site
    from stringsh.workspace import Workspace

#: What a reference search by syntax cannot know, said under every `--refs` reply.
BY_SYNTAX = ("By syntax, not types: roles come from the parse (definitions, imports, parameters and locals by "
             "function scope, `x.name` access); what a value holds is not known, so `obj.{name}` is a member of "
             "whatever obj is, and names a star import or a re-export brings in are not followed.")


def ref_line(ref: Ref, name: str, why: str = "") -> str:
    """`path:line:column: role in #Container: text`: the position first, so an editor can jump to it."""
    where = f"in #{ref.container}" if ref.container else "at top level"
    return (f"{shown_name(ref.path)}:{ref.line}:{ref.column}: {role_text(ref, name)} {where}"
            f"{' (' + why + ')' if why else ''}: {ref.text.strip()}")


def role_text(ref: Ref, name: str) -> str:
    """The role as shown: `qualified util.parse`, `member self.parse`, `qualified mod::parse`, else its name."""
    if ref.role not in ("qualified", "member") or not ref.via:
        return ref.role
    via = ref.via if len(ref.via) <= 40 else ref.via[:39] + "…"
    before = ref.text[max(0, ref.column - 3) : ref.column - 1]
    return f"{ref.role} {via}{before if before in ('::', '->') else '.'}{name}"


def site_ref(ws: Workspace, site: Site, lines: dict[str, list[str]]) -> Ref:
    """A site as a reference line shows it: its line, container and access masked."""
    o = site.occurrence
    text = lines[site.rel][o.line - 1].rstrip("\r") if o.line <= len(lines[site.rel]) else ""
    shown = ws.redactor
    return Ref(site.rel, o.line, o.column, ws.redact_lines(text), o.role, shown(o.container), shown(o.via))


def site_lines(attribution: Attribution, texts: dict[str, str]) -> dict[str, list[str]]:
    return {rel: texts[rel].split("\n") for rel in {s.rel for s in [*attribution.sites, *attribution.ambiguous]}}


def attributed_lines(ws: Workspace, attribution: Attribution, texts: dict[str, str]) -> tuple[list[str], list[str]]:
    """(one line per site, one per ambiguous site with its reason)."""
    lines = site_lines(attribution, texts)
    name = attribution.symbol.name
    sites = [ref_line(site_ref(ws, site, lines), name) for site in attribution.sites]
    ambiguous = [ref_line(site_ref(ws, site, lines), name, site.why) for site in attribution.ambiguous]
    return sites, ambiguous


def attributed_reply(ctx: Context, target: str, paths: list[str]) -> Result:
    """`--refs path#Symbol`: the definition and the references attributable to it, then the ambiguous ones."""
    from stringsh.commands.searchreply import folder
    from stringsh.documents.scopedrefs import attributed

    ws = ctx.dispatcher.workspace
    attribution, traversal, texts = attributed(ws, target, paths, command=f"symbols --refs {target}",
                                               topic=ctx.session.topic)
    sites, ambiguous = attributed_lines(ws, attribution, texts)
    files = len({site.rel for site in attribution.sites})
    found = f"{plural(len(sites), 'site')} in {plural(files, 'file')}"
    more = f", {len(ambiguous)} ambiguous" if ambiguous else ""
    where = folder(paths[0] if len(paths) == 1 else ".")
    label = f"{shown_name(attribution.rel)}#{attribution.symbol.id}"
    message = f"References to {label} in {where}: {found}{more}"
    body = list(sites)
    if ambiguous:
        body += ["", "Ambiguous (the syntax cannot tell whether they are this definition's):", *ambiguous]
    tail = [BY_SYNTAX.format(name=attribution.symbol.name),
            summary(f"{found}{more}; {plural(attribution.files, 'source file')} read", traversal)]
    return Result(message, "\n".join(body) + "\n\n" + "\n".join(tail))


def definition_reply(ctx: Context, spot: str) -> Result:
    """`--def path:LINE:COL`: the definitions of the name there, and how they were found."""
    from stringsh.documents.scopedrefs import definitions_at

    jump = definitions_at(ctx.dispatcher.workspace, spot, topic=ctx.session.topic)
    found = plural(len(jump.found), "definition") if jump.found else "none found"
    message = f'Definition of "{jump.name}" at {spot}: {found}, {jump.how}'
    rows = [f"{shown_name(d.rel)}:{d.line}:{d.column}: {d.kind}{' #' + d.id if d.id else ''}" for d in jump.found]
    first = next((d for d in jump.found if d.id), None)
    tail = f"Open it: /open {command_word(first.rel)}#{first.id}" if first is not None else (
        f"Search by name: /symbols {command_word(jump.name)}" if not jump.found else "")
    return Result(message, "\n".join(rows) + ("\n\n" if rows and tail else "") + tail)
