"""Scripted start-up stays light: `-c /ls` loads the modules it needs and no others.

The handler of a command is imported when the command first runs (stringsh.commands.table), the REPL's and the
documents' libraries only where they are used.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.workspace import Workspace
from stringsh.workspace.journalfile import JOURNAL_FILE, MARKED_STAMP, RECOVERY_MARKER
from stringsh.workspace.state import state_folder

HEAVY = ("prompt_toolkit", "rich", "markdown_it", "httpx", "pexpect", "watchdog", "pyte")

#: argparse (and the shutil, gettext and locale it pulls in) only for unusual command lines; importlib.resources
#: only for help pages; dataclasses (and inspect) nowhere on this path; sqlite3 only for a change, a history read
#: or a recovery (never for `-c /ls` in a used workspace whose last change set finished).
#: hashlib (OpenSSL's start costs more than the builtin SHA-256 the state folder's name and the audit chain use:
#: workspace/digest.py) only for a file's content hash; shlex only for a command with arguments; queue only for
#: a front end that logs after it answers.
NOT_FOR_DASH_C = (
    "argparse", "shutil", "gettext", "locale", "importlib.resources", "dataclasses", "inspect", "sqlite3",
    "hashlib", "shlex", "queue",
)

#: Every stringsh module `stringsh -c /ls` imports. A new module on this path must be added here on purpose.
DASH_C_LS_MODULES = frozenset(
    {
        "stringsh",
        "stringsh.cli",
        "stringsh.commands",
        "stringsh.commands.context",
        "stringsh.commands.ls",
        "stringsh.commands.registry",
        "stringsh.commands.table",
        "stringsh.dispatcher",
        "stringsh.documents",
        "stringsh.documents.host",
        "stringsh.documents.listing",
        "stringsh.errors",
        "stringsh.escapes",  # every reply is made safe for a terminal, and a listing's names (`re` only)
        "stringsh.hints",  # errors and guards build their hints with it (`re` only; shlex on a shell hint's use)
        "stringsh.lazyexports",
        "stringsh.options",
        "stringsh.output",
        "stringsh.protocol",
        "stringsh.protocol.request",
        "stringsh.protocol.response",
        "stringsh.protocol.topics",
        "stringsh.script",
        "stringsh.session",
        "stringsh.userdirs",
        "stringsh.serving",  # gc.freeze once the workspace is loaded (gc and sys only)
        "stringsh.workspace",
        "stringsh.workspace.atomic",
        "stringsh.workspace.audit",
        "stringsh.workspace.auditwriter",
        "stringsh.workspace.clients",
        "stringsh.workspace.context",
        "stringsh.workspace.digest",
        "stringsh.workspace.engine",
        "stringsh.workspace.envpolicy",  # the policy's [shell_environment] section (a NamedTuple and its parser)
        "stringsh.workspace.identity",
        "stringsh.workspace.journalfile",  # stats for a crash's leftovers; opens the journal only then
        "stringsh.workspace.globs",
        "stringsh.workspace.globtable",
        "stringsh.workspace.layers",
        "stringsh.workspace.ops",
        "stringsh.workspace.ops.guard",
        "stringsh.workspace.ops.listdir",
        "stringsh.workspace.oserrors",
        "stringsh.workspace.paths",
        "stringsh.workspace.guards",  # the engine's write methods default to its NO_GUARD (NamedTuples only)
        "stringsh.workspace.policy",
        "stringsh.workspace.redact",  # every reply is masked (a pattern compiles only for a reply that needs it)
        "stringsh.workspace.secrets",
        "stringsh.workspace.state",
        "stringsh.workspace.statefolder",
        "stringsh.workspace.statelock",
        "stringsh.workspace.staterecords",
        "stringsh.workspace.trust",
    }
)

PROBE = """
import json, sys
from stringsh.cli import main
status = main(["-c", "/ls"])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def dash_c_ls_modules(ws: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ws, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["status"] == 0
    return set(report["modules"])


@pytest.fixture(scope="module")
def interpreter_start_modules(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """What this interpreter loads before any stringsh code: site's .pth files differ between machines."""
    probe = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path_factory.mktemp("bare"), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def used(ws: Path) -> None:
    """A workspace used before: its journal holds a finished change set (so a start could open it)."""
    workspace = Workspace.load(ws)
    try:
        workspace.write_text("notes.md", "# notes\n")
    finally:
        workspace.close()
    folder = state_folder(ws)
    assert (folder / JOURNAL_FILE).is_file() and (folder / MARKED_STAMP).is_file()
    assert not (folder / RECOVERY_MARKER).exists()


@pytest.mark.parametrize("kind", ["fresh", "used"])
def test_dash_c_ls_loads_exactly_the_named_modules(ws: Path, kind: str, interpreter_start_modules: set[str]) -> None:
    """Fresh or used, `-c /ls` imports the same light set: a used workspace's journal (SQLite, dataclasses) stays
    closed unless recovery is due (workspace/journalfile.py)."""
    if kind == "used":
        used(ws)
    modules = dash_c_ls_modules(ws)
    loaded_by_stringsh = modules - interpreter_start_modules
    assert sorted(name for name in (*HEAVY, *NOT_FOR_DASH_C) if name in loaded_by_stringsh) == []
    ours = {name for name in modules if name == "stringsh" or name.startswith("stringsh.")}
    assert sorted(ours - DASH_C_LS_MODULES) == [], "new on the -c /ls path"
    assert sorted(DASH_C_LS_MODULES - ours) == [], "no longer on the -c /ls path: drop from the list"


OPEN_PROBE = """
import json, sys
from stringsh.cli import main
status = main(["-c", "/open notes.md"])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def test_dash_c_open_loads_no_dataclasses_and_watches_nothing(ws: Path, interpreter_start_modules: set[str]) -> None:
    """A repeat `/open` in a new process: its value classes are hand-written (render/record.py), so neither
    dataclasses nor inspect loads, and a one-shot `-c` starts no file watch (watchdog and its observer thread)."""
    (ws / "notes.md").write_text("# Notes\n\nSee [the guide](https://example.com/a/rather/long/link/to/the/guide).\n")
    proc = subprocess.run([sys.executable, "-c", OPEN_PROBE], cwd=ws, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["status"] == 0
    loaded = set(report["modules"]) - interpreter_start_modules
    assert "stringsh.render.plain" in loaded  # the document was rendered
    assert sorted(n for n in ("dataclasses", "inspect", "watchdog", "stringsh.render.watch") if n in loaded) == []
