"""/source: the raw source of the open document (or of a path), front matter, markers and actions included."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.edit import read_view
from stringsh.commands.open import current_view, split_from
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result
from stringsh.render import plain
from stringsh.render.view import budget_from


@handler("source")
def source(ctx: Context) -> Result:
    target, start = split_from(ctx, "source")
    path = target.partition("#")[0] if target else ""
    current = current_view(ctx) if not path else None
    if current is not None and getattr(current, "reload_remote", None) is not None:
        view = current  # a page an HTTP action returned: its text, not a workspace file
    else:
        view = read_view(ctx, path or current_view(ctx).path)
    budget = budget_from(ctx.session.variables)
    rendered = plain.render_text(view.doc.lines, start=start, budget=budget)
    content = rendered.text
    if rendered.next_line is not None:
        count = len(view.doc.lines) - (1 if view.doc.text.endswith("\n") else 0)
        hint = plain.cut_hint(view.path, rendered, count, budget).replace("Read on: /open ", "Read on: /source ")
        content = f"{content}\n\n{hint}"
    if not view.doc.text:
        content = "(empty)"
    return Result(f"[source: {view.path}]", content)
