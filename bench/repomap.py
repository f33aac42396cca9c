"""Benchmark: `/map` (the repository map, documents/repomap.py) beside references measured in the same run.

Rows:
- the memory the remembered tags of every file hold after a map (tracemalloc);
- `/map` cold (in process, nothing remembered: every source file read and parsed twice, once for its definitions
  and once for its identifiers), warm (the files' tags remembered by stat) and as a new process
  (`stringsh -c /map`), each beside `rg -w NAME` over the same tree (one name, the cheapest whole-tree answer) and
  `ctags -R` (every definition of the tree, the tag file a map could be built from; skipped when not installed);
- what `/map` and Aider's repo map each include in 1,000 tokens of the same tree, and the time each takes to build
  (Aider's run in its own Python: `--aider PYTHON`, a virtual environment where `pip install aider-chat` was done;
  its token count is given the same estimate, 4 characters a token, so both fill the same budget). Definitions
  are matched by (file, signature line): a line Aider shows that is a definition's signature line counts as that
  definition included.

The default tree is generated: Python packages whose modules use a few core modules far more than the rest (each
import drawn by a Zipf-like weight), so a ranking has something to find.

Run: python bench/repomap.py [rounds] [--tree DIR] [--files N] [--aider PYTHON] [--budget TOKENS]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record
from benchenv import compile_package, isolate_user_state

from stringsh.dispatcher import Dispatcher
from stringsh.documents import repomap
from stringsh.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]

#: Run in Aider's Python: its RepoMap over every source file of a tree, tokens estimated as characters / 4, the tags
#: cache in a temporary folder (never in the tree). Prints {"seconds", "map"}.
AIDER_SCRIPT = r'''
import json, os, sys, tempfile, time
from aider.repomap import RepoMap

root, budget, files = sys.argv[1], int(sys.argv[2]), json.loads(sys.stdin.read())

class Estimate:
    def token_count(self, text):
        return len(text) / 4

class Quiet:
    def read_text(self, name):
        try:
            with open(name, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError):
            return None
    def tool_output(self, *args, **kwargs): pass
    def tool_warning(self, *args, **kwargs): pass
    def tool_error(self, *args, **kwargs): pass

with tempfile.TemporaryDirectory() as cache:
    RepoMap.TAGS_CACHE_DIR = cache
    started = time.perf_counter()
    mapper = RepoMap(map_tokens=budget, root=root, main_model=Estimate(), io=Quiet())
    text = mapper.get_repo_map([], [os.path.join(root, f) for f in files]) or ""
    print(json.dumps({"seconds": time.perf_counter() - started, "map": text}))
'''


def median_ms(action: Callable[[], object], rounds: int, before: Callable[[], object] | None = None) -> float:
    samples = []
    for _ in range(rounds):
        if before is not None:
            before()
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def generate(root: Path, files: int, seed: int = 7) -> None:
    """`files` Python modules in packages of 20; module k's popularity ~ 1/(k+1), so a few core modules are used by
    most others."""
    rng = random.Random(seed)
    weights = [1 / (k + 1) for k in range(files)]
    names = [f"pkg{k // 20}/mod{k}.py" for k in range(files)]
    for k, rel in enumerate(names):
        uses = sorted({rng.choices(range(files), weights)[0] for _ in range(6)} - {k})
        lines = [f"from pkg{u // 20}.mod{u} import Service{u}, helper_{u}\n" for u in uses]
        lines += [f"\n\nclass Service{k}:\n", f'    """Service {k}."""\n\n',
                  "    def handle(self, request, *, retries=3):\n"]
        lines += [f"        Service{u}().handle(helper_{u}(request))\n" for u in uses]
        lines += ["        return request\n", f"\n\ndef helper_{k}(value):\n",
                  f"    return Service{k}().handle(value)\n"]
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text("".join(lines))


def forget() -> None:
    repomap._REMEMBERED = repomap._Remembered()  # a cold map: nothing remembered in this process


def kept_mib(root: Path) -> float:
    """What a cold map leaves remembered in this process (the files' tags), as tracemalloc counts it."""
    import tracemalloc

    forget()
    ws = Workspace(root)
    try:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        repomap.collect(ws, ".", [], command="bench")
        kept = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
    finally:
        ws.close()
    return kept / (1 << 20)


def run(command: list[str], cwd: Path) -> None:
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def timings(root: Path, rounds: int) -> None:
    dispatcher = Dispatcher(root)
    try:
        found = repomap.repo_map(dispatcher.workspace, ".", [])
        name = found.view.shown[0].definition.name if found.view.shown else "main"
        cold = median_ms(lambda: dispatcher.execute("/map"), rounds, forget)
        warm = median_ms(lambda: dispatcher.execute("/map"), rounds)
    finally:
        dispatcher.close()
    rg = median_ms(lambda: run(["rg", "-w", "-c", name, "."], root), rounds) if shutil.which("rg") else None
    process = median_ms(lambda: run([sys.executable, "-P", "-m", "stringsh", "-c", "/map"], root), rounds)
    print(f"tree: {root} ({len(found.collected.files)} source files, {found.definitions} definitions)")
    print(f"  memory the remembered tags hold: {kept_mib(root):.1f} MiB (traced over a cold map)")
    rows = [("/map cold, in process", cold), ("/map warm, in process", warm), ("stringsh -c /map", process)]
    if shutil.which("ctags"):
        with tempfile.TemporaryDirectory() as out:
            ctags = median_ms(lambda: run(["ctags", "-R", "-f", os.path.join(out, "tags"), "."], root), rounds)
        print(f"  reference ctags -R (every definition):      {ctags:9.1f} ms")
    else:
        ctags = None
        print("  reference ctags -R: not installed")
    if rg is not None:
        print(f"  reference rg -w {name[:24]:<24}:   {rg:9.1f} ms")
    for label, ms in rows:
        ratios = [f"{ms / ref:6.1f}x {what}" for what, ref in (("rg", rg), ("ctags", ctags)) if ref]
        print(f"  {label:<40} {ms:9.1f} ms   " + "   ".join(ratios))
        if rg:
            record.record("code", label, ms / 1000, "rg -w NAME", rg / 1000, None)


def included_by_map(text: str) -> set[tuple[str, str]]:
    """(file, line stripped) of each definition line of a /map text."""
    found, path = set(), ""
    for line in text.split("\n"):
        if not line.startswith(" ") and line.endswith(":"):
            path = line[:-1]
        elif line.strip():
            found.add((path, line.strip().split("  ", 1)[1] if "  " in line.strip() else line.strip()))
    return found


def included_by_aider(text: str, signatures: dict[tuple[str, str], str]) -> tuple[set[tuple[str, str]], set[str]]:
    """(file, signature) of each definition whose signature line Aider's map shows, and the files it names."""
    found, files, path = set(), set(), ""
    for line in text.split("\n"):
        if line and not line.startswith(("│", "⋮", " ")) and line.endswith(":"):
            path = line[:-1]
            files.add(path)
        elif line.startswith("│"):
            key = (path, line[1:].strip())
            if key in signatures:
                found.add(key)
    return found, files


def compare_with_aider(root: Path, python: str | None, budget: int) -> None:
    dispatcher = Dispatcher(root)
    try:
        forget()
        started = time.perf_counter()
        found = repomap.repo_map(dispatcher.workspace, ".", [], budget)
        ours_seconds = time.perf_counter() - started
    finally:
        dispatcher.close()
    ours = {(r.path, r.definition.signature) for r in found.view.shown}
    print(f"\n/map in {budget} tokens: {len(ours)} definitions from {found.view.files} files, "
          f"~{found.view.tokens} tokens, built in {ours_seconds * 1000:.0f} ms (cold)")
    if python is None:
        print("Aider: not compared (no --aider PYTHON given; pip install aider-chat into a virtual environment)")
        return
    files = [tags.path for tags in found.collected.files]
    done = subprocess.run([python, "-c", AIDER_SCRIPT, str(root), str(budget)], input=json.dumps(files), text=True,
                          capture_output=True, check=False)
    if done.returncode != 0:
        print(f"Aider: failed ({done.stderr.strip().splitlines()[-1:]})")
        return
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    signatures = {(r.path, r.definition.signature): r.definition.id for r in found.ranked}
    theirs, their_files = included_by_aider(answer["map"], signatures)
    both = ours & theirs
    print(f"Aider in {budget} tokens: {len(theirs)} definitions (matched by signature line) from {len(their_files)} "
          f"files, ~{len(answer['map']) // 4} tokens, built in {answer['seconds'] * 1000:.0f} ms (cold)")
    ours_files = {path for path, _ in ours}
    print(f"  both include {len(both)} definitions (Jaccard {len(both) / max(len(ours | theirs), 1):.2f}); "
          f"files in both {len(ours_files & their_files)} of {len(ours_files | their_files)}")
    print("  /map's first 10:  " + ", ".join(signatures[key] for key in [(r.path, r.definition.signature)
                                                                          for r in found.view.shown[:10]]))
    first = [key for key in dict.fromkeys(_aider_order(answer["map"], signatures))][:10]
    print("  Aider's first 10 shown (its map is in path order): " + ", ".join(signatures[key] for key in first))


def _aider_order(text: str, signatures: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    order, path = [], ""
    for line in text.split("\n"):
        if line and not line.startswith(("│", "⋮", " ")) and line.endswith(":"):
            path = line[:-1]
        elif line.startswith("│") and (path, line[1:].strip()) in signatures:
            order.append((path, line[1:].strip()))
    return order


def main() -> None:
    args = sys.argv[1:]

    def option(name: str) -> str | None:
        if name in args:
            at = args.index(name)
            value = args[at + 1]
            del args[at : at + 2]
            return value
        return None

    tree, files, aider = option("--tree"), int(option("--files") or 2000), option("--aider")
    budget = int(option("--budget") or 1000)
    rounds = int(args[0]) if args else 3
    isolate_user_state()
    compile_package()  # the processes it times load bytecode, as an install's do
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(tree).resolve() if tree else Path(scratch) / "tree"
        if not tree:
            generate(root, files)
        timings(root, rounds)
        compare_with_aider(root, aider, budget)


if __name__ == "__main__":
    main()
