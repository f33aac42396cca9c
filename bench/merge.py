"""Benchmark (a load run, with ratios): clients editing different parts of one file at once.

    python bench/merge.py [--edits 150] [--replaces 100] [--clients 4] [--repeat 3] [--against ../other-checkout]

Two scenarios, each with `--clients` `stringsh daemon --json` processes (one client each) sending their requests
as fast as the daemon answers:

- blocks: each client sends `--edits` `/edit doc.md#part-K` (K its own section of one shared doc.md);
- replaces: each client sends `--replaces` `/replace r.txt` of its own line (`slotK=<n>` → `slotK=<n+1>`).

Every daemon is started, and each client has sent WARM_UP requests of the same kind to files of their own, before
the clock starts: the row measures writers at work, not a process's first edit (its imports) or a topic's first
request (its shell), which a long-lived daemon pays once.

Reported per scenario: the refusal rate (goal: 0%, as no two clients touch the same text), whether the file ends
with every client's last accepted edit (no lost update), throughput (requests and accepted edits per second, all
clients), and the time per edit against the reference measured in the same run: one client alone sending the same
requests (its time per edit is printed beside each ratio). Medians of `--repeat` runs. `--against` runs another
checkout's daemons the same way (its folder first on PYTHONPATH), e.g. the version before a change, for its
refusal rate.

Beside them, where the CPU went: the daemons' and the clients' CPU per edit, alone and loaded, and the ceiling that
CPU sets on this machine: its cores' edits per second at the loaded CPU per edit, and for `--topics` one core for
the daemon, whose topics share one interpreter. Four clients reach 2.5x one client's edits per second only where
that ceiling is above 2.5x: with one client alone keeping most of a core busy, that takes less CPU per edit loaded
than alone, which only what a batch shares (its journal transaction, its syncs, its rename) can give.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

import record
from benchenv import cpu_seconds, isolate_user_state

HERE = Path(__file__).resolve().parents[1]
#: Requests each client sends to files of the warm-up's own before the clock starts: a daemon's first edit imports
#: the code edits use, and a topic's first request starts its shell (0.1-0.3 s in all, a third of one client's
#: timed run), once in a daemon's life.
WARM_UP = 5


def doc_text(values: list[str]) -> str:
    return "# Doc\n\n" + "".join(f"## Part {k}\n\n{value}\n\n" for k, value in enumerate(values))


def slots_text(values: list[int]) -> str:
    return "".join(f"slot{k}={value}\n" for k, value in enumerate(values))


def request(kind: str, k: int, n: int, value: int, *, warm: bool = False) -> str:
    """Client k's n-th request (1-based); a replace names the value its last accepted one left (`value`). `warm`:
    the same request of the warm-up's own files."""
    if kind == "blocks":
        return f"/edit {'warm.md' if warm else 'doc.md'}#part-{k}\nvalue {k}.{n}\n"
    return f"/replace {'warm.txt' if warm else 'r.txt'}\nslot{k}={value}\n---\nslot{k}={value + 1}\n"


@dataclass
class Run:
    seconds: float
    edits: int
    refused: int
    codes: dict[str, int]
    last: list[int]  # per client: the number of its last accepted request (0: none)
    daemon_cpu: float  # seconds of CPU the daemons used meanwhile (user and system)
    client_cpu: float  # and the clients (this process's threads)


