"""Benchmark: what each agent dialect adds per request over the same engine call, as ratios to the String Commands
path measured in the same run (goal: <= 1.2x at p50).

    python bench/dialects.py [--rounds 60] [--front loop|daemon] [--profile DIR]

Three long-lived processes on pipes, each over its own copy of one fixture workspace, started and warmed up before
any timing, so what is timed is request -> whole reply, never start-up:
- String Commands: `stringsh --no-echo` (the plain loop agents drive; `--front daemon`: `stringsh daemon`), a
  reply read up to its `</𝒞>` line;
- OPERATOR_CMD: `stringsh operator`, changes allowed by the user's own policy (`[operator] confirm = "allow"` in
  the bench's temporary STRINGSH_CONFIG_DIR), a reply read up to `END_OPERATOR_RESULT`;
- JSON tools: `stringsh tools`, one reply line.

Calls, the variants taking turns request by request (the first of each round rotating) so all see the same load:
- write 100 KB: `/write --force w.txt <<EOF ... EOF` vs an `fs.write` block with the same bytes as `content_b64`
  (goal row) vs JSON `write`; two contents alternate, so every write changes the file and is journalled;
- read 100 KB: `/open big.txt` (after `/set {_max_lines} = off`, so the whole file comes back, as the others
  return it) vs JSON `read` (goal row) vs `fs.read`.
Each row prints p50 and p95 in ms and their ratios to the String Commands row; rows without a goal are context.
`--profile DIR` runs the three servers under cProfile (DIR/<dialect>.prof, written when they exit; read them with
`python -m pstats`), which slows them all: use it to see what dominates, not for the ratios.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import record
from benchenv import compile_package, isolate_user_state

import stringsh

END = "</𝒞>"
GOAL = 1.2
#: (call, dialect) rows with the issue's goal; the others are context.
GOAL_ROWS = {("write 100 KB", "operator"), ("read 100 KB", "tools")}
DIALECT_NAMES = {"string": "String Commands", "operator": "OPERATOR_CMD", "tools": "JSON tools"}
DIALECTS = ("string", "operator", "tools")
CALLS = ("write 100 KB", "read 100 KB")


def text_of(size: int, word: str) -> str:
    """About `size` bytes of numbered lines (none of them `EOF`, so a heredoc carries it as is)."""
    line = "{:06d}: the quick brown fox jumps over the lazy " + word + ", then reads the next line of the file\n"
    lines, total = [], 0
    while total < size:
        lines.append(line.format(len(lines)))
        total += len(lines[-1])
    return "".join(lines)


@dataclass
class Server:
    """One long-lived process: how a request is sent and its reply read, and what it measured."""

    name: str
    proc: subprocess.Popen[bytes]
    samples: dict[str, list[float]] = field(default_factory=dict)
    sent: int = 0

    @property
    def stdin(self) -> IO[bytes]:
        assert self.proc.stdin is not None
        return self.proc.stdin

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def reply(self, request: bytes) -> str:
        """Send one request, return its whole reply."""
        self.stdin.write(request)
        self.stdin.flush()
        if self.name == "tools":
            return self.stdout.readline().decode()
        end = END if self.name == "string" else "END_OPERATOR_RESULT"
        lines = []
        while True:
            line = self.stdout.readline().decode()
            if not line:
                raise SystemExit(f"{self.name} ended; it had sent:\n{''.join(lines)[-2000:]}")
            lines.append(line)
            if line.rstrip("\n") == end:
                return "".join(lines)


def start(name: str, ws: Path, front: str, profile: Path | None) -> Server:
    args = {"string": ["daemon"] if front == "daemon" else ["--no-echo"], "operator": ["operator"],
            "tools": ["tools"]}[name]
    python = [sys.executable, *(["-m", "cProfile", "-o", str(profile / f"{name}.prof")] if profile else [])]
    env = {**os.environ, "PYTHONPATH": str(Path(stringsh.__file__).parent.parent), "TERM": "dumb"}
    proc = subprocess.Popen([*python, "-m", "stringsh", *args], cwd=ws, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    return Server(name, proc)  # on pipes no banner comes first: the first reply is the first request's


def requests(name: str, what: str, content: str) -> bytes:
    """The request `name` sends for `what` (`content`: the bytes a write puts)."""
    if name == "string":
        if what == "write 100 KB":
            return f"/write --force w.txt <<EOF\n{content}EOF\n".encode()
        return b"/open big.txt\n"
    if name == "operator":
        if what == "write 100 KB":
            fields = ["action: fs.write", "path: w.txt", f"content_b64: {base64.b64encode(content.encode()).decode()}"]
        else:
            fields = ["action: fs.read", "path: big.txt"]
        return ("\n".join(["OPERATOR_CMD", "version: 1", "id: b1", *fields, "END_OPERATOR_CMD"]) + "\n").encode()
    if what == "write 100 KB":
        call = {"id": 1, "tool": "write", "args": {"file_path": "w.txt", "content": content}}
    else:
        call = {"id": 1, "tool": "read", "args": {"file_path": "big.txt"}}
    return json.dumps(call).encode() + b"\n"


def succeeded(name: str, what: str, reply: str) -> bool:
    if name == "string":
        lines = reply.split("\n")
        done = ("Written: w.txt", "Created: w.txt") if what.startswith("write") else ("Opened big.txt",)
        return lines[1 + reply.startswith("<𝒞")].startswith(done)
    if name == "operator":
        return "\nok: true\n" in reply
    return json.loads(reply).get("ok") is True


def measure(servers: list[Server], rounds: int, contents: tuple[str, str], timed: bool) -> None:
    payloads = {(s.name, what, k): requests(s.name, what, contents[k])
                for s in servers for what in CALLS for k in (0, 1)}
    for turn in range(rounds):
        for what in CALLS:
            for server in servers[turn % len(servers):] + servers[: turn % len(servers)]:
                request = payloads[(server.name, what, server.sent % 2)]
                if what.startswith("write"):
                    server.sent += 1
                begin = time.perf_counter()
                reply = server.reply(request)
                took = (time.perf_counter() - begin) * 1000
                if not succeeded(server.name, what, reply):
                    raise SystemExit(f"{server.name}: {what} failed:\n{reply[:1000]}")
                if timed:
                    server.samples.setdefault(what, []).append(took)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(servers: list[Server], rounds: int, front: str) -> None:
    print(f"stringsh {stringsh.__version__} on Python {sys.version.split()[0]}; {rounds} rounds; String Commands "
          f"through {'`stringsh daemon`' if front == 'daemon' else '`stringsh --no-echo`'}")
    print(f"{'call':<14} {'dialect':<9} {'p50 ms':>8} {'p95 ms':>8} {'p50 x':>6} {'p95 x':>6} {'goal':>5}")
    for what in CALLS:
        ref = servers[0].samples[what]
        r50, r95 = statistics.median(ref), percentile(ref, 0.95)
        for server in servers:
            own = server.samples[what]
            o50, o95 = statistics.median(own), percentile(own, 0.95)
            goal = f"{GOAL}x" if (what, server.name) in GOAL_ROWS else ""
            print(f"{what:<14} {server.name:<9} {o50:>8.2f} {o95:>8.2f} {o50 / r50:>5.2f}x {o95 / r95:>5.2f}x "
                  f"{goal:>5}")
            if server is not servers[0]:
                record.record("front ends", f"{DIALECT_NAMES[server.name]} {what}, p50", o50 / 1000,
                              "String Commands", r50 / 1000, GOAL if goal else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="timed requests of each kind per dialect")
    parser.add_argument("--front", choices=("loop", "daemon"), default="loop",
                        help="String Commands through the plain loop (--no-echo) or the daemon")
    parser.add_argument("--profile", type=Path, help="run the servers under cProfile, stats written to this folder")
    options = parser.parse_args()
    isolate_user_state()
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    (config / "policy.toml").write_text('[operator]\nconfirm = "allow"\n')  # the user's own (trusted) policy
    home = Path(tempfile.mkdtemp(prefix="stringsh-bench-home-"))
    for variable in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        os.environ[variable] = str(home / variable.lower())
    os.environ["STRINGSH_HISTORY"] = str(home / "history")
    compile_package()  # no run pays for compiling
    if options.profile:
        options.profile.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="stringsh-bench-dialects-"))
    servers: list[Server] = []
    try:
        big = text_of(100 * 1024, "dog")
        contents = (text_of(100 * 1024, "cat"), text_of(100 * 1024, "owl"))
        for name in DIALECTS:
            (work / name).mkdir()
            (work / name / "big.txt").write_text(big)
            servers.append(start(name, work / name, options.front, options.profile))
        setting = servers[0].reply(b"/set {_max_lines} = off\n")
        if "ERROR" in setting:
            raise SystemExit(f"`/set {{_max_lines}} = off` failed:\n{setting}")
        measure(servers, 3, contents, timed=False)  # warm-up: lazy imports, first journal writes
        measure(servers, options.rounds, contents, timed=True)
        report(servers, options.rounds, options.front)
        sizes = {s.name: (work / s.name / "w.txt").stat().st_size for s in servers}
        print("w.txt bytes after the writes: " + ", ".join(f"{name} {size}" for name, size in sizes.items()))
    finally:
        for server in servers:
            server.stdin.close()
            server.proc.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
