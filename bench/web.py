"""Benchmark (not a test): the supervisor's page (`stringsh web`) against its measured goals, each figure beside a
reference measured in the same run.

    python bench/web.py [--changes 10000] [--records 100000] [--latency 100] [--agents 30] [--tabs 10]
                        [--ops 60] [--think 300] [--rounds 5] [--keep DIR] [--browser] [--browser-tabs [--window]]

1. Latency: a running `stringsh daemon` (an agent) writes `--latency` files one at a time, at random moments; a
   client of the page's event stream (`/api/events`, the token in a header, as the page reads it) notes when the
   record naming each file arrives. Measured from the moment the agent has its reply (its record is written right
   after it) to the event: p50/p90/max, on the big workspace below, beside the agent's own round trip.
   `--browser`: the same in the system's Chromium (Playwright), the feed scrolled into view, until the row is in
   the page's DOM.
   Goal: a new record on screen <= 300 ms after it is written.
2. Scale: a workspace whose journal holds `--changes` change sets (from 30 clients in two topics each) and whose
   audit log has had `--records` records written (writes, reads, settings, refusals; the log rotates at 8 MiB, so
   it keeps its newest ~16 MiB, as any long-lived workspace's does). Built in-process through the Dispatcher
   (about four minutes on a busy 2-core machine; fsync skipped while building: the build is not measured);
   `--keep DIR` builds it once and reuses it (each run adds its latency writes to it). Then a fresh `stringsh web`
   on it, and the page's first calls, each timed cold (the first after start) and warm (median of `--rounds`):
   overview (clients, health), the first page of change sets, the first page of the feed, the audit chain's
   check, an older page of each, and the feed filtered (one record in 30 matching, and none: the filter then
   reads back its 8 MiB budget and answers an empty page with a place to go on from). Reference: the same calls
   on a small workspace (100 change sets, 1,000 records) served the same way in the same run. Goal: each <= 1 s.
3. Cost to agents: bench/load.py's agents (`--agents` daemon topics on its 5,000-file tree, its mix of reads,
   edits, writes, greps, shell calls and undos, `--think` ms between calls) in phases without and with pages, in
   the order without, with, with, without (and again for each further `--phases` pair), after `--warmup` phases not
   counted (the first phase on the fresh tree runs fastest): no page open, and `stringsh
   web` serving `--tabs` pages (each opened as the page opens, then following the event stream, in a
   process of their own; `--browser-tabs`: tabs of the system's Chromium showing the page, the browser's processes
   counted as the pages'; headless, so every tab counts as shown; `--window`: the tabs in one window of a desktop
   Chromium on a virtual display (xvfb-run), one in front and the rest behind it, as a person has them; that
   browser is started once and runs through every phase, its tabs opened for each phase with pages and closed
   after). Reported: each operation's p50/p99 in both, and their ratio.
   Goal: nothing measurable: write p50 and p99 with the pages open <= 1.1x without.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

# This folder holds a bench named like the SDK's package (mcp.py): it goes last on the path.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

import httpx
import record
from benchenv import isolate_user_state
from stallwatch import StallWatch

STRINGSH = [sys.executable, "-m", "stringsh"]
END = "</𝒞>"
CLIENTS, TOPICS, SOURCE_FILES = 30, 2, 500


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def web(root: Path, env: dict[str, str]) -> Iterator[tuple[str, dict[str, str], int]]:
    """A `stringsh web` on `root` once it answers: its base URL, the headers a page sends, and its pid."""
    port = free_port()
    process = subprocess.Popen([*STRINGSH, "--root", str(root), "web", "--port", str(port)], env=env, cwd=root,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    token = (Path(env["STRINGSH_CONFIG_DIR"]) / "mcp-token").read_text().strip()
    url, headers = f"http://127.0.0.1:{port}", {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("stringsh web did not start") from None
            time.sleep(0.05)
    try:
        yield url, headers, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


# -- the workspaces ---------------------------------------------------------------------------------------------------

def build(root: Path, changes: int, records: int) -> float:
    """`changes` change sets and `records` audit records in all, through real requests; the seconds it took."""
    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace.clients import Client

    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    sync, os.fsync = os.fsync, lambda fd: None  # not measured: a build at the disk's pace would take minutes
    agents = [Dispatcher(root, client=Client(f"agent-{index:02d}", True)) for index in range(CLIENTS)]
    try:
        rng = random.Random(0)
        every = max(1, records // max(changes, 1))
        made = 0
        for n in range(records):
            agent, topic = agents[n % CLIENTS], f"topic-{n % (CLIENTS * TOPICS) // CLIENTS}"
            if made < changes and (n % every == 0 or records - n <= changes - made):
                path = f"src/pkg{made % 20}/m{made % SOURCE_FILES}.py"
                body = "".join(f"def f{k}(x):\n    return x * {rng.randrange(1000)}\n" for k in range(6))
                request, made = f"/write --force {path} <<EOF\n# change {made}\n{body}EOF", made + 1
            elif n % 10 == 1:
                request = f"/open src/pkg{n % 20}/missing{n}.py"  # refused: NOT_FOUND, for the feed's filter
            elif n % 10 in (2, 3) and made:
                request = f"/open src/pkg{n % 20}/m{n % min(made, SOURCE_FILES)}.py"
            else:
                request = f"/set n = {n}"
            agent.execute(request, topic=topic)
    finally:
        for agent in agents:
            agent.close()
        os.fsync = sync
    return time.perf_counter() - started


def workspace(base: Path, changes: int, records: int) -> tuple[Path, Path, float | None]:
    """The workspace's root and state folder in `base`, built unless a previous run with these sizes left it."""
    here = base / f"ws-{changes}-{records}"
    root, state, done = here / "root", here / "state", here / ".built"
    os.environ["STRINGSH_STATE_DIR"] = str(state)
    if done.exists():
        return root, state, None
    shutil.rmtree(here, ignore_errors=True)
    took = build(root, changes, records)
    done.write_text(f"{changes} {records}\n")
    return root, state, took


