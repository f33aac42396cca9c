"""Every figure row of every bench, as docs/benchmarks.md lists it: what it measures, its reference, its goal and the
command that reproduces it. The row names are the ones the benches record (bench/record.py); `NAME` in a row name
stands for the name a search was run with (one table line per name recorded). bench/plot.py renders the page's
tables and plots from this and bench/history.jsonl."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    name: str
    bench: str  # the script in bench/
    measured: str
    reference: str
    goal: float | None  # a ratio: the dashed line on the plot
    goal_text: str = ""  # when the goal is not a ratio, or needs words
    recorded: bool = True  # False: printed by the bench but not a ratio it records


@dataclass(frozen=True)
class Area:
    key: str
    title: str
    about: str
    commands: dict[str, str]  # bench script -> the command that reproduces its rows
    rows: tuple[Row, ...]


RAW = "temp + fsync + rename per file, one folder fsync"
SHELLS = ("none", "bubblewrap")

AREAS: tuple[Area, ...] = (
    Area("search", "Search", "`/grep` and `/glob` against ripgrep, one whole `rg` process per reference run.",
         {"search.py": "python bench/search.py --rounds 7 --keep ~/stringsh-searchtree"}, (
             Row("/grep literal, rg engine", "search.py", "`/grep` of a literal over 51,534 generated files, the rg "
                 "engine, through the dispatcher", "`rg --no-config --hidden --no-ignore -F`", 1.3),
             Row("/grep regex, rg engine", "search.py", "the same with a regex", "`rg --no-config --hidden "
                 "--no-ignore`", 1.3),
             Row("/grep literal, Python engine", "search.py", "the literal without rg (the pure-Python engine)",
                 "the same `rg` run", 3.0),
             Row("/grep regex, Python engine", "search.py", "the regex without rg", "the same `rg` run", 3.0),
             Row("/glob '**/*.py'", "search.py", "`/glob '**/*.py'` over the 51,534 files",
                 "`rg --files -g '*.py'`", 1.5),
             Row("/glob '**/*.py' --sort mtime", "search.py", "the same, newest first (a stat per match)",
                 "`rg --files -g '*.py'`", None, "no goal"),
             Row("/glob '**/*.py', Python walk", "search.py", "the same by path without rg (the Python walk)",
                 "`rg --files -g '*.py'`", None, "no goal"),
             Row("/grep literal --stats", "search.py", "the literal with `--stats` (the counted walk)", "`rg -F`",
                 None, "no goal"),
             Row("/grep in a running daemon", "search.py", "`/grep` sent to a running `stringsh daemon`, 5,000 "
                 "files", "`rg -n -F`", 1.3),
         )),
    Area("start-up", "Start-up", "A whole process, bytecode compiled first as an install does.",
         {"startup.py": "python bench/startup.py --runs 40", "repl.py": "python bench/repl.py --runs 10",
          "handoff.py": "python bench/handoff.py --runs 20"}, (
             Row("-c /ls, fresh workspace", "startup.py", "`stringsh -c /ls` in a fresh workspace",
                 "`python -c pass`", 3.0),
             Row("-c /ls, used workspace", "startup.py", "the same where the journal holds a finished change set",
                 "`python -c pass`", 3.0),
             Row("-c /ls handed to a running server (prototype)", "handoff.py", "a client of `_socket` alone "
                 "handing `/ls` to a server already running in the workspace; a measurement, not a feature",
                 "`python -c pass`", 3.0),
             Row("REPL prompt drawn", "repl.py", "`stringsh` in a pty until its toolbar is drawn",
                 "`stringsh -c /ls`", 3.0),
         )),
    Area("daemon", "Daemon round trip", "`stringsh daemon` on pipes, request to whole reply, one client.",
         {"startup.py": "python bench/startup.py --requests 1000",
          "daemon.py": "python bench/daemon.py --requests 3000"}, (
             Row("round trip p50", "startup.py", "`/set n = N` requests to `stringsh daemon`, p50",
                 "a bare Python echo loop on the same pipes, p50", 3.0),
             Row("round trip p99", "startup.py", "the same, p99", "the echo loop, p99", 3.0),
             Row("/set round trip p50 (bench/daemon.py)", "daemon.py", "`/set n = N` (no file touched), the "
                 "processes taking turns", "the echo loop, p50", 2.0),
         )),
    Area("writes", "Writes and change sets", "The journal's cost against writing the same bytes the careful way "
         "without one, and clients writing one file at once.",
         {"changes.py": "python bench/changes.py 200", "append.py": "python bench/append.py 30",
          "merge.py": "python bench/merge.py --repeat 3 [--topics]"}, (
             *(Row(f"{op} {count} x {size} KiB, p50", "changes.py",
                   f"{op} of a change set of {count} file{'s' if count > 1 else ''} of {size} KiB, p50", RAW,
                   goal)
               for op, count, size, goal in (("apply", 1, 4, 2.0), ("apply", 10, 4, 1.2), ("apply", 100, 4, 1.2),
                                             ("apply", 1, 1024, 2.0), ("revert", 1, 4, 1.2), ("revert", 10, 4, 1.2),
                                             ("revert", 100, 4, 1.2), ("revert", 1, 1024, 1.2))),
             Row("/patch 10 files, p50", "changes.py", "`/patch` of a 10-file unified diff through the dispatcher",
                 RAW, 1.5),
             Row("/undo of /patch 10 files, p50", "changes.py", "its `/undo`", RAW, None, "no goal"),
             Row("append 4 KiB, copy / no copy, p50", "append.py", "appending a line, keeping the old bytes' copy",
                 "the same append without the copy", None, "no goal"),
             Row("append 1000 KiB, copy / no copy, p50", "append.py", "the same on a 1000 KiB file",
                 "the same append without the copy", 1.5),
             Row("4 clients, blocks: time per edit", "merge.py", "each of 4 `stringsh daemon --json` clients' "
                 "time per `/edit doc.md#part-K` of its own block, all at once (every daemon started and warmed "
                 "first)", "one client alone", 1.6,
                 "≤ 1.6× (4 clients ≥ 2.5× one client's edits/s)"),
             Row("4 clients, replaces: time per edit", "merge.py", "the same with `/replace` of its own line",
                 "one client alone", 1.6, "≤ 1.6× (4 clients ≥ 2.5× one client's edits/s)"),
             Row("4 topics of one daemon, blocks: time per edit", "merge.py", "with `--topics`: the 4 clients are "
                 "topics of one daemon (threads of one process, where group commit shares a hold and its syncs)",
                 "one topic alone", 1.6, "≤ 1.6× (4 topics ≥ 2.5× one topic's edits/s)"),
             Row("4 topics of one daemon, replaces: time per edit", "merge.py", "the same with `/replace`",
                 "one topic alone", 1.6, "≤ 1.6× (4 topics ≥ 2.5× one topic's edits/s)"),
         )),
    Area("load", "Many agents", "32 MCP HTTP sessions and 32 daemon topics at once on a 5,000-file tree, each "
         "pausing about 1 s between calls; each operation's p99 against one client alone with the same pauses.",
         {"load.py": "python bench/load.py --ops 500 --think 1000"}, tuple(
             Row(f"{front} {op} p99 under load", "load.py", f"{front} `{op}` p99 under load",
                 "one client alone, p50", 5.0)
             for front in ("mcp", "daemon") for op in ("read", "edit", "write", "grep", "bash", "undo"))),
    Area("load-tmpfs", "Many agents, workspace on tmpfs", "The same agents with the workspace, its engine state and "
         "the configuration on tmpfs: what the program adds under load, without the stalls of the disk under the "
         "workspace (the bench prints them, as a process of its own sees them: `bench/stallwatch.py`).",
         {"load.py": "TMPDIR=/dev/shm python bench/load.py --ops 500 --think 1000"}, tuple(
             Row(f"{front} {op} p99 under load", "load.py", f"{front} `{op}` p99 under load, on tmpfs",
                 "one client alone, p50", 5.0)
             for front in ("mcp", "daemon") for op in ("read", "edit", "write", "grep", "bash", "undo"))),
    Area("mcp", "MCP", "`stringsh mcp` against the reference filesystem server "
         "(`@modelcontextprotocol/server-filesystem`), the same calls from the official SDK's client, taking turns.",
         {"mcp.py": "python bench/mcp.py --runs 3   # needs node and npm"}, (
             Row("start-up", "mcp.py", "spawn to the `initialize` result", "the reference server", 1.5),
             Row("first call", "mcp.py", "spawn to a first `list_allowed_directories` result",
                 "the reference server", None, "no goal"),
             Row("first SDK call", "mcp.py", "then a `list_directory_with_sizes` result", "the reference server",
                 None, "no goal"),
             Row("read 100 KB", "mcp.py", "`read_text_file` of a 100 KB file, p50", "the reference server", 1.0),
             Row("read head 10", "mcp.py", "its `head` 10 lines", "the reference server", 1.0),
             Row("list 1,000", "mcp.py", "`list_directory` of 1,000 entries", "the reference server", 1.0),
             Row("file info", "mcp.py", "`get_file_info`", "the reference server", 1.0),
             Row("edit", "mcp.py", "`edit_file` with one edit", "the reference server", 1.0),
             Row("search 10,000", "mcp.py", "`search_files '**/*.py'` over 10,000 files", "the reference server",
                 1.0),
             Row("peak memory", "mcp.py", "the server's VmHWM after all its calls", "the reference server", None,
                 "≤ 1.0×", recorded=False),
         )),
    Area("documents", "Documents", "Big markdown documents against markdown-it-py's full parse of the same text.",
         {"documents.py": "python bench/documents.py"}, (
             *(Row(f"{what}, {size} MB", "documents.py", f"{doing} of a {size} MB document", "markdown-it-py "
                   "full parse", goal)
               for size in (1, 10)
               for what, doing, goal in (("first /open", "the first `/open`", 0.15),
                                         ("/open #block", "`/open big.md#block`", 0.05),
                                         ("/edit #block", "`/edit big.md#block`", 0.05))),
             Row("repeat /open, new process, beyond start-up", "documents.py", "`/open` of the 10 MB document in a "
                 "fresh process set up as `stringsh -c` sets it up, start-up taken off", "the goal's budget, 30 ms (a "
                 "time, not a reference: the ratio is the share of it used)", 1.0, "≤ 30 ms (≤ 1×)"),
         )),
    Area("code", "Code", "Source files as documents, the symbol index, `/map`, and hostile inputs.",
         {"code.py": "python bench/code.py 3   # real trees: --tree DIR --names redisCommand,parse --index-only",
          "hostile.py": "python bench/hostile.py", "repomap.py": "python bench/repomap.py 3"}, (
             Row("outline, 10,000-line .py, cold (parse + index)", "code.py", "the outline of a 10,000-line "
                 "Python file, parsed and indexed", "the markdown index of a 10,000-line document", None, "≤ 50 ms"),
             Row("outline, cached in memory", "code.py", "the same from the signed cache's memory",
                 "markdown lookup", None, "≤ 5 ms"),
             Row("outline, cached on disk (a new process)", "code.py", "the same from a new process's disk entry",
                 "markdown disk load", None, "≤ 5 ms"),
             Row("/open big.py#Symbol", "code.py", "`/open file#Symbol`", "`/open file:Lx-Ly` of the same lines",
                 1.5),
             Row("/open big.py (10,000-line outline), running process, cold", "code.py", "the outline of a file "
                 "never opened, in a running process", "`/open` of a 10,000-line document", None, "≤ 50 ms"),
             Row("stringsh -c '/symbols NAME file' vs pylsp initialize", "code.py", "a whole `stringsh -c "
                 "'/symbols NAME file'`", "pylsp's `initialize` reply", 1.0),
             Row("stringsh -c '/symbols NAME file' vs pylsp first documentSymbol", "code.py", "the same",
                 "pylsp's first `documentSymbol` answer", 1.0),
             Row("/symbols NAME, cold", "code.py", "`/symbols NAME` over a tree, no index", "`rg -w NAME`", 2.0),
             Row("/symbols --refs NAME, cold", "code.py", "`/symbols --refs NAME`, no index", "`rg -w NAME`", 2.0),
             Row("/symbols NAME, warm", "code.py", "`/symbols NAME`, a running process's index", "`rg -w NAME`",
                 1.0, "≤ 1× and ≤ 100 ms"),
             Row("/symbols --refs NAME, warm", "code.py", "`/symbols --refs NAME`, the same", "`rg -w NAME`", 1.0,
                 "≤ 1× and ≤ 100 ms"),
             Row("/symbols NAME, new process with the index file", "code.py", "a new process with the index file",
                 "`rg -w NAME`", None, "no goal"),
             Row("/symbols --refs NAME, new process with the index file", "code.py", "the same with `--refs`",
                 "`rg -w NAME`", None, "no goal"),
             Row("/map cold, in process", "repomap.py", "`/map`, nothing remembered", "`rg -w NAME`", None,
                 "no goal"),
             Row("/map warm, in process", "repomap.py", "`/map`, the files' tags remembered", "`rg -w NAME`", None,
                 "no goal"),
             Row("stringsh -c /map", "repomap.py", "`stringsh -c /map`", "`rg -w NAME`", None, "no goal"),
             *(Row(f"hostile: {case}", "hostile.py", f"{case}, the largest of three sizes", "an ordinary file of "
                   "its size", None, "linear: the ratio stays flat as the size doubles")
               for case in ("nested classes: /open", "nested classes: /symbols m", "minified line: /open",
                            "one const, n arrows: /open", "nested [ (Python): /open", "Codex patch search")),
         )),
    Area("web", "Web page", "The supervisor's page (`stringsh web`) on a workspace of 10,000 change sets and "
         "100,000 audit records.", {"web.py": "python bench/web.py --keep ~/stringsh-webbench   # --browser: "
                                    "Chromium too; --browser-tabs: the pages are Chromium tabs (--window: of one "
                                    "window, xvfb-run)"}, (
             Row("a new record on screen", "web.py", "an agent's write to its record in the page's event stream",
                 "the agent's own round trip", None, "≤ 300 ms", recorded=False),
             Row("the page's first calls", "web.py", "overview, change sets, feed, older pages, filters, cold and "
                 "warm", "the same calls on 100 change sets and 1,000 records", None, "≤ 1 s each", recorded=False),
             Row("agents' write p50, pages open", "web.py", "30 load agents' write p50 with 10 pages open",
                 "the same agents with no page open", 1.1),
             Row("agents' write p99, pages open", "web.py", "their write p99", "the same agents with no page open",
                 1.1),
             Row("agents' write p50, browser tabs open", "web.py", "30 load agents' write p50 with the page open in "
                 "10 tabs of Chromium (`--browser-tabs`)", "the same agents with no page open", 1.1),
             Row("agents' write p99, browser tabs open", "web.py", "their write p99 (`--browser-tabs`)",
                 "the same agents with no page open", 1.1),
             Row("agents' write p50, browser tabs of one window open", "web.py", "30 load agents' write p50 with the "
                 "page in 10 tabs of one desktop Chromium window, one in front (`--browser-tabs --window`)",
                 "the same agents with no page open", 1.1),
             Row("agents' write p99, browser tabs of one window open", "web.py", "their write p99 (`--browser-tabs "
                 "--window`)", "the same agents with no page open", 1.1),
         )),
    Area("front ends", "Front ends", "The REPL, the shell session, actions, the agent dialects and folder listing.",
         {"repl.py": "python bench/repl.py --runs 10", "shell.py": "python bench/shell.py --rounds 5",
          "actions.py": "python bench/actions.py --runs 200", "dialects.py": "python bench/dialects.py --rounds 60",
          "listing.py": "python bench/listing.py 200"}, (
             Row("REPL first completion, 3,000 entries", "repl.py", "the completer's first answer for `/open ` in a "
                 "folder of 3,000 entries", "the engine's `list_dir` of it", 3.0),
             Row("REPL repeated completion", "repl.py", "the same answer again (cached)", "the engine's `list_dir`",
                 0.5),
             Row("REPL rendering 32 KB", "repl.py", "a 32 KB markdown reply printed for people",
                 "rich's Markdown of it in one piece", 1.2),
             *(Row(f"shell ({sandbox}): true round-trip", "shell.py", f"`true` through the persistent session "
                   f"(sandbox {sandbox})", "spawning `bash -c true`", 2.0) for sandbox in SHELLS),
             *(Row(f"shell ({sandbox}): seq 1 1000000", "shell.py", f"`seq 1 1000000` through the session "
                   f"(sandbox {sandbox})", "`seq 1 1000000 >/dev/null`", 10.0) for sandbox in SHELLS),
             Row("action: HTTP with a template", "actions.py", "`/act.items`: an HTTP GET and its response "
                 "template", "a kept `httpx.Client` GET", 2.0),
             Row("action: CLI", "actions.py", "`/act.echo`: flags, quoting, `bash -c`", "`bash -c` alone", 2.0),
             Row("OPERATOR_CMD write 100 KB, p50", "dialects.py", "an `fs.write` block of 100 KB",
                 "String Commands' `/write`", 1.2),
             Row("JSON tools write 100 KB, p50", "dialects.py", "JSON `write` of 100 KB", "String Commands' "
                 "`/write`", None, "no goal"),
             Row("OPERATOR_CMD read 100 KB, p50", "dialects.py", "`fs.read` of 100 KB", "String Commands' `/open`",
                 None, "no goal"),
             Row("JSON tools read 100 KB, p50", "dialects.py", "JSON `read` of 100 KB", "String Commands' `/open`",
                 1.2),
             *(Row(f"list_dir 1,000 files, {case}, p50", "listing.py", f"`Workspace.list_dir`, {case}",
                   "`os.scandir` + sort by name", 3.0)
               for case in ("root folder", "subfolder src/", "root folder, cold matcher",
                            "root folder, user deny globs")),
         )),
)
