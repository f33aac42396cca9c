"""Benchmark: small hostile files cost what ordinary files of their size cost, each case at
three sizes, with time and peak memory beside a reference of the same size measured in the same run.

Cases (the hostile input, then its reference):
- `/open` and `/symbols m` of nested JavaScript classes `class A{m(){` x N (closed) against a JavaScript file of
  as many bytes of ordinary functions (named `m0`, `m1`, …, so the search parses it too);
- `/open` of one minified line `function f(){return 1};` x n against the same functions one a line;
- `/open` of one `const a0=()=>1,a1=()=>1,…` of n arrow functions against n `const` lines;
- `/open` of a Python file of nested `[` against a Python file of as many bytes of ordinary lines;
- a Codex patch whose chunk almost matches at every line of the file (n `x` lines, a chunk of n/10 `x` lines then a
  line the file holds only at its top) against a patch of as many lines that matches at the file's end.
Each figure is one run in a fresh process (`python -c`, the in-process Dispatcher, so interpreter start-up is not
timed); its peak memory is the process's maximum RSS (`os.wait4`), start-up included. Linear growth shows as
ratios that stay flat while the size doubles: before the bounds, the nested case grew with the square of N (30 s and
788 MB at N = 8,000) and the others likewise.

    python bench/hostile.py [--scale 1.0] [--only TEXT]

`--scale` multiplies every size (0.25 for a quick look on a busy machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record
from benchenv import isolate_user_state

REPO = Path(__file__).resolve().parents[1]
#: The child: run one request in a Dispatcher and print its seconds (interpreter and import not counted).
CHILD = """
import json, sys, time
from stringsh.dispatcher import Dispatcher
dispatcher = Dispatcher(sys.argv[1])
request = open(sys.argv[2], encoding="utf-8").read()
started = time.perf_counter()
reply = dispatcher.execute(request)
print(json.dumps({"seconds": time.perf_counter() - started, "ok": reply.ok, "head": reply.text[:120]}))
"""


def measure(root: Path, request: str) -> tuple[float, float]:
    """(seconds, peak MB) of one request in a fresh process."""
    script = root.parent / "request.txt"
    script.write_text(request, encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(script)], stdout=subprocess.PIPE,
                             cwd=REPO, text=True)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"the request failed: {request[:60]!r}")
    return json.loads(out)["seconds"], usage.ru_maxrss / 1024


def same_size(line: str, size: int) -> str:
    """Numbered copies of `line` (`{i}` replaced) up to `size` bytes."""
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(line.format(i=i))
        total += len(parts[-1])
        i += 1
    return "".join(parts)


def cases(scale: float) -> list[tuple[str, list[int], object]]:
    def nested(n: int) -> tuple[str, str, str, str]:
        text = "class A{m(){" * n + "}}" * n + "\n"
        return "f.js", text, same_size("function m{i}() {{ return {i}; }}\n", len(text)), "/open f.js"

    def nested_search(n: int) -> tuple[str, str, str, str]:
        name, text, reference, _ = nested(n)
        return name, text, reference, "/symbols m"

    def minified(n: int) -> tuple[str, str, str, str]:
        return "f.js", "function f(){return 1};" * n + "\n", "function f(){return 1};\n" * n, "/open f.js"

    def declarators(n: int) -> tuple[str, str, str, str]:
        text = "const " + ",".join(f"a{i}=()=>1" for i in range(n)) + ";\n"
        return "f.js", text, "".join(f"const a{i}=()=>1;\n" for i in range(n)), "/open f.js"

    def brackets(n: int) -> tuple[str, str, str, str]:
        text = "x = " + "[" * n + "\n"
        return "f.py", text, same_size("value_{i} = [{i}, {i}]\n", len(text)), "/open f.py"

    def codex(n: int) -> tuple[str, str, str, str]:
        m = n // 10
        hostile = "*** Begin Patch\n*** Update File: f.txt\n@@\n" + " x\n" * m + "-y\n+z\n*** End Patch\n"
        matching = ("*** Begin Patch\n*** Update File: f.txt\n@@\n" + " x\n" * m + "-x\n+z\n*** End of File\n"
                    "*** End Patch\n")
        return "f.txt", "y\n" + "x\n" * n, matching, "/patch\n" + hostile

    def sizes(*base: int) -> list[int]:
        return [max(1, int(size * scale)) for size in base]

    return [
        ("nested classes: /open", sizes(2_000, 4_000, 8_000), nested),
        ("nested classes: /symbols m", sizes(2_000, 4_000, 8_000), nested_search),
        ("minified line: /open", sizes(25_000, 50_000, 100_000), minified),
        ("one const, n arrows: /open", sizes(25_000, 50_000, 100_000), declarators),
        ("nested [ (Python): /open", sizes(500_000, 1_000_000, 2_000_000), brackets),
        ("Codex patch search", sizes(50_000, 100_000, 200_000), codex),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", default="", help="run the cases whose title holds this text")
    args = parser.parse_args()
    isolate_user_state()
    print(f"{'case':<28} {'size':>9} {'bytes':>9} {'time':>8} {'ref':>8} {'x ref':>6} {'peak':>7} {'ref':>7} "
          f"{'x ref':>6}")
    for title, sizes, make in cases(args.scale):
        if args.only not in title:
            continue
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="stringsh-bench-hostile-") as folder:
                root = Path(folder) / "ws"
                root.mkdir()
                name, text, reference, request = make(size)  # type: ignore[operator]
                if title.startswith("Codex"):  # the reference is a patch that matches, on the same file
                    (root / name).write_text(text)
                    ref_time, ref_peak = measure(root, "/patch\n" + reference)
                    (root / name).write_text(text)
                else:
                    (root / name).write_text(reference)
                    ref_time, ref_peak = measure(root, request)
                    (root / name).write_text(text)
                seconds, peak = measure(root, request)
                print(f"{title:<28} {size:>9,} {len(text.encode()):>9,} {seconds:>7.3f}s {ref_time:>7.3f}s "
                      f"{seconds / max(ref_time, 1e-6):>5.1f}x {peak:>5.0f}MB {ref_peak:>5.0f}MB "
                      f"{peak / max(ref_peak, 1e-6):>5.2f}x", flush=True)
                if size == sizes[-1]:
                    record.record("code", f"hostile: {title}", seconds, "an ordinary file of its size", ref_time,
                                  None)


if __name__ == "__main__":
    main()