# -- 1. latency -------------------------------------------------------------------------------------------------------

class Stream:
    """One follower of the page's event stream, on a thread: when each record naming a path arrived."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.arrived: dict[str, float] = {}
        self.batches = 0
        self.ready = threading.Event()
        self.client = httpx.Client(headers=headers, timeout=None)
        self.thread = threading.Thread(target=self.run, args=(url,), daemon=True)
        self.thread.start()
        if not self.ready.wait(60):
            raise SystemExit("the event stream did not open")

    def run(self, url: str) -> None:
        with contextlib.suppress(httpx.HTTPError), self.client.stream("GET", f"{url}/api/events") as response:
            for line in response.iter_lines():
                if line.startswith("event: hello"):
                    self.ready.set()
                if not line.startswith("data:"):
                    continue
                now = time.time()
                batch = json.loads(line[5:])
                if batch.get("type") == "batch":
                    self.batches += 1
                    for record in batch["records"]:
                        for path in record["paths"]:
                            self.arrived.setdefault(path, now)

    def close(self) -> None:
        self.client.close()


def latency(root: Path, url: str, headers: dict[str, str], count: int, browser: bool) -> dict[str, list[float]]:
    """Reply-to-event (and reply-to-DOM) times of `count` writes by a daemon, and the daemon's round trips."""
    daemon = subprocess.Popen([*STRINGSH, "--root", str(root), "--client", "bench-latency", "daemon"], cwd=root,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    stream = Stream(url, headers)
    page = Page(url, headers) if browser else None
    stamp = f"{os.getpid()}-{int(time.time())}"
    rng = random.Random(1)
    replied: dict[str, float] = {}
    trips: list[float] = []
    assert daemon.stdin is not None and daemon.stdout is not None
    try:
        for n in range(-3, count):  # three to warm up
            path = f"bench-latency/{stamp}-{n + 3:04d}.txt"
            time.sleep(rng.uniform(0.05, 0.3))  # at random moments against the feed's polling
            sent = time.time()
            daemon.stdin.write(f"<𝒞=string:main>\n/write {path} <<EOF\nchange {n}\nEOF\n{END}\n")
            daemon.stdin.flush()
            while (line := daemon.stdout.readline()) and line.rstrip("\n") != END:
                pass
            if n >= 0:
                replied[path] = time.time()
                trips.append(replied[path] - sent)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(path in stream.arrived for path in replied):
            time.sleep(0.05)
        missing = [path for path in replied if path not in stream.arrived]
        if missing:
            raise SystemExit(f"{len(missing)} records never reached the event stream, e.g. {missing[0]}")
        shown = {"stream": [stream.arrived[path] - at for path, at in replied.items()], "round trip": trips}
        if page is not None:
            shown["browser DOM"] = [at - replied[path] for path, at in page.seen(list(replied)).items()]
        return shown
    finally:
        daemon.stdin.close()
        daemon.wait(timeout=30)
        stream.close()
        if page is not None:
            page.close()


class Page:
    """The page in the system's Chromium; a MutationObserver notes when each feed row first names a path."""

    WATCH = """() => { window.benchSeen = {}; new MutationObserver((changes) => { const now = Date.now();
        for (const change of changes) for (const node of change.addedNodes) {
          if (!(node instanceof Element)) continue;
          const cells = node.matches("td.paths") ? [node] : [...node.querySelectorAll("td.paths")];
          for (const cell of cells) for (const path of cell.textContent.split(", "))
            if (!(path in window.benchSeen)) window.benchSeen[path] = now; } })
        .observe(document.getElementById("feed"), { childList: true, subtree: true }); }"""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        from playwright.sync_api import sync_playwright

        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is None:
            raise SystemExit("--browser needs the system's Chromium (apt-get install chromium)")
        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=chromium)
        self.page = self.browser.new_page()
        token = headers["Authorization"].split()[1]
        started = time.perf_counter()
        self.page.goto(f"{url}/#token={token}")
        self.page.wait_for_selector("#live.ok", timeout=60_000)
        self.opened = time.perf_counter() - started
        # on screen: the page builds the feed's rows only near the window, and 60 clients' rows fill it
        self.page.evaluate("document.getElementById('feed-box').scrollIntoView()")
        self.page.wait_for_selector("#feed-box:not(.offscreen)", timeout=60_000)
        self.page.evaluate(self.WATCH)

    def seen(self, paths: list[str]) -> dict[str, float]:
        self.page.wait_for_function(f"() => {json.dumps(paths)}.every((path) => path in window.benchSeen)",
                                    timeout=30_000)
        found: dict[str, int] = self.page.evaluate("() => window.benchSeen")
        return {path: found[path] / 1000 for path in paths}

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()


