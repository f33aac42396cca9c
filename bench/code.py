"""Benchmark: source files as documents (render/code/), each figure beside a reference measured in the same run.

Rows and goals:
- outline of a 10,000-line Python file: cold (parse and index) <= 50 ms, cached (the signed cache's memory, then a
  new process's disk entry) <= 5 ms; the reference beside them is the markdown index of a 10,000-line document
  built and looked up the same way;
- `/open file#Symbol` <= 1.5x `/open file:Lx-Ly` of the same lines (in-process Dispatcher, alternated);
- the outline of a 10,000-line file in a running process, never opened before: <= 50 ms;
- `/symbols NAME` and `/symbols --refs NAME` over a tree (`--tree DIR` of real repositories, else a generated one of
  `--files N` source files, 6,000 by default; `--names a,b` the names searched): cold (no index, a new process's
  first search) <= 2x `rg -w NAME`; warm (the symbol index a running process built in the background, the tree
  unchanged) <= 1x `rg -w NAME` and <= 100 ms, with its reply checked against the cold one; and a new process with
  the index file (no goal). The index's build time, size on disk and the building process's RSS growth are
  printed;
- the first symbol answer against a language server's: `stringsh -c '/symbols NAME file'` (a whole process) against
  pylsp's `initialize` reply and its first `textDocument/documentSymbol` answer (skipped when pylsp is not
  installed: `pip install python-lsp-server`).
Each figure is the median of `rounds` runs.

Run: python bench/code.py [rounds] [--files N | --tree DIR] [--names a,b] [--index-only] [--warm-only]
(`--index-only`: only the `/symbols` rows; `--warm-only`: of those, no cold timing, each cold reply made once to
check the warm one against)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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
from stringsh.documents.symbolindexer import start_indexing, stop_indexing
from stringsh.documents.symbolsearch import Absent, Remembered
from stringsh.documents.symbolstore import forget_stores
from stringsh.render.cache import IndexCache
from stringsh.render.code.cache import SymbolCache
from stringsh.render.code.index import build_symbols
from stringsh.render.index import build_index
from stringsh.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
NAME = "resolve_target"


def median_ms(action: Callable[[], object], rounds: int, warm: bool = True) -> float:
    if warm:
        action()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def python_file(lines: int) -> str:
    """A 10,000-line module: classes with decorated, documented methods, and functions."""
    out: list[str] = ['"""Generated."""\n', "import os\n", "\n"]
    n = 0
    while len(out) < lines:
        out += [f"\n\nclass Service{n}:\n", f'    """Service {n}."""\n', "\n",
                "    @property\n", "    def name(self):\n", f"        return 'service-{n}'\n", "\n",
                f"    def handle_{n}(self, request, *, retries=3):\n", "        # Try a few times.\n",
                "        for attempt in range(retries):\n", "            if request.ok(attempt):\n",
                "                return request.value + attempt\n", "        raise RuntimeError(request)\n",
                f"\n\ndef helper_{n}(value):\n", f"    return os.path.join(str(value), '{n}')\n"]
        n += 1
    return "".join(out[:lines])


def markdown_file(lines: int) -> str:
    out: list[str] = []
    n = 0
    while len(out) < lines:
        out += [f"## Section {n}\n", "\n", f"Some text about {n}, with a [link](https://example.org/{n}).\n", "\n",
                "```python\n", f"print({n})\n", "```\n", "\n"]
        n += 1
    return "".join(out[:lines])


def outline_rows(base: Path, rounds: int) -> list[tuple[str, float, float, str, str]]:
    source, document = python_file(10_000), markdown_file(10_000)
    cold = median_ms(lambda: build_symbols(source, "python"), rounds)
    cold_md = median_ms(lambda: build_index(document), rounds)
    key = lambda: b"k" * 32  # noqa: E731
    sha256 = hashlib.sha256(source.encode()).hexdigest()
    memory = SymbolCache(base / "cache", key=key)
    memory.symbols(source, "python", sha256)
    markdown = IndexCache(base / "cache", key=key)
    markdown.get("m" * 64, document)
    cached = median_ms(lambda: memory.symbols(source, "python", sha256), rounds)
    cached_md = median_ms(lambda: markdown.lookup("m" * 64), rounds)
    disk = median_ms(lambda: SymbolCache(base / "cache", key=key).symbols(source, "python", sha256), rounds)
    disk_md = median_ms(lambda: IndexCache(base / "cache", key=key).lookup("m" * 64), rounds)
    return [("outline, 10,000-line .py, cold (parse + index)", cold, cold_md, "markdown index", "<= 50 ms"),
            ("outline, cached in memory", cached, cached_md, "markdown lookup", "<= 5 ms"),
            ("outline, cached on disk (a new process)", disk, disk_md, "markdown disk load", "<= 5 ms")]


def open_rows(base: Path, rounds: int) -> list[tuple[str, float, float, str, str]]:
    root = base / "open"
    root.mkdir()
    (root / "big.py").write_text(python_file(10_000))
    dispatcher = Dispatcher(root)
    dispatcher.execute("/open big.py")
    reply = dispatcher.execute("/open big.py#Service300.handle_300").text
    span = reply.rsplit("lines ", 1)[1].split(" of")[0]
    first, last = span.split("-")
    by_symbol = median_ms(lambda: dispatcher.execute("/open big.py#Service300.handle_300"), rounds * 4)
    by_lines = median_ms(lambda: dispatcher.execute(f"/open big.py:L{first}-L{last}"), rounds * 4)
    dispatcher.close()
    return [(f"/open big.py#Symbol (lines {first}-{last})", by_symbol, by_lines, f"/open big.py:L{first}-L{last}",
             "<= 1.5x")]


def build_tree(root: Path, files: int) -> None:
    """`files` source files in five languages; NAME is defined in 1 of 500 and called in 1 of 50."""
    for i in range(files):
        folder = root / f"pkg{i // 1000:03d}" / f"sub{i // 100 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        name = NAME if i % 500 == 0 else f"task_{i}"
        call = f"    {NAME}(x)\n" if i % 50 == 0 else ""
        kind = i % 5
        if kind == 0:
            text = (f"def {name}(x):\n    return x + {i}\n\n\nclass Worker{i}:\n    def run(self, x):\n"
                    f"        return x\n{call}")
            text += "".join(f"\n\ndef f{i}_{n}(y):\n    return y * {n}\n" for n in range(20))
            (folder / f"m{i}.py").write_text(text)
        elif kind == 1:
            (folder / f"m{i}.js").write_text(f"export function {name}(x) {{\n  return x + {i};\n}}\n{call}"
                                             + "".join(f"function f{n}(y) {{ return y * {n}; }}\n" for n in range(20)))
        elif kind == 2:
            funcs = "".join(f"func f{n}(y int) int {{ return y * {n} }}\n" for n in range(20))
            (folder / f"m{i}.go").write_text(f"package p\n\nfunc {name}(x int) int {{\n\treturn x + {i}\n}}\n{funcs}")
        elif kind == 3:
            (folder / f"m{i}.rs").write_text(f"fn {name}(x: i32) -> i32 {{ x + {i} }}\n"
                                             + "".join(f"fn f{n}(y: i32) -> i32 {{ y * {n} }}\n" for n in range(20)))
        else:
            (folder / f"m{i}.ts").write_text(f"export function {name}(x: number): number {{ return x + {i}; }}\n"
                                             + "".join(f"export const f{n} = (y: number) => y * {n};\n"
                                                       for n in range(20)))


def rss_mb() -> float:
    """This process's resident memory now (not its peak), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fresh_process_state() -> None:
    """What a new process knows: nothing remembered, no index connection open."""
    import stringsh.documents.symbolsearch as search

    search.REMEMBERED = Remembered()
    search.ABSENT = Absent()
    forget_stores()


