"""Documents benchmark: /open, repeat /open in a new process, block open and block edit on 1 MB and 10 MB.

Each time is printed as a ratio to markdown-it-py's full parse of the same text, measured in the same run
(goals: first open <= 0.3x, repeat open <= 20 ms, block open and block edit <= 0.05x). The corpus is built from
the markdown files installed packages ship, repeated when there is not enough of it.

    python bench/documents.py            # 1 MB and 10 MB
    python bench/documents.py --sizes 1  # 1 MB only
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchenv import isolate_user_state  # noqa: E402
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
d.workspace
t = time.perf_counter()
reply = d.execute("/open big.md")
print(time.perf_counter() - t, reply.ok)
d.close()
"""


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


def timed(fn, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def middle_block(text: str) -> str:
    """A heading slug near the middle of the document, resolvable as a block."""
    doc = Document.parse(text)
    headings = [h for h in doc.index.headings if h[5] and h[2] >= 2]
    for heading in headings[len(headings) // 2 :]:
        if doc.resolve(heading[5]) is not None and doc.resolve(heading[5]).start == heading[0]:
            return heading[5]
    raise SystemExit("no block found in the corpus")


def run(size_mb: int) -> None:
    text = corpus(size_mb * MB)
    md = MarkdownIt("commonmark").enable(["table"]).use(front_matter_plugin)
    reference = timed(lambda: md.parse(text), repeat=3 if size_mb <= 1 else 1)
    block = middle_block(text)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        (ws / "big.md").write_text(text, encoding="utf-8")
        limit = 4 * size_mb * MB  # the default policy stops reads and writes at 8 MiB; only the user's policy
        # may raise it (a workspace's own stringsh.toml only narrows), and the bench's config folder is its own
        user_policy_file().write_text(f"[limits]\nmax_read_bytes = {limit}\nmax_write_bytes = {limit}\n")
        d = Dispatcher(ws)
        d.workspace  # noqa: B018 - load the engine before timing
        replies = []
        first = timed(lambda: replies.append(d.execute("/open big.md")))
        assert replies[-1].ok, replies[-1].text[:300]
        repeat_runs = []
        for _ in range(3):
            out = subprocess.run([sys.executable, "-c", REPEAT_SCRIPT, str(ws), str(ROOT)], capture_output=True,
                                 text=True, timeout=600)
            seconds, ok = out.stdout.split()
            assert ok == "True", out.stderr
            repeat_runs.append(float(seconds))
        repeat = min(repeat_runs)
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
    print(f"{size_mb:>3} MB  markdown-it-py full parse: {reference * 1000:9.1f} ms (reference)")
    rows = [
        ("first /open", first, f"{first / reference:.3f}x (goal <= 0.3x)"),
        ("repeat /open, new process", repeat, f"{repeat / reference:.4f}x (goal <= 20 ms)"),
        (f"/open big.md#{block[:20]}", block_open, f"{block_open / reference:.4f}x (goal <= 0.05x)"),
        (f"/edit big.md#{block[:20]}", block_edit, f"{block_edit / reference:.4f}x (goal <= 0.05x)"),
    ]
    for name, seconds, ratio in rows:
        print(f"        {name:<40} {seconds * 1000:9.1f} ms  {ratio}")


def main() -> None:
    isolate_user_state()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10], help="corpus sizes in MB")
    for size in parser.parse_args().sizes:
        run(size)


if __name__ == "__main__":
    main()