# -- 2. scale ---------------------------------------------------------------------------------------------------------

def first_calls(url: str, headers: dict[str, str], rounds: int) -> list[tuple[str, float, float]]:
    """Each of the page's first calls: (what, the first call's seconds, the median of `rounds` more)."""
    with httpx.Client(base_url=f"{url}/api", headers=headers, timeout=120) as client:
        def get(where: str) -> dict[str, object]:
            response = client.get(where)
            response.raise_for_status()
            return response.json()  # type: ignore[no-any-return]

        first_changes = get("/changes?limit=50")
        first_feed = get("/audit?limit=100")
        calls = [("overview: clients, health", "/overview"), ("change sets, first 50", "/changes?limit=50"),
                 ("feed, first 100 records", "/audit?limit=100"), ("audit verify", "/verify")]
        newest = first_changes["rows"][0]["id"] if first_changes["rows"] else 0  # type: ignore[index]
        calls.append(("change sets, 50 from the oldest half", f"/changes?limit=50&before={max(newest // 2, 1)}"))
        spot = first_feed["next"]
        for _ in range(30):  # 30 pages down the feed, as far as a person scrolls
            if not spot:
                break
            spot = get(f"/audit?limit=100&before={spot}")["next"]
        if spot:
            calls.append(("feed, the 31st page of 100", f"/audit?limit=100&before={spot}"))
        calls.append(("feed filtered, agent-11 refused (1 in 30)", "/audit?limit=100&client=agent-11&outcome=refused"))
        calls.append(("feed filtered, matching none (8 MiB read)", "/audit?limit=100&client=agent-07&outcome=refused"))
        out = []
        for what, where in calls:
            cold = 0.0
            times = []
            for index in range(rounds + 1):
                started = time.perf_counter()
                get(where)
                if index:
                    times.append(time.perf_counter() - started)
                else:
                    cold = time.perf_counter() - started
            out.append((what, cold, statistics.median(times)))
        return out


