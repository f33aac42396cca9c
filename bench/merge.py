"""Benchmark (a load run, with ratios): clients editing different parts of one file at once.

    python bench/merge.py [--edits 150] [--replaces 100] [--clients 4] [--repeat 3] [--against ../other-checkout]

Two scenarios, each with `--clients` `stringsh daemon --json` processes (one client each) sending their requests
as fast as the daemon answers:

- blocks: each client sends `--edits` `/edit doc.md#part-K` (K its own section of one shared doc.md);
- replaces: each client sends `--replaces` `/replace r.txt` of its own line (`slotK=<n>` → `slotK=<n+1>`).

Reported per scenario: the refusal rate (goal: 0%, as no two clients touch the same text), whether the file ends
with every client's last accepted edit (no lost update), throughput (requests and accepted edits per second, all
clients), and the
time per edit against the reference measured in the same run: one client alone sending the same requests (its
time per edit is printed beside each ratio). Medians of `--repeat` runs. `--against` runs another checkout's
daemons the same way (its folder first on PYTHONPATH), e.g. the version before a change, for its refusal rate.
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
from benchenv import isolate_user_state

HERE = Path(__file__).resolve().parents[1]


def doc_text(values: list[str]) -> str:
    return "# Doc\n\n" + "".join(f"## Part {k}\n\n{value}\n\n" for k, value in enumerate(values))


def slots_text(values: list[int]) -> str:
    return "".join(f"slot{k}={value}\n" for k, value in enumerate(values))


def request(kind: str, k: int, n: int, value: int) -> str:
    """Client k's n-th request (1-based); a replace names the value its last accepted one left (`value`)."""
    if kind == "blocks":
        return f"/edit doc.md#part-{k}\nvalue {k}.{n}\n"
    return f"/replace r.txt\nslot{k}={value}\n---\nslot{k}={value + 1}\n"


@dataclass
class Run:
    seconds: float
    edits: int
    refused: int
    codes: dict[str, int]
    last: list[int]  # per client: the number of its last accepted request (0: none)


def client(tree: Path, ws: Path, kind: str, k: int, count: int, out: list[dict[str, object]]) -> None:
    """One daemon, one client: each request written as the reply to the one before comes (as fast as it answers)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.Popen([sys.executable, "-m", "stringsh", "daemon", "--json"], cwd=ws, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    value = 0
    try:
        for n in range(1, count + 1):
            proc.stdin.write(json.dumps({"id": n, "cmd": request(kind, k, n, value) if kind else "/ls"}) + "\n")
            proc.stdin.flush()
            reply = json.loads(proc.stdout.readline())
            value += 1 if reply["ok"] else 0
            out.append(reply)
    finally:
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
    client(tree, ws, "", 0, 1, [])


def run(tree: Path, kind: str, clients: int, count: int, topics: bool = False) -> Run:
    """`clients` daemons at once on a fresh workspace, each sending `count` requests of `kind`; timed from when all
    have started their first request to the last reply."""
    with tempfile.TemporaryDirectory(prefix="stringsh-merge-") as tmp:
        ws = Path(tmp)
        (ws / "doc.md").write_text(doc_text(["start"] * clients))
        (ws / "r.txt").write_text(slots_text([0] * clients))
        warm(tree, ws)
        outs: list[list[dict[str, object]]] = [[] for _ in range(clients)]
        shared = SharedDaemon(tree, ws) if topics else None
        if shared is not None:
            shared.ask(0, 0, "/ls")  # started and answering before the clock starts
            threads = [threading.Thread(target=topic_client, args=(shared, kind, k, count, outs[k]))
                       for k in range(clients)]
        else:
            threads = [threading.Thread(target=client, args=(tree, ws, kind, k, count, outs[k]))
                       for k in range(clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        if shared is not None:
            shared.close()
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
        return Run(seconds, clients * count, sum(codes.values()) - (lost or 0), codes, last)


def check(ws: Path, kind: str, outs: list[list[dict[str, object]]], last: list[int]) -> int:
    """How many clients' parts do not hold their last accepted edit (a lost update)."""
    if kind == "blocks":
        text = (ws / "doc.md").read_text()
        return sum(f"## Part {k}\n\n{f'value {k}.{n}' if n else 'start'}\n" not in text for k, n in enumerate(last))
    lines = (ws / "r.txt").read_text().splitlines()
    return sum(lines[k] != f"slot{k}={n}" for k, n in enumerate(last))


def measure(tree: Path, kind: str, clients: int, count: int, repeat: int,
            topics: bool = False) -> tuple[Run, float, float]:
    """The median run of `clients` at once, the median solo seconds per edit and the median loaded seconds per
    edit per client (each client's own pace)."""
    solo = [run(tree, kind, 1, count, topics) for _ in range(repeat)]
    loaded = [run(tree, kind, clients, count, topics) for _ in range(repeat)]
    middle = sorted(loaded, key=lambda r: r.seconds)[len(loaded) // 2]
    return (middle, statistics.median(r.seconds / r.edits for r in solo),
            statistics.median(r.seconds / count for r in loaded))


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
            middle, solo, pace = measure(tree, kind, args.clients, count, args.repeat, args.topics)
            rate = 100 * middle.refused / middle.edits
            codes = ", ".join(f"{code} {n}" for code, n in sorted(middle.codes.items())) or "none"
            print(f"{kind:9s} {args.clients} clients x {count}: refused {middle.refused}/{middle.edits} "
                  f"({rate:.1f}%, goal 0%), refusals: {codes}")
            accepted = middle.edits - middle.refused
            print(f"{'':9s} throughput {middle.edits / middle.seconds:.0f} requests/s, "
                  f"{accepted / middle.seconds:.0f} accepted edits/s; time per edit per client "
                  f"{pace * 1000:.1f} ms = {pace / solo:.2f}x one client alone ({solo * 1000:.1f} ms)")
            if tree == HERE:
                who = "topics of one daemon" if args.topics else "clients"
                record.record("writes", f"{args.clients} {who}, {kind}: time per edit", pace, "one client alone",
                              solo, args.clients / 2.5)  # the goal: the clients together >= 2.5x one's edits/s
    return 0


if __name__ == "__main__":
    sys.exit(main())
