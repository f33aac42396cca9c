"""Documents benchmark: first /open, repeat /open in a new process, block open and block edit on 1 MB and 10 MB.

Each row prints its time, the reference it is compared with and the ratio, all measured in the same run, as
medians of repeats (in-process rows also give CPU time, steadier than wall time on a busy machine). The
reference is markdown-it-py's full parse of the same text (goals: first open <= 0.15x,
block open and block edit <= 0.05x); for a repeat open in a new process it is start-up: the row gives the time
`/open` takes inside a fresh process set up as `stringsh -c` sets one up (no file watcher: one request) once the
workspace is loaded (goal <= 30 ms beyond start-up, recorded as the share of those 30 ms used; also after an
`/open` of a small file, which leaves the document's own cost without the first `/open`'s imports), of a file that
has not changed for longer than the index cache's racy window (2 s; it is then trusted by its stat identity:
docs/commands.md), and the whole
`stringsh -c '/open big.md'` process beside `python -c pass` and `stringsh -c /ls` in the same workspace. The corpus
is built from the markdown files installed packages ship, repeated when there is not enough of it.

    python bench/documents.py                # 1 MB and 10 MB
    python bench/documents.py --sizes 1      # 1 MB only
    python bench/documents.py --repeat 9     # more repeats per median (default 5)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import record  # noqa: E402
from benchenv import compile_package, isolate_user_state  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402
from mdit_py_plugins.front_matter import front_matter_plugin  # noqa: E402

from stringsh.dispatcher import Dispatcher  # noqa: E402
from stringsh.render.document import Document  # noqa: E402
from stringsh.userdirs import user_policy_file  # noqa: E402

MB = 1_000_000
REPEAT_SCRIPT = """
import sys, time
sys.path.insert(0, sys.argv[2])
from stringsh.dispatcher import Dispatcher
d = Dispatcher(sys.argv[1])
d.watch_files = False  # as `stringsh -c` runs one request (script.run_one): no file watcher
d.workspace
if sys.argv[3] == "warm":  # the /open machinery imported first: what is left is the document's own cost
    assert d.execute("/open small.md").ok
