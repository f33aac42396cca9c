"""Benchmark (not a test): many agents on one workspace. 32 MCP HTTP sessions (one `stringsh mcp --http`, the SDK's
client) and 32 daemon topics (one `stringsh daemon`, `<𝒞=string:TOPIC>` framing) work at once on one 5,000-file
tree, each doing N mixed operations on shared and private files.

    python bench/load.py [--ops 500] [--think 1000] [--mcp 32] [--topics 32] [--seed 0]
    python bench/load.py --think 0      # the saturation run: throughput and queueing

Operations: read, edit (one line of a shared file, or of a private one), write (a private file), grep (one folder
of the tree), bash, undo (right after the client's own private change, so it takes exactly that back). A shared
file has one counter line per client, which only that client edits, so every accepted edit is checkable.

Load. Every client starts at once and, like an agent waiting for its model's next turn, thinks between two calls:
a pause drawn from an exponential distribution around `--think` ms (default 1,000: far below any real model's turn,
which takes seconds; so all 64 clients are active together, and calls arrive as independent agents' would, not in
lock step). The offered load is then clients / (think + service time), reported beside the achieved throughput.
`--think 0` fires every call the moment the last one returned: a closed loop that saturates the machine, where by
Little's law each call waits about clients / throughput whatever the server does; that run reports throughput and
the queueing figures (mean calls in the system, the wait they imply) rather than a latency goal.

Reported: p50/p99 of each operation under load against one client's p50 alone, measured first twice, the same mix each
time: back to back (no think time: the pure service time, every cache warm) and then with the same think time as under
load (the goal's baseline: one agent working as each of the 64 does, so the ratio shows what the other clients add,
not what a pause between calls costs on its own); offered and achieved throughput, the CPU each process used per call,
and the invariants after, checked in every mode: no lost update (every private file as its client's accepted writes,
edits and undos left it; every counter line at its client's count of accepted edits), every refusal reported as
`CONFLICT` (any other code is listed), `stringsh audit verify` passing, and the servers' memory (peak, and resident
after the solo run against after the load, so growth with the calls served shows). The daemon's clients expect some:
String's `/write` overwrites only a file its topic has read (or with `--force`), and a client here writes a private
file it may not have opened; MCP `write_file`, like the reference server, has no such rule.

Before measuring, every client connects (MCP `initialize`) and makes one call, `true` in its shell, as an agent's
first step starts its shell: the figures are those of 64 connected agents at work, not of 64 connecting at once. The
bench's own process freezes its start-up objects out of its garbage collector before measuring (`gc.freeze`): its
64 clients' full collections took ~80 ms each and landed on whichever calls were in flight.

The filesystem under the workspace is watched meanwhile by a process of its own (bench/stallwatch.py), which rewrites
a small file beside it every 10 ms and counts the rewrites that stalled 50 ms or more, in the solo runs and under
load: a stall of the disk holds up every process's writes, a wait of ours only our calls. `TMPDIR=/dev/shm` puts the
workspace, its engine state and the configuration on tmpfs, which has no such stalls; the rows of such a run are
recorded as an area of their own (`load-tmpfs`).

Goal, at the default think time: every operation's p99 under load <= 5x its single-client p50, zero lost updates.
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

# This folder holds a bench named like the SDK's package (mcp.py): it goes last on the path.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

import anyio
import record
from benchenv import cpu_seconds, isolate_user_state
from stallwatch import StallWatch, filesystem

OPS = ("read", "edit", "write", "grep", "bash", "undo")
WEIGHTS = {"read": 30, "edit": 25, "write": 10, "grep": 10, "bash": 15, "undo": 10}
FOLDERS, PER_FOLDER = 50, 100
SHARED_FILES = 8
PRIVATE_FILES = 4
PRIVATE_LINES = 5
CODE = re.compile(r"^(?:re: [^\n]*\n)?ERROR\(([A-Z0-9_]+)\)")
END = "</𝒞>"
#: The default mean think time between a client's calls, ms (see the docstring).
THINK_MS = 1000.0


def build_tree(root: Path, clients: list[str]) -> None:
    """5,000 files in 50 folders, the shared files (a counter line per client), each client's private files."""
    for folder in range(FOLDERS):
        sub = root / "tree" / f"d{folder:02d}"
        sub.mkdir(parents=True)
        for index in range(PER_FOLDER):
            word = "needle" if index % 7 == 0 else "hay"
            (sub / f"f{index:03d}.txt").write_text(f"file {folder}/{index}\n{word} line\nend\n")
    (root / "shared").mkdir()
    for index in range(SHARED_FILES):
        (root / "shared" / f"s{index}.txt").write_text("".join(f"slot-{name}: 0\n" for name in clients))
    for name in clients:
        (root / "priv" / name).mkdir(parents=True)
        for index in range(PRIVATE_FILES):
            (root / "priv" / name / f"p{index}.txt").write_text(private_text(0, [0] * PRIVATE_LINES))