def opened(url: str, headers: dict[str, str]) -> float:
    """The page's whole first load as its script makes it (overview, then change sets, then feed), in sequence."""
    with httpx.Client(base_url=f"{url}/api", headers=headers, timeout=120) as client:
        started = time.perf_counter()
        for where in ("/overview", "/changes?limit=50", "/audit?limit=100"):
            client.get(where).raise_for_status()
        return time.perf_counter() - started


# -- 3. cost to agents ------------------------------------------------------------------------------------------------

TABS_CHILD = r"""
import sys, threading, httpx
url, token, tabs = sys.argv[1], sys.argv[2], int(sys.argv[3])
headers = {"Authorization": f"Bearer {token}"}
ready = threading.Barrier(tabs + 1)
def tab():
    with httpx.Client(base_url=url + "/api", headers=headers, timeout=None) as client:
        for where in ("/overview", "/changes?limit=50", "/audit?limit=100", "/verify"):
            client.get(where).raise_for_status()
        with client.stream("GET", "/events") as response:
            ready.wait()
            for _ in response.iter_lines():
                pass
for _ in range(tabs):
    threading.Thread(target=tab, daemon=True).start()
ready.wait()
print("open", flush=True)
sys.stdin.read()
"""


BROWSER_TABS_CHILD = r"""
import shutil, sys
from playwright.sync_api import sync_playwright
url, token, tabs = sys.argv[1], sys.argv[2], int(sys.argv[3])
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-browser"))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pages = [context.new_page() for _ in range(tabs)]
    for page in pages:
        page.goto(f"{url}/#token={token}")
    for page in pages:
        page.wait_for_selector("#live.ok", timeout=60_000)
    print("open", flush=True)
    sys.stdin.read()
    browser.close()
"""