t, c = time.perf_counter(), time.process_time()
reply = d.execute("/open big.md")
print(time.perf_counter() - t, time.process_time() - c, reply.ok)
d.close()
"""


#: The repeat open's goal beyond start-up (an absolute time: its row records the share of it used).
REPEAT_OPEN_GOAL_S = 0.030


def corpus(size: int) -> str:
    """Real markdown from installed packages (site-packages and /usr/share/doc), cut to `size` characters."""
    roots = [Path(p) for p in sys.path if p.endswith("site-packages")] + [Path("/usr/share/doc"), Path("/usr/lib")]
    parts: list[str] = []
    total = 0
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.md")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            parts.append(text.replace("\r\n", "\n"))
            total += len(text)
            if total >= size:
                break
        if total >= size:
            break
    if not parts:
        raise SystemExit("no markdown files found to build a corpus")
    text = "\n\n".join(parts)
    while len(text) < size:
        text += "\n\n" + text
    return text[:size].rsplit("\n", 1)[0] + "\n"


def timed(fn, repeat: int = 1, clock=time.perf_counter) -> float:  # type: ignore[no-untyped-def]
    """The median time of `repeat` calls (wall time; `time.process_time` for CPU time)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def process_time(args: list[str], cwd: Path, repeat: int) -> float:
    """The median wall time of a whole process (start-up included), run in `cwd` with this checkout importable."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def once() -> None:
        subprocess.run(args, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, timeout=600)

    once()  # warm the page cache and the byte-code cache
    return timed(once, repeat)


def settle(path: Path) -> None:
    """Wait until the file last changed longer ago than the index cache's racy window (render/cache.py): a repeat
    open trusts a file by its identity only then (until then it is read and hashed whole), and the repeat-open rows
    measure a file that has not changed since it was opened."""
    from stringsh.render.cache import RACY_NS

    while time.time_ns() - max(path.stat().st_ctime_ns, path.stat().st_mtime_ns) <= RACY_NS:
        time.sleep(0.05)


def middle_block(text: str) -> str:
    """A heading slug near the middle of the document, resolvable as a block."""
    doc = Document.parse(text)
    headings = [h for h in doc.index.headings if h[5] and h[2] >= 2]
    for heading in headings[len(headings) // 2 :]:
        if doc.resolve(heading[5]) is not None and doc.resolve(heading[5]).start == heading[0]:
            return heading[5]
    raise SystemExit("no block found in the corpus")


def run(size_mb: int, repeat: int) -> None:
    text = corpus(size_mb * MB)
    md = MarkdownIt("commonmark").enable(["table"]).use(front_matter_plugin)
    reference = timed(lambda: md.parse(text), repeat=3 if size_mb <= 1 else 1)
    reference_cpu = timed(lambda: md.parse(text), repeat=3 if size_mb <= 1 else 1, clock=time.process_time)
    block = middle_block(text)
    with tempfile.TemporaryDirectory() as tmp:
        limit = 4 * size_mb * MB  # the default policy stops reads and writes at 8 MiB; only the user's policy
        # may raise it (a workspace's own stringsh.toml only narrows), and the bench's config folder is its own
        user_policy_file().write_text(f"[limits]\nmax_read_bytes = {limit}\nmax_write_bytes = {limit}\n")
        firsts, firsts_cpu = [], []
        for i in range(repeat):  # each in a workspace of its own: nothing cached
            ws = Path(tmp) / f"first{i}"
            ws.mkdir()
            (ws / "big.md").write_text(text, encoding="utf-8")
            d = Dispatcher(ws)
            d.execute("/ls")  # load the engine and the command table before timing
            start, cpu = time.perf_counter(), time.process_time()
            reply = d.execute("/open big.md")
            firsts.append(time.perf_counter() - start)
            firsts_cpu.append(time.process_time() - cpu)
            assert reply.ok, reply.text[:300]
            d.close()
        first, first_cpu = statistics.median(firsts), statistics.median(firsts_cpu)
        ws = Path(tmp) / f"first{repeat - 1}"  # its index cache is on disk now
        (ws / "small.md").write_text("# Small\n\ntext\n")
        settle(ws / "big.md")
        subprocess.run([sys.executable, "-c", REPEAT_SCRIPT, str(ws), str(ROOT), "cold"], capture_output=True,
                       check=True, timeout=600)  # (not timed: reads the settled file whole once, records its identity)
        runs: dict[str, tuple[list[float], list[float]]] = {"cold": ([], []), "warm": ([], [])}
        for _ in range(repeat):
            for mode, (walls, cpus) in runs.items():
                out = subprocess.run([sys.executable, "-c", REPEAT_SCRIPT, str(ws), str(ROOT), mode],
                                     capture_output=True, text=True, timeout=600)
                seconds, cpu_seconds, ok = out.stdout.split()
                assert ok == "True", out.stderr
                walls.append(float(seconds))
                cpus.append(float(cpu_seconds))
        repeat_open, repeat_open_cpu = (statistics.median(values) for values in runs["cold"])
        warm_open, warm_open_cpu = (statistics.median(values) for values in runs["warm"])
        whole = process_time([sys.executable, "-m", "stringsh", "-c", "/open big.md"], ws, repeat)
        python = process_time([sys.executable, "-c", "pass"], ws, repeat)
        listing = process_time([sys.executable, "-m", "stringsh", "-c", "/ls"], ws, repeat)

        d = Dispatcher(ws)
        replies = [d.execute("/open big.md")]
        block_open = timed(lambda: replies.append(d.execute(f"/open big.md#{block}")), repeat=3)
        assert replies[-1].ok, replies[-1].text[:300]
        d.execute("/open big.md")
        edits = []
        for _ in range(2):
            start = time.perf_counter()
            reply = d.execute(f"/edit big.md#{block}\nReplaced by the benchmark.\n")
            edits.append(time.perf_counter() - start)
            assert reply.ok, reply.text[:300]
            assert d.execute("/undo").ok
            d.execute("/open big.md")
        block_edit = min(edits)
        d.close()
    ms = 1000
    print(f"{size_mb:>3} MB  markdown-it-py full parse: {reference * ms:9.1f} ms "
          f"(reference; CPU {reference_cpu * ms:.1f} ms)")
    rows = [
        ("first /open", first, f"{first / reference:.3f}x of {reference * ms:.1f} ms (goal <= 0.15x); CPU "
                               f"{first_cpu * ms:.1f} ms = {first_cpu / reference_cpu:.3f}x"),
        (f"/open big.md#{block[:20]}", block_open,
         f"{block_open / reference:.4f}x of {reference * ms:.1f} ms (goal <= 0.05x)"),
        (f"/edit big.md#{block[:20]}", block_edit,
         f"{block_edit / reference:.4f}x of {reference * ms:.1f} ms (goal <= 0.05x)"),
        ("repeat /open, new process, beyond start-up", repeat_open,
         f"(goal <= 30 ms); CPU {repeat_open_cpu * ms:.1f} ms"),
        ("  the same after an /open of a small file", warm_open,
         f"(the document's own cost, /open's imports done); CPU {warm_open_cpu * ms:.1f} ms"),
        ("stringsh -c '/open big.md', whole process", whole,
         f"- python -c pass {python * ms:.1f} ms = {(whole - python) * ms:.1f} ms; "
         f"- stringsh -c /ls {listing * ms:.1f} ms = {(whole - listing) * ms:.1f} ms"),
    ]
    for name, seconds, ratio in rows:
        print(f"        {name:<44} {seconds * ms:9.1f} ms  {ratio}")
    for name, seconds, goal in (("first /open", first, 0.15), ("/open #block", block_open, 0.05),
                                ("/edit #block", block_edit, 0.05)):
        record.record("documents", f"{name}, {size_mb} MB", seconds, "markdown-it-py parse", reference, goal)
    if size_mb == 10:  # the goal is a time, not a ratio: recorded as a share of it
        record.record("documents", "repeat /open, new process, beyond start-up", repeat_open, "the goal's budget",
                      REPEAT_OPEN_GOAL_S, 1.0)


def main() -> None:
    isolate_user_state()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10], help="corpus sizes in MB")
    parser.add_argument("--repeat", type=int, default=5, help="runs per median")
    args = parser.parse_args()
    print(f"bytecode compiled first (compileall {compile_package()}), as an install does")
    for size in args.sizes:
        run(size, args.repeat)


if __name__ == "__main__":
    main()