def private_text(generation: int, values: list[int]) -> str:
    return f"generation {generation}\n" + "".join(f"line-{k}: {v}\n" for k, v in enumerate(values))


@dataclass
class Agent:
    """One client's plan and what it knows it did: its model of its files, its counters, its timings."""

    name: str
    rng: random.Random
    send: Callable[[str, dict[str, object]], Awaitable[tuple[bool, str, str]]]
    private: dict[str, tuple[int, list[int]]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    #: (path, model before) of the client's last accepted private change, while `undo` may take it back.
    undoable: tuple[str, tuple[int, list[int]]] | None = None
    times: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in OPS})
    refusals: dict[str, int] = field(default_factory=dict)
    generation: int = 0
    #: How long its run under load took (its calls, their think times).
    elapsed: float = 0.0

    def __post_init__(self) -> None:
        for index in range(PRIVATE_FILES):
            self.private[f"priv/{self.name}/p{index}.txt"] = (0, [0] * PRIVATE_LINES)
        for index in range(SHARED_FILES):
            self.counters[f"shared/s{index}.txt"] = 0

    def pick(self) -> str:
        ops = [op for op in OPS if op != "undo" or self.undoable is not None]
        return self.rng.choices(ops, [WEIGHTS[op] for op in ops])[0]

    async def step(self) -> None:
        op = self.pick()
        rng = self.rng
        before: tuple[str, tuple[int, list[int]]] | None = None
        after: tuple[int, list[int]] | None = None
        counter: str | None = None
        if op == "read":
            target = rng.choice([*self.private, *self.counters, f"tree/d{rng.randrange(FOLDERS):02d}/f000.txt"])
            args: dict[str, object] = {"path": target}
        elif op == "grep":
            args = {"pattern": "needle", "path": f"tree/d{rng.randrange(FOLDERS):02d}"}
        elif op == "bash":
            args = {"command": "echo $((6 * 7)); ls | wc -l"}
        elif op == "undo":
            args = {}
        elif op == "write":
            path = rng.choice(list(self.private))
            self.generation += 1
            values = [rng.randrange(1000) for _ in range(PRIVATE_LINES)]
            before, after = (path, self.private[path]), (self.generation, values)
            args = {"path": path, "content": private_text(*after)}
        elif rng.random() < 0.5:  # edit: this client's counter line of a shared file
            counter = rng.choice(list(self.counters))
            count = self.counters[counter]
            args = {"path": counter, "old": f"slot-{self.name}: {count}\n", "new": f"slot-{self.name}: {count + 1}\n"}
        else:  # edit: one line of a private file
            path = rng.choice(list(self.private))
            generation, values = self.private[path]
            line = rng.randrange(PRIVATE_LINES)
            new = [*values]
            new[line] += 1
            before, after = (path, (generation, values)), (generation, new)
            args = {"path": path, "old": f"line-{line}: {values[line]}\n", "new": f"line-{line}: {new[line]}\n"}
        started = time.perf_counter()
        ok, code, _text = await self.send(op, args)
        self.times[op].append(time.perf_counter() - started)
        if not ok:
            key = f"{op} {'shared' if counter else 'private' if before else ''} {code}".replace("  ", " ")
            self.refusals[key] = self.refusals.get(key, 0) + 1
            if op == "undo":
                self.undoable = None
            return
        if op == "undo":
            assert self.undoable is not None
            path, state = self.undoable
            self.private[path] = state
            self.undoable = None
        elif counter is not None:
            self.counters[counter] += 1
            self.undoable = None  # `undo` would now take back the shared edit: not planned
        elif before is not None and after is not None:
            self.private[before[0]] = after
            self.undoable = before


