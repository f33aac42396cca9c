"""`stringsh mcp`: the engine behind a Model Context Protocol server (the official `mcp` SDK), stdio or HTTP.

- `cli.py` starts it (`run(dispatcher, options)`); `stdio_front.py` serves stdio, answering `initialize`
  (`identity.py`), `tools/list` (`toollist.py`, tools.json) and the read tools and `edit_file` (`shortcut.py`) while
  the SDK is imported (and after); `http.py` is the HTTP transport with its token and host checks,
  `running.py` its health endpoint and graceful stop, `logjson.py` its `--log-json` lines.
- `server.py` builds the server: name, version, instructions, and the tool modules in `TOOL_MODULES`, each a
  small module with `register(server, calls)` that adds tools with `@server.tool(annotations=...)`: an async
  function whose typed parameters are the tool's JSON schema, which returns `await calls.run(ctx, work)`.
- `calls.py` runs `work(call)` on a worker thread as the client (one `mcp` request: `Workspace.request`), with
  `call.path(p)` checking the connection's roots (`roots.py`), and turns a `StringError` into an `isError`
  result; `coded.py` words the SDK's own failures (unknown tool, bad arguments) the same way.
- `tools_files.py` (with `listing.py`, `reading.py`, `textedit.py`): the reference filesystem server's tools.
- `tools_commands.py` (with `requests.py`, which quotes arguments into request text): stringsh's own tools, the
  String Commands run through the Dispatcher in the connection's own topic (`string`, `grep`, `open`, ...).
- `sessions.py`: each connection (stdio, or an HTTP session) is its own client and topic, ended with it.
"""