# `--window`: a desktop Chromium on a virtual display, its tabs in one window as a person's are: only the last opened
# is in front; the browser marks the others hidden, as it does a background tab. (Headless Chromium, and any page
# Playwright attaches to, counts every tab as shown.) The browser is started once for the whole run, as a person's
# browser is running anyway: a fresh profile's first minutes of its own work (its preferences, quota and metrics
# databases written and synced every few seconds, on the disk the agents sync their journal to) would otherwise
# fall in every phase with pages and none without. Each phase with pages opens its tabs (through the browser's
# DevTools HTTP endpoint, never attached to; ready when every tab's title is the page's, set once it has read the
# page) and closes them after. The flags are those automation uses (Playwright's own among them): no calls to
# Google's services, which fail and are retried on this offline machine.
BROWSER_WINDOW_CHILD = r"""
import os, shutil, signal, socket, subprocess, sys, tempfile, time, json, urllib.parse, urllib.request
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
profile = tempfile.mkdtemp(prefix="stringsh-bench-chromium-")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
command = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", chromium, f"--remote-debugging-port={port}",
           f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check", "--window-size=1280,1000",
           "--window-position=0,0", "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-default-apps", "--metrics-recording-only",
           "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter", "about:blank"]
command += ["--no-sandbox"] if os.geteuid() == 0 else []
browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
devtools = f"http://127.0.0.1:{port}/json"
def pages():
    return [target for target in json.load(urllib.request.urlopen(f"{devtools}/list"))
            if target["type"] == "page"]
def until(done, what):  # what: the failure's text, made when it fails
    deadline = time.monotonic() + 60
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(what())
        time.sleep(0.2)
def started():
    try:
        urllib.request.urlopen(f"{devtools}/version")
        return True
    except OSError:
        return False
try:
    until(started, lambda: "chromium did not start under xvfb-run")
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words[0] == "open":  # open URL TOKEN COUNT
            url, token, tabs = words[1], words[2], int(words[3])
            address = urllib.parse.quote(f"{url}/#token={token}", safe="")
            for _ in range(tabs):
                urllib.request.urlopen(urllib.request.Request(f"{devtools}/new?{address}", method="PUT"))
            until(lambda: sum(target["title"].startswith("stringsh web") for target in pages()) >= tabs,
                  lambda: "the tabs did not load: " + ", ".join(target["title"] for target in pages()))
            print("open", flush=True)
        else:  # close: every tab but the first, blank one
            for target in pages():
                if target["url"].startswith("http://127.0.0.1"):
                    urllib.request.urlopen(f"{devtools}/close/{target['id']}")
            until(lambda: not any(target["url"].startswith("http://127.0.0.1") for target in pages()),
                  lambda: "the tabs did not close")
            print("closed", flush=True)
finally:
    os.killpg(browser.pid, signal.SIGTERM)
    browser.wait(timeout=30)
    shutil.rmtree(profile, ignore_errors=True)
"""


class Window:
    """`--window`'s desktop Chromium (BROWSER_WINDOW_CHILD), started once; `tabs` opens its tabs for a phase."""

    def __init__(self, env: dict[str, str]) -> None:
        if not (shutil.which("chromium") or shutil.which("chromium-browser")):
            raise SystemExit("--window needs the system's Chromium (apt-get install chromium)")
        if not shutil.which("xvfb-run"):
            raise SystemExit("--window needs a virtual display (apt-get install xvfb)")
        self.child = subprocess.Popen([sys.executable, "-c", BROWSER_WINDOW_CHILD], env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        self.pid = self.child.pid
        self.ask("", "ready")

    def ask(self, line: str, answer: str) -> None:
        assert self.child.stdin is not None and self.child.stdout is not None
        if line:
            self.child.stdin.write(line + "\n")
            self.child.stdin.flush()
        if self.child.stdout.readline().strip() != answer:
            raise SystemExit(f"the browser did not answer {answer!r}")

    @contextlib.contextmanager
    def tabs(self, url: str, headers: dict[str, str], count: int) -> Iterator[int]:
        self.ask(f"open {url} {headers['Authorization'].split()[1]} {count}", "open")
        try:
            yield self.pid
        finally:
            self.ask("close", "closed")

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=60)