def outcome(text: str, is_error: bool) -> tuple[bool, str]:
    match = CODE.match(text)
    if match:
        return False, match.group(1)
    return (not is_error), ("EXIT" if is_error else "")


class McpDriver:
    """One SDK client session over streamable HTTP."""

    def __init__(self, session: object) -> None:
        self.session = session

    async def send(self, op: str, args: dict[str, object]) -> tuple[bool, str, str]:
        if op == "read":
            call = ("read_text_file", {"path": args["path"]})
        elif op == "grep":
            call = ("grep", {"pattern": args["pattern"], "path": args["path"]})
        elif op == "bash":
            call = ("bash", {"command": args["command"]})
        elif op == "undo":
            call = ("undo", {})
        elif op == "write":
            call = ("write_file", {"path": args["path"], "content": args["content"]})
        else:
            call = ("edit_file", {"path": args["path"], "edits": [{"oldText": args["old"], "newText": args["new"]}]})
        result = await self.session.call_tool(*call)  # type: ignore[attr-defined]
        text = result.content[0].text if result.content else ""
        ok, code = outcome(text, bool(result.is_error))
        return ok, code, text


class Daemon:
    """One `stringsh daemon` process; each topic has one request in flight, replies matched by their frame."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.waiting: dict[str, anyio.abc.ObjectSendStream[str]] = {}
        self.lock = anyio.Lock()

    async def read_replies(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        topic: str | None = None
        lines: list[str] = []
        async for chunk in self.process.stdout:
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                line = raw.decode("utf-8", "replace")
                if topic is None and line.startswith("<𝒞=string:"):
                    topic, lines = line[len("<𝒞=string:"):-1], []
                elif line == END and topic is not None:
                    await self.waiting.pop(topic).send("\n".join(lines))
                    topic = None
                else:
                    lines.append(line)

    async def ask(self, topic: str, request: str) -> str:
        send, receive = anyio.create_memory_object_stream[str](1)
        self.waiting[topic] = send
        async with self.lock:
            assert self.process.stdin is not None
            await self.process.stdin.send(f"<𝒞=string:{topic}>\n{request}\n{END}\n".encode())
        return await receive.receive()


class DaemonDriver:
    def __init__(self, daemon: Daemon, topic: str) -> None:
        self.daemon = daemon
        self.topic = topic

    async def send(self, op: str, args: dict[str, object]) -> tuple[bool, str, str]:
        if op == "read":
            request = f"/open {args['path']}"
        elif op == "grep":
            request = f"/grep -- {args['pattern']} {args['path']}"
        elif op == "bash":
            request = f"!{args['command']}"
        elif op == "undo":
            request = "/undo"
        elif op == "write":
            request = f"/write {args['path']} <<EOF\n{args['content']}EOF"
        else:
            request = f"/replace {args['path']} <<EOF\n{args['old']}---\n{args['new']}EOF"
        text = await self.daemon.ask(self.topic, request)
        shell_failed = op == "bash" and not re.search(r"^exit: 0 \|", text, re.MULTILINE)
        ok, code = outcome(text, shell_failed)
        return ok, code, text


def status_kib(pid: int, field: str) -> int:
    """A memory figure of the process in KiB (VmHWM: its peak resident memory; VmRSS: now); 0 when gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def run_agents(agents: list[Agent], ops: int, think: float = 0.0) -> float:
    """Every agent's `ops` steps at once, each after a think time drawn around `think` seconds (its own random
    stream, so the operations are the same whatever the think time); the wall time."""
    started = time.perf_counter()

    async def one(agent: Agent) -> None:
        pauses = random.Random(f"think-{agent.name}")
        begun = time.perf_counter()
        for _ in range(ops):
            if think > 0:
                await anyio.sleep(pauses.expovariate(1 / think))
            await agent.step()
        agent.elapsed = time.perf_counter() - begun

    async with anyio.create_task_group() as group:
        for agent in agents:
            group.start_soon(one, agent)
    return time.perf_counter() - started


