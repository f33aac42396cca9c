"""Benchmark: /grep (a literal and a regex, with the rg engine and the Python engine) and /glob '**/*.py' on a tree
of at least 50,000 files, as ratios to ripgrep alone measured in the same run, with peak memory.

The tree is this interpreter's site-packages copied as often as needed (or `--generate`: synthetic source files).
The references: `rg --no-config --hidden --no-ignore PATTERN` (every file, as stringsh's walk searches them) and
`rg --no-config --hidden --no-ignore --files -g '*.py'`. Each figure is the median of `rounds` warm runs.

Goals: grep <= 1.3x rg with the rg engine, <= 4x with the Python engine; glob <= 1.5x rg.
Run: python bench/search.py [rounds] [--files N] [--generate]
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchenv import isolate_user_state

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.ops.rgsearch import find_rg

LITERAL = "hashlib.sha256("
REGEX = r"class \w+Error\(\w*Exception\)"
GOALS = {"grep rg engine": 1.3, "grep Python engine": 4.0, "glob": 1.5}


def count_files(folder: Path) -> int:
    return sum(1 for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def build_tree(root: Path, want: int, generate: bool) -> int:
    """A tree of at least `want` files: copies of site-packages, or generated modules."""
    if generate:
        for index in range(want):
            folder = root / f"pkg{index // 500:03d}" / f"mod{index // 50 % 10}"
            folder.mkdir(parents=True, exist_ok=True)
            body = "".join(f"def helper_{index}_{n}(value):\n    return value * {n}\n\n" for n in range(40))
            extra = "    hashlib.sha256(value)\nclass BadError(Exception):\n    pass\n" if index % 97 == 0 else ""
            (folder / f"m{index}.py").write_text(f"# module {index}\n{body}{extra}")
        return want
    source = Path(sysconfig.get_paths()["purelib"])
    per_copy = count_files(source)
    copies = -(-want // per_copy)
    for copy in range(copies):
        shutil.copytree(source, root / f"copy{copy}", symlinks=True, ignore=shutil.ignore_patterns("rg"))
    return per_copy * copies


def median_ms(action: Callable[[], object], rounds: int) -> float:
    action()  # warm the page cache and the imports
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def rg_run(rg: str, root: Path, *args: str) -> Callable[[], object]:
    command = [rg, "--no-config", "--hidden", "--no-ignore", *args]
    return lambda: subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 5
    want = int(sys.argv[sys.argv.index("--files") + 1]) if "--files" in sys.argv else 50_000
    generate = "--generate" in sys.argv
    rg = find_rg()
    if rg is None:
        sys.exit("bench/search.py compares against ripgrep: pip install --only-binary=ripgrep 'stringsh[search]'")
    isolate_user_state()
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-search-") as base:
        root = Path(base) / "tree"
        root.mkdir()
        started = time.perf_counter()
        files = build_tree(root, want, generate)
        print(f"tree: {files} files ({'generated' if generate else 'site-packages copies'}), "
              f"built in {time.perf_counter() - started:.1f} s; median of {rounds} warm runs")
        dispatcher = Dispatcher(root)
        ws = dispatcher.workspace
        limit = 1_000_000
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        rows: list[tuple[str, float, float, str]] = []
        for label, query, regex in (("literal", LITERAL, False), ("regex", REGEX, True)):
            flags = () if regex else ("--fixed-strings",)
            reference = median_ms(rg_run(rg, root, *flags, "--regexp", query), rounds)
            for engine in ("rg", "python"):
                result = ws.grep(query, regex=regex, engine=engine, max_results=limit)
                took = median_ms(lambda q=query, r=regex, e=engine: ws.grep(q, regex=r, engine=e,
                                                                            max_results=limit), rounds)
                name = "grep rg engine" if engine == "rg" else "grep Python engine"
                rows.append((f"{name} ({label}: {result.matches} lines in {result.files} files)", took, reference,
                             name))
        reference = median_ms(rg_run(rg, root, "--files", "-g", "*.py"), rounds)
        found = ws.glob("**/*.py", max_results=limit)
        took = median_ms(lambda: dispatcher.execute("/glob '**/*.py'"), rounds)
        rows.append((f"/glob '**/*.py' ({found.total} files)", took, reference, "glob"))
        command = median_ms(lambda: dispatcher.execute(f"/grep '{LITERAL}'"), rounds)
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        dispatcher.close()
    print(f"{'what':<66} {'stringsh ms':>11} {'rg ms':>8} {'ratio':>6} {'goal':>5}")
    for what, took, ref, goal in rows:
        print(f"{what:<66} {took:>11.0f} {ref:>8.0f} {took / ref:>5.2f}x {GOALS[goal]:>4}x")
    print(f"/grep '{LITERAL}' through the command (auto engine, default --max): {command:.0f} ms")
    print(f"peak RSS: {rss_after / 1024:.0f} MB (was {rss_before / 1024:.0f} MB before the searches)")


if __name__ == "__main__":
    main()