def start_daemon(tree: Path, ws: Path) -> subprocess.Popen[str]:
    """A `stringsh daemon --json` of `tree` in `ws`, answering (one `/ls`) before it returns."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen([sys.executable, "-m", "stringsh", "daemon", "--json"], cwd=ws, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"id": 0, "cmd": "/ls"}) + "\n")
    proc.stdin.flush()
    json.loads(proc.stdout.readline())
    return proc


def client(proc: subprocess.Popen[str], kind: str, k: int, count: int, out: list[dict[str, object]], *,
           warm: bool = False) -> None:
    """One daemon, one client: each request written as the reply to the one before comes (as fast as it answers)."""
    assert proc.stdin is not None and proc.stdout is not None
    value = 0
    for n in range(1, count + 1):
        proc.stdin.write(json.dumps({"id": n, "cmd": request(kind, k, n, value, warm=warm)}) + "\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        value += 1 if reply["ok"] else 0
        out.append(reply)


def stop(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=120)


class SharedDaemon:
    """One daemon whose topics are the clients (`--topics`): the clients' requests interleave on its stdin, and
    one reader hands each reply to the client whose id it carries."""

    def __init__(self, tree: Path, ws: Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen([sys.executable, "-m", "stringsh", "daemon", "--json"], cwd=ws, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True)
        self.lock = threading.Lock()
        self.waiting: dict[str, queue.SimpleQueue[dict[str, object]]] = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            reply = json.loads(line)
            self.waiting.pop(str(reply["id"])).put(reply)

    def ask(self, k: int, n: int, cmd: str) -> dict[str, object]:
        answer: queue.SimpleQueue[dict[str, object]] = queue.SimpleQueue()
        self.waiting[f"{k}.{n}"] = answer
        with self.lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"id": f"{k}.{n}", "topic": f"c{k}", "cmd": cmd}) + "\n")
            self.proc.stdin.flush()
        return answer.get()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


def topic_client(daemon: SharedDaemon, kind: str, k: int, count: int, out: list[dict[str, object]]) -> None:
    """One topic of the shared daemon, each request sent as the reply to the one before comes."""
    value = 0
    for n in range(1, count + 1):
        reply = daemon.ask(k, n, request(kind, k, n, value))
        value += 1 if reply["ok"] else 0
        out.append({**reply, "id": n})


def warm(tree: Path, ws: Path) -> None:
    """One daemon start before timing (imports cached, the journal made)."""
    stop(start_daemon(tree, ws))


def run(tree: Path, kind: str, clients: int, count: int, topics: bool = False) -> Run:
    """`clients` daemons at once on a fresh workspace, each sending `count` requests of `kind`; timed from when all
    have started their first request (every daemon started and answering) to the last reply."""
    with tempfile.TemporaryDirectory(prefix="stringsh-merge-") as tmp:
        ws = Path(tmp)
        for doc, slots in (("doc.md", "r.txt"), ("warm.md", "warm.txt")):
            (ws / doc).write_text(doc_text(["start"] * clients))
            (ws / slots).write_text(slots_text([0] * clients))
        warm(tree, ws)
        outs: list[list[dict[str, object]]] = [[] for _ in range(clients)]
        shared = SharedDaemon(tree, ws) if topics else None
        if shared is not None:
            for k in range(clients):  # each topic made (its shell started) and warmed before the clock starts
                for n in range(1, WARM_UP + 1):
                    shared.ask(k, -n, request(kind, k, n, n - 1, warm=True))
            procs = [shared.proc]
            threads = [threading.Thread(target=topic_client, args=(shared, kind, k, count, outs[k]))
                       for k in range(clients)]
        else:
            procs = [start_daemon(tree, ws) for _ in range(clients)]  # each started and warmed before the clock
            for k, proc in enumerate(procs):
                client(proc, kind, k, WARM_UP, [], warm=True)
            threads = [threading.Thread(target=client, args=(proc, kind, k, count, outs[k]))
                       for k, proc in enumerate(procs)]
        daemon_cpu = sum(cpu_seconds(proc.pid, tree=False) for proc in procs)
        client_cpu = time.process_time()
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        daemon_cpu = sum(cpu_seconds(proc.pid, tree=False) for proc in procs) - daemon_cpu
        if shared is not None:
            shared.close()
        else:
            for proc in procs:
                stop(proc)
        codes: dict[str, int] = {}
        last = []
        for replies in outs:
            accepted = [int(r["id"]) for r in replies if r["ok"]]  # type: ignore[call-overload]
            last.append(max(accepted, default=0) if kind == "blocks" else len(accepted))
            for reply in replies:
                if not reply["ok"]:
                    codes[str(reply["code"])] = codes.get(str(reply["code"]), 0) + 1
        lost = check(ws, kind, outs, last)
        if lost:
            codes["LOST_UPDATE"] = lost
        return Run(seconds, clients * count, sum(codes.values()) - (lost or 0), codes, last, daemon_cpu,
                   client_cpu)


def check(ws: Path, kind: str, outs: list[list[dict[str, object]]], last: list[int]) -> int:
    """How many clients' parts do not hold their last accepted edit (a lost update)."""
    if kind == "blocks":
        text = (ws / "doc.md").read_text()
        return sum(f"## Part {k}\n\n{f'value {k}.{n}' if n else 'start'}\n" not in text for k, n in enumerate(last))
    lines = (ws / "r.txt").read_text().splitlines()
    return sum(lines[k] != f"slot{k}={n}" for k, n in enumerate(last))


