"""/map [path…] [--budget TOKENS]: the repository map, the workspace's most referenced definitions ranked by the
reference graph (documents/repomap.py), each with its signature line and location, grouped by file, within a token
budget; paths focus the ranking on those files."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.searchreply import folder, limit_note, number, parse_options, plural, summary
from stringsh.documents.listing import in_open_folder
from stringsh.documents.repomap import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET, RepoMap, repo_map
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.protocol.response import Result


@handler("map")
def map_command(ctx: Context) -> Result:
    targets, options = parse_options(ctx.args, "map", (), ("--budget",))
    budget = number(options, "--budget", MIN_BUDGET, MAX_BUDGET)
    focus = [in_open_folder(ctx, target) for target in targets]
    found = repo_map(ctx.dispatcher.workspace, in_open_folder(ctx, "."), focus, budget, topic=ctx.session.topic)
    return map_reply(found)


def headline(found: RepoMap) -> str:
    """`Map of <where>: N symbols from M files, ~T tokens (budget B)`: what the map covers."""
    collected, view = found.collected, found.view
    where = folder(collected.scope)
    if collected.focus:
        where += " (focus: " + ", ".join(shown_name(path) for path in collected.focus) + ")"
    return (f"Map of {where}: {plural(len(view.shown), 'symbol')} from {plural(view.files, 'file')}, "
            f"~{view.tokens} tokens (budget {found.budget})")


def map_reply(found: RepoMap) -> Result:
    """The headline, the map (what the budget counts), then how to open a symbol and what was ranked."""
    view, collected = found.view, found.collected
    tail = []
    if view.shown:
        best = view.shown[0]
        tail.append(f"Open one: /open {command_word(best.path)}#{best.definition.id}")
    ranked = (f"{plural(found.definitions, 'definition')} in {plural(len(collected.files), 'source file')} ranked "
              "by their references (syntactic: identifiers by name, no types)")
    tail.append(summary(ranked, collected.traversal))  # type: ignore[arg-type]
    if not view.shown and found.definitions:
        tail.append(f"Not even the first symbol fits: raise --budget (default {DEFAULT_BUDGET}).")
    note = limit_note(collected.traversal, len(view.shown))  # type: ignore[arg-type]
    if note:
        tail.append(note)
    lines = view.lines
    return Result(headline(found), "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(tail))