def search_rows(base: Path, rounds: int, files: int, tree: Path | None,
                names: list[str]) -> list[tuple[str, float, float, str, str]]:
    """`/symbols NAME` and `--refs NAME` cold (no index: a new process's first search), against the index of a
    running process (warm: built in the background, the tree unchanged since), and a new process with the index
    file (a one-shot `-c`, in-process); each beside `rg -w NAME` on the same tree."""
    rg = shutil.which("rg")
    if rg is None:
        print("skipped /symbols against rg: ripgrep is not installed (pip install ripgrep)")
        return []
    if tree is None:
        tree = base / "tree"
        tree.mkdir()
        started = time.perf_counter()
        build_tree(tree, files)
        print(f"tree: {files} generated source files in {time.perf_counter() - started:.1f} s")
    else:
        print(f"tree: {tree}")
    rows: list[tuple[str, float, float, str, str]] = []
    reference = {name: median_ms(lambda name=name: subprocess.run([rg, "--no-config", "--hidden", "-w", name],
                                                                   cwd=tree, stdout=subprocess.DEVNULL), rounds)
                 for name in names}
    workspace = Workspace(tree)
    index = workspace.symbol_index_path
    workspace.close()

    def cold(command: str) -> float:
        samples = []
        for _ in range(max(1, rounds // 2)):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{index}{suffix}").unlink(missing_ok=True)
            fresh_process_state()
            dispatcher = Dispatcher(tree)
            started = time.perf_counter()
            dispatcher.execute(command)
            samples.append((time.perf_counter() - started) * 1000)
            dispatcher.close()
        return statistics.median(samples)

    replies: dict[str, str] = {}
    for name in names:
        for refs in ("", "--refs "):
            command = f"/symbols {refs}{name}"
            if "--warm-only" not in sys.argv:
                took = cold(command)
                rows.append((f"{command}, cold (no index)", took, reference[name], f"rg -w {name}", "<= 2x"))
            dispatcher = Dispatcher(tree)
            replies[command] = dispatcher.execute(command).text
            dispatcher.close()
    fresh_process_state()
    dispatcher = Dispatcher(tree)
    before = rss_mb()
    started = time.perf_counter()
    indexer = start_indexing(dispatcher.workspace)
    assert indexer is not None
    while indexer.store.live() is None:
        indexer.idle.wait(1)
    built = time.perf_counter() - started
    grown = rss_mb() - before
    print(f"index: built in {built:.1f} s over {indexer.passes} passes; {indexer.store.size() / 1e6:.1f} MB on disk "
          f"({index}); RSS +{grown:.0f} MB in the building process")
    for name in names:
        for refs in ("", "--refs "):
            command = f"/symbols {refs}{name}"
            took = median_ms(lambda command=command: dispatcher.execute(command), rounds)
            now = dispatcher.execute(command).text
            check = "  (the cold reply stopped at the time limit)" if "time limit" in replies[command] else \
                ("" if now == replies[command] else "  REPLY DIFFERS")
            rows.append((f"{command}, warm (running process's index)", took, reference[name], f"rg -w {name}",
                         "<= 1x and <= 100 ms" + check))
    stop_indexing()
    dispatcher.close()
    for name in names:
        for refs in ("", "--refs "):
            command = f"/symbols {refs}{name}"

            def one_shot(command: str = command) -> None:
                fresh_process_state()
                one = Dispatcher(tree)
                one.execute(command)
                one.close()

            took = median_ms(one_shot, rounds)
            rows.append((f"{command}, new process with the index file", took, reference[name], f"rg -w {name}",
                         "(no goal)"))
    return rows


def daemon_outline_rows(base: Path, rounds: int) -> list[tuple[str, float, float, str, str]]:
    """`/open big.py` (the outline of a 10,000-line file) in a running process, the file never opened before, beside
    `/open` of a 10,000-line markdown document in the same process."""
    root = base / "daemon-outline"
    root.mkdir()
    dispatcher = Dispatcher(root)
    dispatcher.execute("/ls")  # the process is up
    samples, references = [], []
    for n in range(rounds):
        (root / f"big{n}.py").write_text(python_file(10_000).replace("Generated.", f"Generated {n}."))
        (root / f"doc{n}.md").write_text(markdown_file(10_000).replace("Section 0", f"Section {n}"))
        started = time.perf_counter()
        dispatcher.execute(f"/open big{n}.py")
        samples.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        dispatcher.execute(f"/open doc{n}.md")
        references.append((time.perf_counter() - started) * 1000)
    dispatcher.close()
    return [("/open big.py (10,000-line outline), running process, cold", statistics.median(samples),
             statistics.median(references), "/open doc.md (10,000 lines)", "<= 50 ms")]


def lsp_rows(base: Path, rounds: int) -> list[tuple[str, float, float, str, str]]:
    pylsp = shutil.which("pylsp")
    root = base / "lsp"
    root.mkdir()
    path = root / "big.py"
    path.write_text(python_file(10_000))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    stringsh = [sys.executable, "-m", "stringsh", "--root", str(root), "-c", "/symbols handle_300 big.py"]
    ours = median_ms(lambda: subprocess.run(stringsh, stdout=subprocess.DEVNULL, env=env, check=True), rounds)
    if pylsp is None:
        print(f"stringsh -c '/symbols …' (a whole process): {ours:.0f} ms; pylsp is not installed "
              "(pip install python-lsp-server) so there is no language server to compare against")
        return []
    up, answer = [], []
    for _ in range(rounds):
        ready, first = first_lsp_answer(pylsp, root, path)
        up.append(ready)
        answer.append(first)
    return [("stringsh -c '/symbols NAME file' vs pylsp initialize", ours, statistics.median(up),
             "pylsp up (initialize reply)", "< 1x"),
            ("stringsh -c '/symbols NAME file' vs pylsp first documentSymbol", ours, statistics.median(answer),
             "pylsp first answer", "< 1x")]


def first_lsp_answer(pylsp: str, root: Path, path: Path) -> tuple[float, float]:
    """(ms until pylsp answers initialize, ms until its first documentSymbol answer), from its start."""
    started = time.perf_counter()
    proc = subprocess.Popen([pylsp], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def receive(wanted: int) -> None:
        while True:
            length = 0
            while (line := proc.stdout.readline().strip()):  # type: ignore[union-attr]
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(proc.stdout.read(length))  # type: ignore[union-attr]
            if message.get("id") == wanted:
                return

    send({"id": 1, "method": "initialize", "params": {"processId": os.getpid(), "rootUri": root.as_uri(),
                                                      "capabilities": {}}})
    receive(1)
    ready = (time.perf_counter() - started) * 1000
    send({"method": "initialized", "params": {}})
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}}})
    send({"id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": path.as_uri()}}})
    receive(2)
    first = (time.perf_counter() - started) * 1000
    proc.kill()
    proc.wait()
    return ready, first


