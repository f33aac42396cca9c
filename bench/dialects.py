"""Per-request overhead of each agent dialect over the same engine call, as ratios to String Commands in the same run.

    python bench/dialects.py [--runs 100] [--kb 100]

Three long-lived processes on pipes, in one temp workspace (the user policy allows operator changes unattended):
the plain loop (`stringsh` with stdin a pipe), `stringsh operator` and `stringsh tools`. Timed from writing the
request to reading the end of its reply (process start-up is not counted), requests alternating between the
dialect and its String Commands reference so that load from other processes hits both alike:
- write: `/write --force w.txt <<EOF` (100 KB) vs an OPERATOR_CMD `fs.write` with the same bytes as `content_b64`;
- read: `/open r.txt` of a 100 KB file (its first 400 lines, the plain loop's output limit) vs JSON tools `read`
  of the same 400 lines, and of the whole file (numbered lines), for scale.
Goal: every ratio ≤ 1.2× at p50 (a dialect should only translate and format; the engine call is shared).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchenv import isolate_user_state

STRINGSH = [sys.executable, "-m", "stringsh"]
END_STRING = "</𝒞>\n".encode()


class Program:
    """One long-lived front end on pipes; `ask` sends a request and reads up to the reply's last line."""

    def __init__(self, args: list[str], ws: Path, last: Callable[[bytes], bool]) -> None:
        self.proc = subprocess.Popen([*STRINGSH, *args], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self.last = last

    def ask(self, request: bytes) -> bytes:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(request)
        self.proc.stdin.flush()
        reply = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"program ended; reply so far: {b''.join(reply)[:300]!r}")
            reply.append(line)
            if self.last(line):
                return b"".join(reply)

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def payload(kb: int) -> str:
    line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 the quick brown fox\n"
    return (line * (kb * 1024 // len(line) + 1))[: kb * 1024 - 1] + "\n"


def paired(ours: Callable[[], bytes], reference: Callable[[], bytes], runs: int) -> tuple[list[float], list[float]]:
    """Latencies of `ours` and `reference`, measured alternately after a warm-up."""
    for _ in range(10):
        ours()
        reference()
    a: list[float] = []
    b: list[float] = []
    for n in range(runs):
        order = ((ours, a), (reference, b)) if n % 2 == 0 else ((reference, b), (ours, a))
        for call, samples in order:
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
    return a, b


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, ref_label: str, ours: list[float], ref: list[float]) -> None:
    p50, p95 = percentile(ours, 0.5), percentile(ours, 0.95)
    r50, r95 = percentile(ref, 0.5), percentile(ref, 0.95)
    print(f"{label:28} p50 {p50 * 1e3:7.2f} ms  p95 {p95 * 1e3:7.2f} ms  | {ref_label:24} p50 {r50 * 1e3:7.2f} ms  "
          f"p95 {r95 * 1e3:7.2f} ms  | ratio p50 {p50 / r50:5.2f}  p95 {p95 / r95:5.2f}")


def main() -> None:
    isolate_user_state()
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--kb", type=int, default=100)
    options = parser.parse_args()
    text = payload(options.kb)
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    (config / "policy.toml").write_text('[operator]\nconfirm = "allow"\n')  # the user's own policy: trusted
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "r.txt").write_text(text)
        loop = Program([], ws, lambda line: line == END_STRING)
        operator = Program(["operator"], ws, lambda line: line.rstrip(b"\r\n") == b"END_OPERATOR_RESULT")
        tools = Program(["tools"], ws, lambda line: True)
        try:
            heredoc = f"/write --force w.txt <<EOF\n{text}EOF\n".encode()
            op_block = ("OPERATOR_CMD\nversion: 1\nid: w\naction: fs.write\npath: w.txt\n"
                        f"content_b64: {base64.b64encode(text.encode()).decode()}\nEND_OPERATOR_CMD\n").encode()
            read_call = json.dumps({"id": 1, "tool": "read", "args": {"file_path": "r.txt"}}).encode() + b"\n"
            window = json.dumps({"id": 2, "tool": "read", "args": {"file_path": "r.txt", "limit": 400}}).encode()
            window += b"\n"
            assert b"ok: true" in operator.ask(op_block), "operator write refused"
            assert b"ERROR" not in (answer := loop.ask(heredoc)), answer.decode()
            assert json.loads(tools.ask(read_call))["ok"] is True, "tools read refused"
            assert b"ERROR" not in loop.ask(b"/open r.txt\n"), "/open refused"
            op, ref = paired(lambda: operator.ask(op_block), lambda: loop.ask(heredoc), options.runs)
            report(f"OPERATOR_CMD fs.write {options.kb} KB", "/write --force heredoc", op, ref)
            tl, ref = paired(lambda: tools.ask(window), lambda: loop.ask(b"/open r.txt\n"), options.runs)
            report("tools read, 400 lines", "/open (400 lines)", tl, ref)
            tl, ref = paired(lambda: tools.ask(read_call), lambda: loop.ask(b"/open r.txt\n"), options.runs)
            report(f"tools read, all {options.kb} KB", "/open (400 lines)", tl, ref)
        finally:
            for program in (loop, operator, tools):
                program.close()


if __name__ == "__main__":
    main()
