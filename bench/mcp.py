"""Benchmark: `stringsh mcp` against the reference MCP filesystem server (`@modelcontextprotocol/server-filesystem`,
the version tests/dialects/mcp/reference_server.py pins, installed from the npm registry into the user's cache on
first run), as ratios measured in the same run.

    python bench/mcp.py [--runs 3] [--rounds 30] [--startups 15] [--reference-only] [--calls edit "list 1,000"]

Both servers get the same calls from the official Python SDK's stdio client, each over its own copy of one fixture
folder, the two taking turns call by call so both see the same machine load:
- start-up: spawn -> `initialize` result (fresh process each time); "first call": spawn -> `initialize` -> the
  result of a first `list_allowed_directories`; "first SDK call": then a `list_directory_with_sizes` result (on
  stdio stringsh answers `initialize`, `tools/list`, the read tools and `edit_file` while its SDK is imported, the
  other tools wait for the import: docs/mcp.md; these rows show both);
- read_text_file of a 100 KB text file, and its `head` 10 lines; list_directory of a 1,000-entry folder;
  get_file_info of a file; edit_file with one
  {oldText, newText} (alternating back and forth, so every call changes the file); search_files '**/*.py' over a
  10,000-file tree (1,000 hits: both servers return every one, under stringsh's 2,000-match cap);
- peak memory: the server process's VmHWM (/proc/<pid>/status) after all its calls;
- the start-up floor, timed in the same turns: a bare interpreter, the SDK's server imported, stringsh's server
  built (whole process lifetimes, exit included, so a little above what a start-up to `initialize` pays).

Each row prints the reference's time beside stringsh's and the ratio: the median over `--runs` whole runs of each
run's p50 (the ratio is the median of the runs' ratios, its range beside it), and the p95 of all runs' samples.
Goals: every call <= 1.0x the reference at p50, start-up <= 1.5x, peak memory <= 1.0x.
Needs node and npm (`apt-get install -y nodejs npm`) and the `mcp` extra (`pip install -e '.[mcp]'`).
`--reference-only` measures the reference alone (no ratios); `--calls` times only the calls named (with
`--startups 0`, no start-ups: only those rows are printed and recorded).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

# This file is named like the SDK's package, so its folder (the script's, first on the path) moves to the end.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

import anyio
import record
from benchenv import compile_package, isolate_user_state
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import stringsh
from tests.dialects.mcp.reference_server import VERSION, install, reference_command, stringsh_command

GOALS = {"start-up": 1.5, "first call": None, "first SDK call": None, "read 100 KB": 1.0, "read head 10": 1.0,
         "list 1,000": 1.0, "file info": 1.0, "edit": 1.0, "search 10,000": 1.0}
CALLS = ("read 100 KB", "read head 10", "list 1,000", "file info", "edit", "search 10,000")
EDIT_A, EDIT_B = "status = 'draft'", "status = 'final'"


def build_tree(root: Path) -> None:
    """The fixture folder: a 100 KB text file, a 1,000-entry folder, a file to edit, a 10,000-file tree."""
    root.mkdir(parents=True)
    line = "{:06d}: the quick brown fox jumps over the lazy dog, then reads the next line of the file\n"
    text, n = [], 0
    while sum(map(len, text)) < 100 * 1024:
        text.append(line.format(n))
        n += 1
    (root / "big.txt").write_text("".join(text))
    folder = root / "folder"
    folder.mkdir()
    for index in range(1000):
        (folder / f"entry-{index:04d}.txt").write_text(f"entry {index}\n")
    (root / "edit.py").write_text("".join(f"value_{i} = {i}\n" for i in range(200)) + EDIT_A + "\n")
    for package in range(100):
        sub = root / "tree" / f"pkg{package:02d}"
        sub.mkdir(parents=True)
        for index in range(100):
            suffix = "py" if index % 10 == 0 else "txt"
            (sub / f"mod{index:03d}.{suffix}").write_text(f"def f{index}():\n    return {index}\n")


@dataclass
class Server:
    """One server under test: how to start it, its own copy of the fixture, and what it measured."""

    name: str
    params: StdioServerParameters
    root: Path
    samples: dict[str, list[float]] = field(default_factory=dict)
    #: Each finished run's p50 by row, and every run's samples pooled (for the p95).
    run_p50: list[dict[str, float]] = field(default_factory=list)
    pooled: dict[str, list[float]] = field(default_factory=dict)
    log: Path = Path(os.devnull)  # the server's stderr (the reference prints a banner on every start)
    hits: int = 0
    peak_kb: int = 0
    edits: int = 0

    def stderr(self) -> str:
        return f"its stderr ends:\n{self.log.read_text()[-2000:]}" if self.log.is_file() else ""

    def record(self, what: str, seconds: float) -> None:
        self.samples.setdefault(what, []).append(seconds * 1000)

    def end_run(self) -> None:
        self.run_p50.append({what: statistics.median(took) for what, took in self.samples.items()})
        for what, took in self.samples.items():
            self.pooled.setdefault(what, []).extend(took)
        self.samples = {}


def children() -> set[int]:
    """This process's child pids (the stdio client spawns each server directly, no shell between)."""
    mine, found = str(os.getpid()), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == mine:
                found.add(int(entry))
    return found


def peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


async def start_up(server: Server) -> None:
    """Spawn -> initialize result -> a first call's result, then shut the process down (not timed)."""
    start = time.perf_counter()
    with open(server.log, "a") as log:
        async with stdio_client(server.params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            server.record("start-up", time.perf_counter() - start)
            await session.call_tool("list_allowed_directories", {})
            server.record("first call", time.perf_counter() - start)
            await session.call_tool("list_directory_with_sizes", {"path": str(server.root / "folder")})
            server.record("first SDK call", time.perf_counter() - start)


def call(server: Server, session: ClientSession, what: str) -> Callable[[], Awaitable[object]]:
    """The tool call `what` stands for, with the arguments an MCP client sends (absolute paths, as the reference
    server's tool descriptions ask)."""
    root = server.root
    if what == "read 100 KB":
        return lambda: session.call_tool("read_text_file", {"path": str(root / "big.txt")})
    if what == "read head 10":
        return lambda: session.call_tool("read_text_file", {"path": str(root / "big.txt"), "head": 10})
    if what == "list 1,000":
        return lambda: session.call_tool("list_directory", {"path": str(root / "folder")})
    if what == "file info":
        return lambda: session.call_tool("get_file_info", {"path": str(root / "big.txt")})
    if what == "search 10,000":
        return lambda: session.call_tool("search_files", {"path": str(root / "tree"), "pattern": "**/*.py"})

    async def edit() -> object:
        old, new = (EDIT_A, EDIT_B) if server.edits % 2 == 0 else (EDIT_B, EDIT_A)
        server.edits += 1
        return await session.call_tool("edit_file", {"path": str(root / "edit.py"),
                                                     "edits": [{"oldText": old, "newText": new}]})
    return edit


async def timed(server: Server, session: ClientSession, what: str) -> None:
    start = time.perf_counter()
    result = await call(server, session, what)()
    took = time.perf_counter() - start
    if result.is_error:
        raise SystemExit(f"{server.name}: {what} failed: {result.content[0].text[:400]}\n{server.stderr()}")
    server.record(what, took)
    if what == "search 10,000":
        text = "".join(part.text for part in result.content if part.type == "text")
        server.hits = sum(1 for line in text.splitlines() if line.strip().endswith(".py"))


BUILD = ("import sys; from pathlib import Path; from stringsh.dispatcher import Dispatcher; "
         "from stringsh.dialects.mcp.server import build_server; d = Dispatcher(Path(sys.argv[1])); "
         "build_server(d.workspace, None, d)")


def floor_commands(package: Path, root: Path) -> dict[str, list[str]]:
    """What part of stringsh's start-up is the interpreter, the SDK's import, building the server: timed in the
    same turns as the start-ups, so a slow start-up can be laid at the right door."""
    return {"python -c pass": [sys.executable, "-c", "pass"],
            "SDK server imported": [sys.executable, "-c", "import mcp.server.mcpserver, mcp.server.stdio"],
            "stringsh server built, not serving": [sys.executable, "-c", BUILD, str(root)]}


async def run(servers: list[Server], rounds: int, startups: int, floor: dict[str, list[str]],
              floor_ms: dict[str, list[float]], calls: tuple[str, ...] = CALLS) -> None:
    env = {**os.environ, **(servers[-1].params.env or {})}
    for turn in range(startups):
        for server in servers[turn % 2 :] + servers[: turn % 2]:
            await start_up(server)
        for what, argv in floor.items():
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True)
            floor_ms.setdefault(what, []).append((time.perf_counter() - start) * 1000)
    await run_calls(servers, rounds, calls)