def option(name: str, default: str | None = None) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main() -> None:
    valued = {"--files", "--tree", "--names"}
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[i - 1] not in valued]
    rounds = int(args[0]) if args else 5
    files = int(option("--files", "6000"))  # type: ignore[arg-type]
    tree = Path(option("--tree")).resolve() if option("--tree") else None  # type: ignore[arg-type]
    names = (option("--names") or NAME).split(",")
    isolate_user_state()
    compile_package()  # the processes it times load bytecode, as an install's do
    rows: list[tuple[str, float, float, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-code-") as folder:
        base = Path(folder)
        if "--index-only" not in sys.argv:
            rows += outline_rows(base, rounds)
            rows += daemon_outline_rows(base, rounds)
            rows += open_rows(base, rounds)
            rows += lsp_rows(base, rounds)
        rows += search_rows(base, rounds, files, tree, names)
    print(f"median of {rounds} runs")
    print(f"{'what':<62} {'ms':>8} {'reference':<34} {'ref ms':>8} {'ratio':>6}  goal")
    for what, took, ref, name, goal in rows:
        print(f"{what:<62} {took:>8.1f} {name:<34} {ref:>8.1f} {took / ref:>5.2f}x  {goal}")
        ratio_goal = re.match(r"<= ([\d.]+)x", goal)
        record.record("code", re.sub(r" \((lines|no index|running process)[^)]*\)", "", what), took / 1000, name,
                      ref / 1000, float(ratio_goal.group(1)) if ratio_goal else None)


if __name__ == "__main__":
    main()
