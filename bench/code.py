"""Benchmark: source files as documents (render/code/), each figure beside a reference measured in the same run.

Rows and goals:
- outline of a 10,000-line Python file: cold (parse and index) <= 50 ms, cached (the signed cache's memory, then a
  new process's disk entry) <= 5 ms; the reference beside them is the markdown index of a 10,000-line document
  built and looked up the same way;
- `/open file#Symbol` <= 1.5x `/open file:Lx-Ly` of the same lines (in-process Dispatcher, alternated);
- `/symbols NAME` over a generated tree of 50,000 source files: <= 2x `rg -w NAME` cold (nothing indexed), <= 0.5x
  warm (the files' indexes kept from the cold run); beside them the cold search's prefilter alone (the engine's
  `Workspace.grep`, which a cold search cannot beat);
- the first symbol answer against a language server's: `stringsh -c '/symbols NAME file'` (a whole process) against
  pylsp's `initialize` reply and its first `textDocument/documentSymbol` answer (skipped when pylsp is not
  installed: `pip install python-lsp-server`).
Each figure is the median of `rounds` runs.

Run: python bench/code.py [rounds] [--files N]
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchenv import isolate_user_state

from stringsh.dispatcher import Dispatcher
from stringsh.documents.symbolsearch import Absent, Remembered
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


def search_rows(base: Path, rounds: int, files: int) -> list[tuple[str, float, float, str, str]]:
    rg = shutil.which("rg")
    if rg is None:
        print("skipped /symbols against rg: ripgrep is not installed (pip install ripgrep)")
        return []
    root = base / "tree"
    root.mkdir()
    started = time.perf_counter()
    build_tree(root, files)
    print(f"tree: {files} generated source files in {time.perf_counter() - started:.1f} s")
    command = [rg, "--no-config", "--hidden", "-w", NAME]
    reference = median_ms(lambda: subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL), rounds)
    dispatcher = Dispatcher(root)

    def cold() -> None:
        import stringsh.documents.symbolsearch as search

        search.REMEMBERED = Remembered()  # nothing indexed yet, as in a new process
        search.ABSENT = Absent()
        dispatcher.execute(f"/symbols {NAME}")

    took_cold = median_ms(cold, rounds)
    dispatcher.execute(f"/symbols {NAME}")
    took_warm = median_ms(lambda: dispatcher.execute(f"/symbols {NAME}"), rounds)
    workspace = Workspace(root)  # the prefilter alone: what a cold search cannot be faster than
    took_grep = median_ms(lambda: workspace.grep(NAME, ".", ignore_case=True), rounds)
    workspace.close()
    found = dispatcher.execute(f"/symbols {NAME} --max 1000").text.split("\n")[1]
    dispatcher.close()
    print(f"/symbols {NAME}: {found}")
    return [(f"/symbols {NAME}, {files} files, cold", took_cold, reference, f"rg -w {NAME}", "<= 2x"),
            (f"/symbols {NAME}, {files} files, warm", took_warm, reference, f"rg -w {NAME}", "<= 0.5x"),
            (f"  of which the prefilter, Workspace.grep -i {NAME}", took_grep, reference, f"rg -w {NAME}", "(profile)")]


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


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 5
    files = int(sys.argv[sys.argv.index("--files") + 1]) if "--files" in sys.argv else 50_000
    isolate_user_state()
    rows: list[tuple[str, float, float, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-code-") as folder:
        base = Path(folder)
        rows += outline_rows(base, rounds)
        rows += open_rows(base, rounds)
        rows += lsp_rows(base, rounds)
        rows += search_rows(base, rounds, files)
    print(f"median of {rounds} runs")
    print(f"{'what':<62} {'ms':>8} {'reference':<34} {'ref ms':>8} {'ratio':>6}  goal")
    for what, took, ref, name, goal in rows:
        print(f"{what:<62} {took:>8.1f} {name:<34} {ref:>8.1f} {took / ref:>5.2f}x  {goal}")


if __name__ == "__main__":
    main()
