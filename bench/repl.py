"""The people's REPL: time to a usable prompt and completion cost, as ratios to references measured in this run.

    python bench/repl.py [--runs 10] [--entries 3000]

- start-up: `stringsh` in a pty until the prompt's toolbar is drawn (CPR answered, as a terminal does), against
  `stringsh -c /ls` (the scripted start-up, which must not load prompt_toolkit or rich). Goal: <= 3x.
- completion: the completer's answer for `/open ` in a folder of N entries, first (asks the engine) and repeated
  (cached), against the engine's own `list_dir` of that folder. Goal: first <= 3x, repeated <= 0.5x.
- rendering: a 32 KB markdown reply printed for people (chunked, styled) against rich's Markdown of the same text in
  one piece. Goal: <= 1.2x.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402
from benchenv import compile_package, isolate_user_state  # noqa: E402
from prompt_toolkit.completion import CompleteEvent  # noqa: E402
from prompt_toolkit.document import Document  # noqa: E402
from rich.console import Console  # noqa: E402

from stringsh.dispatcher import Dispatcher  # noqa: E402
from stringsh.render.replies import print_reply  # noqa: E402
from stringsh.repl.completer import StringCompleter  # noqa: E402
from stringsh.repl.sources import Sources  # noqa: E402
from tests.repl.harness import Terminal  # noqa: E402


def median_time(action, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def repl_start(ws: Path, history: Path) -> None:
    term = Terminal([], ws, {"STRINGSH_HISTORY": str(history)})
    try:
        term.wait_for("Ctrl-D quit")
        term.send("\x04")
        term.wait_exit()
    finally:
        term.close()


def main() -> int:
    isolate_user_state()
    compile_package()  # the processes it times load bytecode, as an install's do
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--entries", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "README.md").write_text("# hi\n")
        big = ws / "big"
        big.mkdir()
        for n in range(args.entries):
            (big / f"file-{n:05}.md").write_text("x\n")
        history = Path(tmp) / "history"

        scripted = median_time(
            lambda: subprocess.run(
                [sys.executable, "-m", "stringsh", "-c", "/ls"], cwd=ws, check=True, stdout=subprocess.DEVNULL
            ),
            args.runs,
        )
        repl = median_time(lambda: repl_start(ws, history), args.runs)
        print(
            f"start-up: stringsh -c /ls {scripted * 1000:.0f} ms, REPL to its drawn prompt {repl * 1000:.0f} ms, "
            f"ratio {repl / scripted:.2f}x (goal <= 3x)"
        )
        record.record("start-up", "REPL prompt drawn", repl, "stringsh -c /ls", scripted, 3)

        dispatcher = Dispatcher(ws)
        try:
            workspace = dispatcher.workspace
            listing = median_time(lambda: workspace.list_dir("big"), args.runs)
            event = CompleteEvent(completion_requested=True)

            def first() -> None:
                completer = StringCompleter(Sources(dispatcher))
                list(completer.get_completions(Document("/open big/"), event))

            cached_completer = StringCompleter(Sources(dispatcher))
            list(cached_completer.get_completions(Document("/open big/"), event))
            cold = median_time(first, args.runs)
            warm = median_time(
                lambda: list(cached_completer.get_completions(Document("/open big/f"), event)), args.runs
            )
            print(
                f"completion of {args.entries} entries: engine list_dir {listing * 1000:.1f} ms, "
                f"first completion {cold * 1000:.1f} ms (ratio {cold / listing:.2f}x, goal <= 3x), "
                f"repeated {warm * 1000:.1f} ms (ratio {warm / listing:.2f}x, goal <= 0.5x)"
            )
            record.record("front ends", f"REPL first completion, {args.entries:,} entries", cold, "list_dir", listing,
                          3)
            record.record("front ends", "REPL repeated completion", warm, "list_dir", listing, 0.5)
        finally:
            dispatcher.close()

        sections = "".join(
            f"## Part {n}\n\nSome *text* with `code` and a [link](x.md).\n\n- a\n- b\n\n" for n in range(500)
        )
        document = f"re: /open big.md\nOpened big.md\n---\n# Big\n\n{sections}"

        def people() -> None:
            print_reply(Console(file=io.StringIO(), width=100, color_system="standard", force_terminal=True), document)

        def whole() -> None:
            from rich.markdown import Markdown

            console = Console(file=io.StringIO(), width=100, color_system="standard", force_terminal=True)
            console.print(Markdown(document.split("---\n", 1)[1]))

        rich_time = median_time(people, max(3, args.runs // 3))
        whole_time = median_time(whole, max(3, args.runs // 3))
        print(
            f"rendering {len(document) // 1024} KB of markdown for people: {rich_time * 1000:.0f} ms chunked, "
            f"rich in one piece {whole_time * 1000:.0f} ms, ratio {rich_time / whole_time:.2f}x (goal <= 1.2x)"
        )
        record.record("front ends", "REPL rendering 32 KB", rich_time, "rich in one piece", whole_time, 1.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