def measure(tree: Path, kind: str, clients: int, count: int, repeat: int,
            topics: bool = False) -> tuple[Run, Run, float, float]:
    """The median run of `clients` at once and of one client alone, the median solo seconds per edit and the
    median loaded seconds per edit per client (each client's own pace)."""
    solo = [run(tree, kind, 1, count, topics) for _ in range(repeat)]
    loaded = [run(tree, kind, clients, count, topics) for _ in range(repeat)]
    middle = sorted(loaded, key=lambda r: r.seconds)[len(loaded) // 2]
    alone = sorted(solo, key=lambda r: r.seconds)[len(solo) // 2]
    return (middle, alone, statistics.median(r.seconds / r.edits for r in solo),
            statistics.median(r.seconds / count for r in loaded))


def ceiling(loaded: Run, topics: bool) -> tuple[float, str]:
    """The most accepted edits per second this machine's cores allow at the CPU per edit `loaded` used, and what
    bounds it: the daemons and the clients share the cores; a daemon's topics share one interpreter, whose Python
    code runs on one core at a time (its system calls may overlap, so that bound is approximate)."""
    cores = os.cpu_count() or 1
    daemon, clients = loaded.daemon_cpu / loaded.edits, loaded.client_cpu / loaded.edits
    bound = cores / (daemon + clients)
    if topics and 1 / daemon < bound:
        return 1 / daemon, "one daemon: one core, about"
    return bound, f"{cores} cores for the daemons and the clients"


def cpu_line(alone: Run, loaded: Run, clients: int, solo: float, topics: bool) -> str:
    """Where the CPU went, alone and loaded, and the ceiling it sets against the goal (2.5x one client alone)."""
    bound, why = ceiling(loaded, topics)
    who = "the daemon" if topics else "the daemons"
    return (f"CPU per edit, daemon + clients: alone {alone.daemon_cpu / alone.edits * 1000:.2f} + "
            f"{alone.client_cpu / alone.edits * 1000:.2f} ms ({alone.daemon_cpu / alone.seconds:.2f} of a core in "
            f"the daemon), {clients} clients {loaded.daemon_cpu / loaded.edits * 1000:.2f} + "
            f"{loaded.client_cpu / loaded.edits * 1000:.2f} ms ({loaded.daemon_cpu / loaded.seconds:.2f} cores in "
            f"{who}); at that CPU per edit this machine's ceiling: {bound:.0f} edits/s = {bound * solo:.2f}x one "
            f"client alone ({why}; the goal asks 2.5x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=150, help="block edits per client")
    parser.add_argument("--replaces", type=int, default=100, help="replaces per client")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; medians are reported")
    parser.add_argument("--against", type=Path, nargs="*", default=[], help="other checkouts to run the same way")
    parser.add_argument("--topics", action="store_true",
                        help="the clients are topics of one daemon (threads of one process), not daemons of their own")
    args = parser.parse_args()
    isolate_user_state()
    if shutil.which("bwrap") is None:
        print("(bubblewrap not found: no matter here, no shell command runs)")
    trees = [HERE, *(tree.resolve() for tree in args.against)]
    for tree in trees:
        print(f"== {tree}")
        for kind, count in (("blocks", args.edits), ("replaces", args.replaces)):
            middle, alone, solo, pace = measure(tree, kind, args.clients, count, args.repeat, args.topics)
            rate = 100 * middle.refused / middle.edits
            codes = ", ".join(f"{code} {n}" for code, n in sorted(middle.codes.items())) or "none"
            print(f"{kind:9s} {args.clients} clients x {count}: refused {middle.refused}/{middle.edits} "
                  f"({rate:.1f}%, goal 0%), refusals: {codes}")
            accepted = middle.edits - middle.refused
            print(f"{'':9s} throughput {middle.edits / middle.seconds:.0f} requests/s, "
                  f"{accepted / middle.seconds:.0f} accepted edits/s; time per edit per client "
                  f"{pace * 1000:.1f} ms = {pace / solo:.2f}x one client alone ({solo * 1000:.1f} ms)")
            print(f"{'':9s} {cpu_line(alone, middle, args.clients, solo, args.topics)}")
            if tree == HERE:
                who = "topics of one daemon" if args.topics else "clients"
                record.record("writes", f"{args.clients} {who}, {kind}: time per edit", pace, "one client alone",
                              solo, args.clients / 2.5)  # the goal: the clients together >= 2.5x one's edits/s
    return 0


if __name__ == "__main__":
    sys.exit(main())