async def run_calls(servers: list[Server], rounds: int, calls: tuple[str, ...] = CALLS) -> None:
    """Both servers up at once, taking turns call by call; each one's peak memory read before it stops."""
    async with AsyncExitStack() as stack:
        sessions: list[tuple[Server, ClientSession, int]] = []
        for server in servers:
            before = children()
            log = stack.enter_context(open(server.log, "a"))  # noqa: SIM115 - closed by the stack
            read, write = await stack.enter_async_context(stdio_client(server.params, errlog=log))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            (pid,) = children() - before
            sessions.append((server, session, pid))
        for what in calls:  # one untimed warm-up call each: the first call pays for lazy loading, not the call
            for server, session, _ in sessions:
                await call(server, session, what)()
        for turn in range(rounds):
            for what in calls:
                for server, session, _ in sessions[turn % 2 :] + sessions[: turn % 2]:
                    await timed(server, session, what)
        for server, _, pid in sessions:
            server.peak_kb = max(server.peak_kb, peak_kb(pid))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(servers: list[Server]) -> None:
    ref = servers[0]
    ours = servers[1] if len(servers) > 1 else None
    head = f"{'call':<15} {'ref p50':>8} {'ref p95':>8}"
    if ours:
        head += f" {'ours p50':>9} {'ours p95':>9} {'p50 x':>6} {'runs x':>12} {'p95 x':>6} {'goal':>5}"
    print(head + "   (ms)")
    for what in ("start-up", "first call", "first SDK call", *CALLS):
        if what not in ref.pooled:  # not measured this time (--calls, --startups 0)
            continue
        r50 = statistics.median(run[what] for run in ref.run_p50)
        r95 = percentile(ref.pooled[what], 0.95)
        row = f"{what:<15} {r50:>8.1f} {r95:>8.1f}"
        if ours:
            o50 = statistics.median(run[what] for run in ours.run_p50)
            o95 = percentile(ours.pooled[what], 0.95)
            ratios = [mine[what] / theirs[what] for mine, theirs in zip(ours.run_p50, ref.run_p50, strict=True)]
            spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
            goal = GOALS[what]
            row += (f" {o50:>9.1f} {o95:>9.1f} {statistics.median(ratios):>5.2f}x {spread:>12} {o95 / r95:>5.2f}x "
                    + (f"{goal:>4}x" if goal else "    -"))
            record.record("mcp", what, o50 / 1000, "reference server", r50 / 1000, goal,
                          ratio=statistics.median(ratios))
        print(row)
    row = f"{'peak RSS MB':<15} {ref.peak_kb / 1024:>8.1f} {'':>8}"
    if ours:
        row += f" {ours.peak_kb / 1024:>9.1f} {'':>9} {ours.peak_kb / ref.peak_kb:>5.2f}x {'':>12} {'':>6} {1.0:>4}x"
    print(row)
    if "search 10,000" in ref.pooled:
        print("search hits: " + ", ".join(f"{server.name} {server.hits}" for server in servers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="whole runs (fresh servers); rows are their medians")
    parser.add_argument("--rounds", type=int, default=30, help="timed calls of each kind per server")
    parser.add_argument("--startups", type=int, default=15, help="timed start-ups per server")
    parser.add_argument("--reference-only", action="store_true", help="measure the reference server alone")
    parser.add_argument("--calls", nargs="+", choices=CALLS, default=list(CALLS), metavar="CALL",
                        help=f"time only these calls (of: {', '.join(CALLS)})")
    options = parser.parse_args()
    isolate_user_state()
    package = compile_package()  # as an installer does, so no run pays for compiling
    index_js = install()
    work = Path(tempfile.mkdtemp(prefix="stringsh-bench-mcp-"))
    try:
        build_tree(work / "reference")
        command, args = reference_command(index_js, work / "reference")
        servers = [Server("reference", StdioServerParameters(command=command, args=args), work / "reference")]
        if not options.reference_only:
            shutil.copytree(work / "reference", work / "stringsh")
            command, args = stringsh_command(work / "stringsh")
            env = {k: v for k, v in os.environ.items() if k.startswith("STRINGSH_")}
            env["PYTHONPATH"] = str(package.parent)  # the stringsh this bench imported, not another install
            servers.append(Server("stringsh", StdioServerParameters(command=command, args=args, env=env),
                                  work / "stringsh", log=work / "stringsh.log"))
        node = subprocess.run([servers[0].params.command, "--version"], capture_output=True, text=True).stdout.strip()
        print(f"reference: {VERSION} on node {node}; stringsh {stringsh.__version__}"
              f" on Python {sys.version.split()[0]}; {options.runs} runs of {options.rounds} rounds and"
              f" {options.startups} start-ups")
        floor = {} if options.reference_only else floor_commands(package, work / "stringsh")
        floor_ms: dict[str, list[float]] = {}
        try:
            for _ in range(options.runs):
                anyio.run(run, servers, options.rounds, options.startups, floor, floor_ms, tuple(options.calls))
                for server in servers:
                    server.end_run()
        except Exception:
            print(servers[-1].stderr(), file=sys.stderr)
            raise
        report(servers)
        if floor_ms:
            print("start-up floor (p50): " + "; ".join(f"{what} {statistics.median(took):.0f} ms"
                                                         for what, took in floor_ms.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
