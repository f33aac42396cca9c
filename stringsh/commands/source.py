"""/source: the raw source of the open document (or of a path), front matter, markers and actions included."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import split_from
from stringsh.protocol.response import Result, document_fields
from stringsh.render import plain
from stringsh.render.view import budget_from, check_start, masked


@handler("source")
def source(ctx: Context) -> Result:
    documents = ctx.documents
    target, start = split_from(ctx.args, "source")
    path = target.partition("#")[0] if target else ""
    current = documents.current() if not path else None
    open_view = documents.session.document
    if path and open_view is not None and open_view.remote and path == open_view.path:
        current = open_view  # `/source <url>` of the web page open here
    if current is not None and current.remote:
        view = current  # a page an HTTP action returned: its text, not a workspace file
    else:
        view = documents.read_for_edit(path or documents.current().path)
    if view.remote:
        from stringsh.actions.remote import WebView  # the web machinery loads only for pages from the web

        if isinstance(view, WebView):  # a web page: what the server sent (the HTML before conversion)
            view = view.as_source()
    view = masked(view, ctx.documents.workspace.redact_lines)
    count = len(view.doc.lines) - (1 if view.doc.text.endswith("\n") else 0)
    check_start(view.path, count, start, "/source")
    budget = budget_from(ctx.session.variables)
    rendered = plain.render_text(view.doc.lines, start=start, budget=budget)
    content = rendered.text
    if rendered.next_line is not None:
        hint = plain.cut_hint(view.path, rendered, count, budget).replace("Read on: /open ", "Read on: /source ")
        content = f"{content}\n\n{hint}"
    if not view.doc.text:
        content = "(empty)"
    return Result(f"[source: {view.path}]", content, fields=None if view.remote else document_fields(view.path))