async def bench(root: Path, args: argparse.Namespace, mcp_names: list[str], topic_names: list[str],
                report: dict[str, object], watch: StallWatch) -> None:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import Implementation

    from stringsh.userdirs import config_dir

    token = secrets.token_urlsafe(32)
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "mcp-token").write_text(token)
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    stringsh = [sys.executable, "-m", "stringsh", "--root", str(root)]
    server = subprocess.Popen([*stringsh, "mcp", "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("stringsh mcp --http did not start") from None
            await anyio.sleep(0.1)
    daemon_process = await anyio.open_process([*stringsh, "daemon"], stderr=subprocess.DEVNULL)
    daemon = Daemon(daemon_process)
    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with anyio.create_task_group() as readers:
            readers.start_soon(daemon.read_replies)
            from contextlib import AsyncExitStack

            async with AsyncExitStack() as stack:
                sessions = {}
                for name in mcp_names:
                    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=300))
                    read, write, *_ = await stack.enter_async_context(streamable_http_client(url, http_client=http))
                    session = await stack.enter_async_context(
                        ClientSession(read, write, client_info=Implementation(name=name, version="1")))
                    await session.initialize()
                    sessions[name] = session

                def agent(name: str, seed: int) -> Agent:
                    driver = (McpDriver(sessions[name]) if name in sessions
                              else DaemonDriver(daemon, f"load-{name}"))
                    return Agent(name, random.Random(seed), driver.send)

                # Connecting, not measured: every client's first call (its shell started, as an agent's first step
                # is), so the figures are those of 64 connected agents at work, not of 64 connecting at once.
                async with anyio.create_task_group() as connecting:
                    for name in mcp_names:
                        connecting.start_soon(McpDriver(sessions[name]).send, "bash", {"command": "true"})
                    for name in topic_names:
                        connecting.start_soon(DaemonDriver(daemon, f"load-{name}").send, "bash", {"command": "true"})
                # The clients' own start-up and sessions stay out of this process's collector's sight: else its
                # full collections (~80 ms each, measured) would add to whichever calls are in flight.
                gc.freeze()
                solo_ops = min(args.ops, 100)
                watch.mark("solo")
                solo = [agent(mcp_names[0], args.seed), agent(topic_names[0], args.seed + 1)]
                for one in solo:  # one client alone, back to back: the pure service time
                    await run_agents([one], solo_ops)
                report["baseline"] = {(kind(one), op): list(one.times[op]) for one in solo for op in OPS}
                for one in solo:
                    one.times = {op: [] for op in OPS}
                report["alone"] = report["baseline"]
                if args.think > 0:  # one client alone as it works under load: pausing between calls
                    for one in solo:
                        await run_agents([one], solo_ops, args.think / 1000)
                    report["alone"] = {(kind(one), op): list(one.times[op]) for one in solo for op in OPS}
                    for one in solo:
                        one.times = {op: [] for op in OPS}
                others = mcp_names[1:] + topic_names[1:]
                load = [*(agent(name, args.seed + 2 + index) for index, name in enumerate(others)),
                        *solo]  # the baseline clients go on under load too
                pids = {"mcp --http": server.pid, "daemon": daemon_process.pid}
                report["rss solo"] = {name: status_kib(pid, "VmRSS") for name, pid in pids.items()}
                cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
                cpu_before["bench clients"] = cpu_seconds(os.getpid(), tree=False)
                watch.mark("load")
                wall = await run_agents(load, args.ops, args.think / 1000)
                watch.mark(None)
                report["cpu"] = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
                report["cpu"]["bench clients"] = cpu_seconds(os.getpid(), tree=False) - cpu_before["bench clients"]
                report["load"], report["wall"] = load, wall
                report["rss load"] = {name: status_kib(pid, "VmRSS") for name, pid in pids.items()}
                report["peak"] = {name: status_kib(pid, "VmHWM") for name, pid in pids.items()}
            assert daemon_process.stdin is not None
            await daemon_process.stdin.aclose()
            await daemon_process.wait()
            readers.cancel_scope.cancel()
    finally:
        server.terminate()
        server.wait(timeout=30)