def cost(args: argparse.Namespace, env: dict[str, str]) -> dict[str, dict[str, list[float]]]:
    """bench/load.py's agents as daemon topics, in phases without and with `--tabs` pages open."""
    import anyio
    from load import Agent, Daemon, DaemonDriver, build_tree, cpu_seconds, run_agents

    names = [f"d{index:02d}" for index in range(args.agents)]
    phase_names: list[str] = []
    times: dict[str, dict[str, list[float]]] = {"no page": {}, f"{args.tabs} pages": {}}
    cpu: dict[str, list[float]] = {}  # cores each process kept busy in each phase
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-web-load-") as work:
        root = Path(work) / "ws"
        root.mkdir()
        build_tree(root, names)

        async def phases() -> None:
            process = await anyio.open_process([*STRINGSH, "--root", str(root), "daemon"], stderr=subprocess.DEVNULL,
                                               env=env)
            daemon = Daemon(process)
            async with anyio.create_task_group() as readers:
                readers.start_soon(daemon.read_replies)
                agents = [Agent(name, random.Random(index), DaemonDriver(daemon, f"load-{name}").send)
                          for index, name in enumerate(names)]
                async with anyio.create_task_group() as connecting:
                    for agent in agents:
                        connecting.start_soon(DaemonDriver(daemon, f"load-{agent.name}").send, "bash",
                                              {"command": "true"})
                for phase in range(-args.warmup, 2 * args.phases):
                    # without, with, with, without, ... (ABBA): a load that rises or falls through the run weighs
                    # on both alike, where alternating (ABAB) gives the later phase of each pair more of it; first
                    # `--warmup` phases without pages, not counted (the first phase on a fresh tree ran fastest)
                    opened_tabs = phase >= 0 and (phase % 2 == 1) != (phase // 2 % 2 == 1)
                    label = "warm-up" if phase < 0 else f"{args.tabs} pages" if opened_tabs else "no page"
                    with contextlib.ExitStack() as stack:
                        pids = {"daemon": process.pid}
                        if window is not None and not opened_tabs:
                            pids["browser, no tab"] = window.pid  # started once, running in every phase
                        if opened_tabs:
                            url, headers, pids["web"] = stack.enter_context(web(root, env))
                            pids["pages"] = stack.enter_context(
                                window.tabs(url, headers, args.tabs) if window is not None
                                else tabs(url, headers, args.tabs, env, args.browser_tabs))
                            settled(pids["web"])  # opening pages is a one-time cost: the phase measures them open
                            settled(pids["pages"])  # (a browser's start takes it seconds of CPU)
                        for agent in agents:
                            agent.times = {op: [] for op in agent.times}
                        before = {name: cpu_seconds(pid) for name, pid in pids.items()}
                        phase_names.append(f"{phase + 1 if phase >= 0 else 'w'} ({label})")
                        watch.mark(phase_names[-1])
                        wall = await run_agents(agents, args.ops, args.think / 1000)
                        watch.mark(None)
                        for name, pid in pids.items():
                            cpu.setdefault(f"{name} ({label})", []).append((cpu_seconds(pid) - before[name]) / wall)
                    for agent in agents:
                        for op, spent in agent.times.items():
                            times.setdefault(label, {}).setdefault(op, []).extend(spent)
                    writes = [t for agent in agents for t in agent.times.get("write", [])]
                    every = [t for agent in agents for spent in agent.times.values() for t in spent]
                    shown = phase + 1 if phase >= 0 else "w"
                    print(f"  phase {shown} ({label}): write p50 {statistics.median(writes) * 1e3:.1f} ms, "
                          f"p99 {pct(writes, 0.99) * 1e3:.1f} ms, "
                          f"every operation p50 {statistics.median(every) * 1e3:.1f} ms, load average "
                          f"{os.getloadavg()[0]:.1f}", flush=True)
                assert process.stdin is not None
                await process.stdin.aclose()
                await process.wait()
                readers.cancel_scope.cancel()

        window = Window(env) if args.window else None  # the desktop browser, for the whole run
        try:
            with StallWatch(Path(work) / "stallwatch") as watch:  # the disk's own stalls, phase by phase
                anyio.run(phases)
        finally:
            if window is not None:
                window.close()
    print(watch.line(phase_names))
    print("\ncores busy during the phases: " + ", ".join(f"{name} {statistics.fmean(values):.2f}"
                                                        for name, values in cpu.items()))
    return times


def settled(pid: int, busy: float = 0.05, step: float = 0.25, most: float = 30.0) -> None:
    """Wait until the web server has opened the pages (their first calls, its count of the older records): one
    `step` in which it kept less than `busy` of a core; at most `most` seconds."""
    from load import cpu_seconds

    deadline = time.monotonic() + most
    before = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(step)
        now = cpu_seconds(pid)
        if now - before < busy * step:
            return
        before = now


@contextlib.contextmanager
def tabs(url: str, headers: dict[str, str], count: int, env: dict[str, str], browser: bool = False
         ) -> Iterator[int]:
    """`count` pages open (each one's first calls, then its event stream), in a process of their own; `browser`:
    the page itself in `count` tabs of the system's Chromium (its processes are the child's descendants)."""
    if browser and not (shutil.which("chromium") or shutil.which("chromium-browser")):
        raise SystemExit("--browser-tabs needs the system's Chromium (apt-get install chromium)")
    token = headers["Authorization"].split()[1]
    script = BROWSER_TABS_CHILD if browser else TABS_CHILD
    child = subprocess.Popen([sys.executable, "-c", script, url, token, str(count)], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdin is not None
    if child.stdout.readline().strip() != "open":
        raise SystemExit("the pages did not open")
    try:
        yield child.pid
    finally:
        child.stdin.close()
        child.wait(timeout=30)


# -- report -----------------------------------------------------------------------------------------------------------

def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=10_000, help="change sets in the big journal (10,000)")
    parser.add_argument("--records", type=int, default=100_000, help="audit records written (100,000)")
    parser.add_argument("--latency", type=int, default=100, help="writes timed to the event stream (100)")
    parser.add_argument("--rounds", type=int, default=5, help="warm repetitions of each first call (5)")
    parser.add_argument("--agents", type=int, default=30, help="bench/load.py agents (daemon topics) (30)")
    parser.add_argument("--tabs", type=int, default=10, help="pages open in the loaded phases (10)")
    parser.add_argument("--ops", type=int, default=60, help="operations per agent per phase (60)")
    parser.add_argument("--phases", type=int, default=2, help="pairs of phases without and with pages (2)")
    parser.add_argument("--warmup", type=int, default=1, help="phases without pages run first, not counted (1)")
    parser.add_argument("--think", type=float, default=300.0, help="agents' mean think time, ms (300)")
    parser.add_argument("--keep", type=Path, help="build the big workspace here once and reuse it")
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium (Playwright)")
    parser.add_argument("--browser-tabs", action="store_true",
                        help="cost: the pages are tabs of the system's Chromium, not event-stream clients")
    parser.add_argument("--window", action="store_true",
                        help="with --browser-tabs: the tabs in one window of a desktop Chromium (xvfb-run), one in "
                             "front, as a person has them; headless, every tab counts as shown")
    parser.add_argument("--skip", nargs="*", default=[], choices=["latency", "scale", "cost"])
    args = parser.parse_args()
    isolate_user_state()
    from stringsh.userdirs import config_dir

    (config_dir() / "mcp-token").parent.mkdir(parents=True, exist_ok=True)
    (config_dir() / "mcp-token").write_text(os.urandom(24).hex())
    isolated_state = os.environ["STRINGSH_STATE_DIR"]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-web-") as scratch:
        base = args.keep.resolve() if args.keep else Path(scratch)
        small_root, _, _ = workspace(Path(scratch), 100, 1000)
        small_env = dict(os.environ)
        big_root, _, took = workspace(base, args.changes, args.records)
        big_env = dict(os.environ)
        print(f"big workspace: {args.changes} change sets, {args.records} records written, "
              + (f"built in {took:.0f} s" if took is not None else f"reused from {base}"))
        if "scale" not in args.skip:
            with web(small_root, small_env) as (url, headers, _):
                reference = first_calls(url, headers, args.rounds)
                reference_open = opened(url, headers)
            with web(big_root, big_env) as (url, headers, _):
                rows = first_calls(url, headers, args.rounds)
                page_open = opened(url, headers)
                verified = httpx.get(f"{url}/api/verify", headers=headers, timeout=120).json()
                newest = httpx.get(f"{url}/api/changes?limit=1", headers=headers, timeout=120).json()["rows"][0]
            print(f"\n2. scale: journal of {newest['id']} change sets; audit log: {verified['records']} records "
                  f"kept of those written (it rotates at 8 MiB), chain {'ok' if verified['ok'] else 'BROKEN'}")
            print(f"{'first call':<42}{'cold':>9}{'warm':>9}{'small':>9}{'ratio':>7}  goal <= 1 s")
            small_of = {what: warm for what, _, warm in reference}
            for what, cold, warm in rows:
                met = "met" if max(cold, warm) <= 1 else "NOT MET"
                small = small_of.get(what)  # a small log has no 31st page
                beside = f"{small * 1e3:>7.0f}ms{warm / small:>6.1f}x" if small else f"{'-':>9}{'-':>7}"
                print(f"{what:<42}{cold * 1e3:>7.0f}ms{warm * 1e3:>7.0f}ms{beside}  {met}")
            print(f"{'the page opening (its three calls in turn)':<42}{'':>9}{page_open * 1e3:>7.0f}ms"
                  f"{reference_open * 1e3:>7.0f}ms{page_open / reference_open:>6.1f}x  "
                  f"{'met' if page_open <= 1 else 'NOT MET'}")
            print("cold: the first call after the server started; warm: median of the next "
                  f"{args.rounds}; small: warm, on a workspace of 100 change sets and 1,000 records")
        if "latency" not in args.skip:
            with web(big_root, big_env) as (url, headers, _):
                shown = latency(big_root, url, headers, args.latency, args.browser)
            print(f"\n1. latency: {args.latency} writes by a daemon on the big workspace, at random moments")
            for what, values in shown.items():
                print(f"{what:<42}p50 {statistics.median(values) * 1e3:6.0f} ms  p90 {pct(values, 0.9) * 1e3:6.0f}"
                      f" ms  max {max(values) * 1e3:6.0f} ms")
            worst = max(max(values) for what, values in shown.items() if what != "round trip")
            print(f"goal: on screen <= 300 ms after the record is written (from the agent's reply; the record is "
                  f"written right after it): max {worst * 1e3:.0f} ms, {'met' if worst <= 0.3 else 'NOT MET'}")
        if "cost" not in args.skip:
            os.environ["STRINGSH_STATE_DIR"] = isolated_state
            times = cost(args, dict(os.environ))
            without, with_pages = times["no page"], times[f"{args.tabs} pages"]
            print(f"\n3. cost to agents: {args.agents} bench/load.py agents (daemon topics), {args.ops} operations "
                  f"each per phase, think {args.think:g} ms; {args.phases} phases without and {args.phases} with "
                  f"{args.tabs} pages open, in the order ABBA")
            print(f"{'operation':<10}{'p50 none':>10}{'p50 pages':>11}{'ratio':>7}{'p99 none':>10}{'p99 pages':>11}"
                  f"{'ratio':>7}")
            for op in without:
                if not without[op] or not with_pages.get(op):
                    continue
                a50, b50 = statistics.median(without[op]), statistics.median(with_pages[op])
                a99, b99 = pct(without[op], 0.99), pct(with_pages[op], 0.99)
                print(f"{op:<10}{a50 * 1e3:>8.1f}ms{b50 * 1e3:>9.1f}ms{b50 / a50:>6.2f}x{a99 * 1e3:>8.1f}ms"
                      f"{b99 * 1e3:>9.1f}ms{b99 / a99:>6.2f}x")
            ratio = max(statistics.median(with_pages["write"]) / statistics.median(without["write"]),
                        pct(with_pages["write"], 0.99) / pct(without["write"], 0.99))
            shown_in = ("browser tabs of one window open" if args.window else "browser tabs open" if args.browser_tabs
                        else "pages open")
            record.record("web", f"agents' write p50, {shown_in}", statistics.median(with_pages["write"]),
                          "no page open", statistics.median(without["write"]), 1.1)
            record.record("web", f"agents' write p99, {shown_in}", pct(with_pages["write"], 0.99),
                          "no page open", pct(without["write"], 0.99), 1.1)
            print(f"goal: write p50 and p99 with the pages open <= 1.1x without: worst {ratio:.2f}x, "
                  f"{'met' if ratio <= 1.1 else 'NOT MET'}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
