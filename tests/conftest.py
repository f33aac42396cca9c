"""Fixtures shared by every test folder: a fresh workspace and the real `stringsh` program."""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import HealthCheck, settings

from stringsh.dispatcher import Dispatcher
from tests.toolwatch.sitecustomize import append, record, watch

# Property tests run with both cores busy (CI, other test files): how long Hypothesis takes to draw or run an example
# says nothing about stringsh, so neither its deadline nor its "too slow" health check may fail a test.
settings.register_profile("busy-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("busy-machine")

#: The folder where the first CI pass records which tests looked for a tool (tests/toolwatch); unset elsewhere.
TOOL_LOG = os.environ.get("STRINGSH_TOOL_LOG")

STRINGSH = [sys.executable, "-m", "stringsh"]

#: Tools some tests run that a machine with only Python may lack, and how to get each.
TOOLS = {"bwrap": "apt-get install -y bubblewrap", "git": "apt-get install -y git",
         "rg": "pip install --only-binary=ripgrep 'stringsh[search]'",
         "node": "apt-get install -y nodejs npm", "npm": "apt-get install -y nodejs npm",
         "strace": "apt-get install -y strace", "less": "apt-get install -y less",
         "chromium": "apt-get install -y chromium",
         "tmpfs": "run the tests as root, as CI does, where `mount -t tmpfs` works"}
#: Parameter ids that mean "this case runs under bubblewrap" (shell providers, policy variants).
NOT_INSTALLED = "is not installed"
BWRAP_IDS = frozenset({"bubblewrap", "sandboxed"})


#: The end of the unsandboxed shell's start-up note (tests/shell/test_sandbox_default.py checks it whole).
BEST_EFFORT = "it runs with your rights; commands naming a secret path are refused (best effort)"


#: `/info`'s line for the shell's environment under the default policy (docs/security.md, "The shell's environment").
SHELL_ENV_INFO = "shell env: core; withheld unless named: *KEY*, *SECRET*, *TOKEN*, *PASSWORD*, *CREDENTIAL*"


#: `/info`'s sandbox line where the shell runs in bubblewrap.
SANDBOX_INFO = "bubblewrap: the workspace writable, the rest of the system read-only or hidden"


def info_setup(ws: Path, policy: str = "defaults", sandbox: str | None = None) -> str:
    """`/info`'s policy, sandbox and state lines for the workspace at `ws`: `sandbox` as given, else this machine's
    default (bubblewrap, or why not); the state folder under this run's STRINGSH_STATE_DIR."""
    from stringsh.workspace import shown_path
    from stringsh.workspace.statefolder import state_folder

    note = sandbox_note()
    if sandbox is None:
        sandbox = SANDBOX_INFO if not note else f"off ({note.split('(', 1)[1].split('):', 1)[0]})"
    return f"policy:    {policy}\nsandbox:   {sandbox}\nstate:     {shown_path(state_folder(ws))}/"


@functools.cache
def sandbox_note() -> str:
    """What the start-up line adds on this machine under the default policy: nothing where bubblewrap runs, else why
    the shell is not sandboxed. Tests that compare a start-up line whole add it, so they hold with and without bwrap."""
    path = shutil.which("bwrap")
    if path is None:
        why = "bwrap is not installed"
    else:
        from stringsh.workspace.shell.providers import BwrapProbe

        problem = BwrapProbe().problem(path)
        if problem is None:
            return ""
        why = f"bwrap cannot run here: {(problem.splitlines() or ['it failed'])[0][:200]}"
    return f"; shell not sandboxed ({why}): {BEST_EFFORT}"


def on_this_machine(line: str) -> str:
    """`line`, a start-up line under the default sandbox setting, as this machine prints it."""
    record()  # cached below: the lookup itself is charged to the first test only
    return line + sandbox_note()


def default_start() -> str:
    """What a start under the built-in defaults writes on stderr on this machine (a front end that starts the
    shell): nothing where bubblewrap runs, else the one line saying why the shell is not sandboxed."""
    record()
    note = sandbox_note()
    return f"stringsh: {note.removeprefix('; ')}\n" if note else ""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores this process may use. Most tests wait on real subprocesses, ptys
    and servers, so a worker per core leaves a core idle in those waits; the extra one fills them."""
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # started as a script's background job (`python -m pytest &`), which ignores Ctrl-C, and every process a
        # test starts would inherit that: the tests that send Ctrl-C expect a terminal's default, as a user has it
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if TOOL_LOG:  # every Python child (xdist's workers, `python -m stringsh`) records its lookups too
        watch()
        here = str(Path(__file__).parent / "toolwatch")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    config.addinivalue_line(
        "markers",
        "needs(tool): runs a tool (bwrap, git, rg, node, npm, strace, chromium, tmpfs: a size-limited mount); "
        "skipped "
        "without it, "
        "unless CI=true, where it must run",
    )


def needed_tools(item: pytest.Item) -> list[str]:
    """`@pytest.mark.needs("git")`, and bwrap for a parametrized case whose id names the sandbox (`[bubblewrap]`)."""
    tools = [tool for mark in item.iter_markers("needs") for tool in mark.args]
    name = item.name
    ids = name[name.index("[") + 1 : -1].split("-") if name.endswith("]") and "[" in name else []
    if not BWRAP_IDS.isdisjoint(ids):
        tools.append("bwrap")
    return tools


@functools.cache
def can_mount_tmpfs() -> bool:
    """Root, and a real `mount -t tmpfs` works here (a container may forbid it): tried once per run."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    import tempfile

    with tempfile.TemporaryDirectory() as point:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", point],
                                 capture_output=True).returncode == 0
        if mounted:
            subprocess.run(["umount", point], capture_output=True)
    return mounted


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A newcomer's run skips what needs a missing tool; where CI=true (.ci/run installs them) it fails loudly."""
    tools = needed_tools(item)
    if tools:
        append(item.nodeid)
    for tool in tools:
        if (can_mount_tmpfs() if tool == "tmpfs" else shutil.which(tool)):
            continue
        if os.environ.get("CI") == "true":
            pytest.fail(f"{tool} is not installed and CI=true requires this test: {TOOLS[tool]}", pytrace=False)
        pytest.skip(f"{tool} {NOT_INSTALLED} ({TOOLS[tool]} to run this test)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Generator[None, Any, None]:
    """A failure whose text holds a lone surrogate (the fuzz tests make such values) cannot travel from a
    pytest-xdist worker, which then dies and hides the failure: such a report is sent as escaped text instead."""
    outcome = yield
    report = outcome.get_result()
    if report.longrepr is not None and not _encodes(str(report.longrepr)):
        report.longrepr = _escaped(str(report.longrepr))
    report.sections = [(title, content if _encodes(content) else _escaped(content))
                       for title, content in report.sections]


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def unavailable(reason: str) -> NoReturn:
    """Skip a test this machine cannot run (a file system without sparse files, a tracer ptrace refuses), except
    where CI=true: there every test must run, so it fails with the same reason."""
    record()
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true requires this test)", pytrace=False)
    pytest.skip(reason)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line a newcomer cannot miss: what was skipped, and how to run it. Counted from the skip reports, which
    reach this process from every pytest-xdist worker."""
    _skipped: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
        words = reason.removeprefix("Skipped: ").split(" ", 1)
        if len(words) == 2 and words[0] in TOOLS and words[1].startswith(NOT_INSTALLED):
            _skipped[words[0]] = _skipped.get(words[0], 0) + 1
    if _skipped:
        parts = "; ".join(f"{count} need {tool} (`{TOOLS[tool]}`)" for tool, count in sorted(_skipped.items()))
        terminalreporter.write_line(
            f"stringsh: {sum(_skipped.values())} tests skipped, tools not installed: {parts}; with CI=true they fail"
        )


@pytest.fixture(autouse=True)
def looked_up_afresh() -> None:
    """While recording tool lookups, the rg lookup cached per process is made again for each test."""
    if TOOL_LOG:
        from stringsh.workspace.ops.rgsearch import find_rg

        find_rg.cache_clear()


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's config, history or state (child processes inherit this)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("STRINGSH_HISTORY", str(home / "history"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "xdg-state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg-cache"))
    monkeypatch.delenv("STRINGSH_CLIENT", raising=False)  # a client name of the caller's would join every run
    monkeypatch.delenv("COLUMNS", raising=False)  # the caller's terminal width would wrap help replies of -c


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def dispatcher(ws: Path):
    d = Dispatcher(ws)
    yield d
    d.close()


def spool_named(notice: str) -> Path:
    """The spool file a cut-output notice names (`… in '/a b/.stringsh/spool/x.txt' ...]`, quoted as a shell word
    when its path needs quoting)."""
    match = re.search(r" in ('[^']*'|\S+) \.\.\.\]", notice)
    assert match is not None, notice
    return Path(shlex.split(match.group(1))[0])


def run_stringsh(args: list[str], cwd: Path, stdin: bytes | str = b"", timeout: float = 60, env: dict | None = None):
    """Run the real program as a user would, with a clean isolated config and state."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, "TERM": "dumb", **(env or {})}
    return subprocess.run([*STRINGSH, *args], cwd=cwd, input=data, capture_output=True, timeout=timeout, env=full_env)


