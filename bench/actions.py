"""Action overhead, as ratios to the bare operation measured in the same run.

    python bench/actions.py [--runs 200]

- `/act.items` (HTTP GET + response template, through the dispatcher) vs a kept `httpx.Client` GET of the same
  loopback URL;
- `/act.echo` (CLI through the dispatcher: flags, quoting, `bash -c`) vs `subprocess.run(["bash", "-c", …])`;
- parsing the flags of one invocation vs `shlex.split` of the same text.
Goal: both action ratios under 2× (the action layer should cost little next to the work it wraps). Calls are
measured alternately with their reference so that load from other processes hits both alike.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import record
from benchenv import isolate_user_state

from stringsh.actions.flags import parse_flags
from stringsh.dispatcher import Dispatcher
from tests.actions.loopback import serve


def paired(fn: Callable[[], object], reference: Callable[[], object], runs: int) -> tuple[float, float]:
    """Medians of `fn` and `reference`, measured alternately so machine noise hits both alike."""
    for _ in range(min(10, runs)):
        fn()
        reference()
    ours, theirs = [], []
    for _ in range(runs):
        for call, samples in ((fn, ours), (reference, theirs)):
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    isolate_user_state()
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp, serve() as base:
        os.environ["STRINGSH_CONFIG_DIR"] = str(Path(tmp) / "cfg")
        ws = Path(tmp) / "ws"
        ws.mkdir()
        (ws / "ops.md").write_text(
            f"```act.items\nGET {base}/items\n```\n\n```act.items.response\n"
            "for: i in Response.body.items\n- {i.name}\nend:\n```\n\n"
            "```act.echo\nCLI printf '%s\\n' {msg}\n  msg: string (required)\n```\n"
        )
        dispatcher = Dispatcher(ws)
        assert dispatcher.execute("/open ops.md").ok
        assert dispatcher.execute("/act.items").ok
        with httpx.Client() as client:
            act_http, bare_http = paired(
                lambda: dispatcher.execute("/act.items"), lambda: client.get(f"{base}/items").json(), runs
            )
        cli_runs = max(runs // 4, 10)
        act_cli, bare_cli = paired(
            lambda: dispatcher.execute("/act.echo --msg 'a b; c'"),
            lambda: subprocess.run(["bash", "-c", "printf '%s\\n' 'a b; c'"], capture_output=True, check=True),
            cli_runs,
        )
        text = "--city 'New York' -d 3 --loud -- --rest"
        flags, split = paired(lambda: parse_flags(text, {"d": "days"}), lambda: shlex.split(text), runs * 10)
        dispatcher.close()
    print(
        f"/act.items (HTTP+template) {act_http * 1e3:8.2f} ms  httpx     {bare_http * 1e3:8.2f} ms  "
        f"ratio {act_http / bare_http:5.2f}"
    )
    print(
        f"/act.echo  (CLI)           {act_cli * 1e3:8.2f} ms  bash -c   {bare_cli * 1e3:8.2f} ms  "
        f"ratio {act_cli / bare_cli:5.2f}"
    )
    record.record("front ends", "action: HTTP with a template", act_http, "httpx.Client GET", bare_http, 2)
    record.record("front ends", "action: CLI", act_cli, "bash -c", bare_cli, 2)
    print(
        f"flag parse                 {flags * 1e6:8.2f} us  shlex     {split * 1e6:8.2f} us  ratio {flags / split:5.2f}"
    )


if __name__ == "__main__":
    main()