def kind(agent: Agent) -> str:
    """`mcp` or `daemon`: which front end the agent works through (by its name: m00, d00)."""
    return "mcp" if agent.name.startswith("m") else "daemon"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def check(root: Path, agents: list[Agent]) -> list[str]:
    """The lost updates: files or counter lines not as their client's accepted changes left them."""
    lost = []
    shared = {path: (root / path).read_text() for path in agents[0].counters}
    for agent in agents:
        for path, (generation, values) in agent.private.items():
            if (root / path).read_text() != private_text(generation, values):
                lost.append(f"{path}: not as {agent.name}'s accepted changes left it")
        for path, count in agent.counters.items():
            if f"slot-{agent.name}: {count}\n" not in shared[path]:
                lost.append(f"{path}: {agent.name}'s counter is not {count}")
    return lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=500, help="operations per client (500)")
    parser.add_argument("--mcp", type=int, default=32, help="concurrent MCP HTTP sessions (32)")
    parser.add_argument("--topics", type=int, default=32, help="concurrent daemon topics (32)")
    parser.add_argument("--think", type=float, default=THINK_MS,
                        help=f"mean think time between a client's calls, ms ({THINK_MS:g}; 0: the saturation run)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    isolate_user_state()
    mcp_names = [f"m{index:02d}" for index in range(max(args.mcp, 1))]
    topic_names = [f"d{index:02d}" for index in range(max(args.topics, 1))]
    work = Path(tempfile.mkdtemp(prefix="stringsh-load-"))
    try:
        root = work / "ws"
        root.mkdir()
        build_tree(root, mcp_names + topic_names)
        report: dict[str, object] = {}
        with StallWatch(work / "stallwatch") as watch:
            anyio.run(bench, root, args, mcp_names, topic_names, report, watch)
        agents: list[Agent] = report["load"]  # type: ignore[assignment]
        baseline: dict[tuple[str, str], list[float]] = report["baseline"]  # type: ignore[assignment]
        wall: float = report["wall"]  # type: ignore[assignment]
        lost = check(root, agents)
        verify = subprocess.run([sys.executable, "-m", "stringsh", "--root", str(root), "audit", "verify"],
                                capture_output=True, text=True)
        total = sum(len(times) for agent in agents for times in agent.times.values())
        clients = len(agents)
        solo_all = [t for times in baseline.values() for t in times]
        service = statistics.fmean(solo_all)
        latency = statistics.fmean([t for agent in agents for times in agent.times.values() for t in times])
        # each client's calls over its own run, summed: the rate while all run (the wall time also holds the tail
        # where the last few finish alone)
        achieved = sum(sum(len(times) for times in agent.times.values()) / agent.elapsed for agent in agents)
        print(f"{len(mcp_names)} MCP HTTP sessions + {len(topic_names)} daemon topics, {args.ops} operations each, "
              f"{FOLDERS * PER_FOLDER} tree files, think time {args.think:g} ms (mean, exponential)")
        if args.think > 0:
            offered = clients / (args.think / 1000 + service)
            print(f"offered load: {offered:.1f} calls/s ({clients} clients / ({args.think:g} ms think + "
                  f"{service * 1e3:.1f} ms mean solo service)); achieved: {achieved:.1f} calls/s "
                  f"({total} calls, the last done after {wall:.1f} s)")
        else:
            print(f"saturation (closed loop, no think time): {achieved:.1f} calls/s ({total} calls, the last done "
                  f"after {wall:.1f} s)")
        # Little's law: calls in the system = throughput x time in it; at --think 0 that is every client, so each
        # call's wait is the others' service, whatever the server does
        print(f"queueing: mean latency {latency * 1e3:.1f} ms against {service * 1e3:.1f} ms solo; calls in the "
              f"servers on average {achieved * latency:.1f} of {clients} clients (Little: throughput x latency)")
        cpu: dict[str, float] = report["cpu"]  # type: ignore[assignment]
        print("CPU per call: " + ", ".join(f"{name} {seconds / total * 1e3:.1f} ms ({seconds / wall:.2f} cores)"
                                           for name, seconds in cpu.items()))
        print(watch.line(["solo", "load"]))
        # on tmpfs the disk's stalls are out of the figures: its rows are an area of their own (docs/benchmarks.md)
        area = "load-tmpfs" if filesystem(root)[0] == "tmpfs" else "load"
        alone_think: dict[tuple[str, str], list[float]] = report["alone"]  # type: ignore[assignment]
        print("solo: one client alone, back to back (its service time) and pausing as under load (the goal's "
              "baseline: the same client, the same pauses, only the other clients missing)")
        print(f"{'operation':<16}{'solo b2b':>10}{'solo p50':>10}{'load p50':>10}{'load p99':>10}"
              f"{'p99/solo':>10}{'p99/b2b':>9}")
        worst = worst_b2b = 0.0
        worst_op = worst_b2b_op = ""
        for front, op in [(front, op) for front in ("mcp", "daemon") for op in OPS]:
            alone = alone_think[front, op]
            loaded = [t for agent in agents if kind(agent) == front for t in agent.times[op]]
            if not alone or not loaded or not baseline[front, op]:
                continue
            b2b, base, p99 = statistics.median(baseline[front, op]), statistics.median(alone), percentile(loaded, 0.99)
            if p99 / base > worst:
                worst, worst_op = p99 / base, f"{front} {op}"
            if p99 / b2b > worst_b2b:
                worst_b2b, worst_b2b_op = p99 / b2b, f"{front} {op}"
            p50 = statistics.median(loaded)
            print(f"{front + ' ' + op:<16}{b2b * 1e3:>8.1f}ms{base * 1e3:>8.1f}ms{p50 * 1e3:>8.1f}ms"
                  f"{p99 * 1e3:>8.1f}ms{p99 / base:>9.1f}x{p99 / b2b:>8.1f}x")
            if args.think > 0:  # the goal's load; saturation runs are not comparable
                record.record(area, f"{front} {op} p99 under load", p99, "one client alone, p50", base, 5)
        refusals: dict[str, int] = {}
        for agent in agents:
            for code, count in agent.refusals.items():
                refusals[f"{kind(agent)} {code}"] = refusals.get(f"{kind(agent)} {code}", 0) + count
        others = {code: count for code, count in refusals.items() if not code.endswith(" CONFLICT")}
        print(f"refusals: {refusals or 'none'}; every refusal CONFLICT: {'yes' if not others else f'no {others}'}")
        print(f"lost updates: {len(lost)}" + "".join(f"\n  {line}" for line in lost[:20]))
        print(f"audit verify: {'passes' if verify.returncode == 0 else 'FAILS: ' + verify.stdout + verify.stderr}")
        peak: dict[str, int] = report["peak"]  # type: ignore[assignment]
        solo_rss: dict[str, int] = report["rss solo"]  # type: ignore[assignment]
        load_rss: dict[str, int] = report["rss load"]  # type: ignore[assignment]
        print("memory: " + ", ".join(f"{name} peak {kib / 1024:.0f} MiB, resident {solo_rss[name] / 1024:.0f} MiB "
                                     f"after the solo run, {load_rss[name] / 1024:.0f} MiB after the load"
                                     for name, kib in peak.items()))
        met = worst <= 5 and not lost
        where = f"think {args.think:g} ms" if args.think > 0 else "saturation, no think time: not the goal's load"
        print(f"goal ({where}): p99 under load <= 5x single-client p50 (worst {worst:.1f}x, {worst_op}; against "
              f"back to back: {worst_b2b:.1f}x, {worst_b2b_op}), zero lost updates ({len(lost)}): "
              f"{'met' if met else 'not met'}")
        return 0 if not lost and not others and verify.returncode == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