def run_script(ws: Path, script: str) -> str:
    """What `stringsh run --keep-going` prints for `script` (written beside the workspace, not in it)."""
    (ws.parent / "script.txt").write_text(script)
    return run_stringsh(["run", "--keep-going", str(ws.parent / "script.txt")], cwd=ws).stdout.decode()


def script_replies(ws: Path, script: str) -> list[str]:
    """`run_script`'s output cut into replies at each `re:` line."""
    parts = run_script(ws, script).rstrip("\n").split("\nre: ")
    return [parts[0], *("re: " + part for part in parts[1:])]


def process_name(pid: int) -> str:
    """A live process's name (its `comm`), or "" once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.index("(") + 1 : stat.rindex(")")]


def wait_until(condition: Callable[[], object], interval: float = 0.02) -> None:
    """Poll until `condition()` holds. No deadline of its own, so a busy machine's slowness is never a failure: a
    wait that never ends is ended by pytest-timeout (pyproject's `timeout`) with every thread's stack."""
    while not condition():
        time.sleep(interval)


def wait_for_program(pid: int, name: str) -> None:
    """Wait until a program called `name` runs below `pid`: a request's program has started (so a signal now
    reaches it, not the read of the request)."""
    wait_until(lambda: any(process_name(child) == name for child in descendants(pid)))


def holding(text: str) -> list[str]:
    """The processes on the machine whose command line holds `text`."""
    holders = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                holders.append(entry.name)
        except OSError:
            continue
    return holders


def wait_none_holds(text: str) -> None:
    """Wait until no process on the machine has `text` in its command line: nothing is left that could still run
    the command holding it (the positive signal before asserting its effect never came)."""
    wait_until(lambda: not holding(text), 0.05)


def descendants(pid: int) -> set[int]:
    """The live processes below `pid` (its shells and their sandboxes), from /proc."""
    children: dict[int, set[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, set()).add(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found
