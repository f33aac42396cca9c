"""Scripted start-up stays light: `-c /ls` loads the modules it needs and no others.

The handler of a command is imported when the command first runs (stringsh.commands.table), the REPL's and the
documents' libraries only where they are used.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("prompt_toolkit", "rich", "markdown_it", "httpx", "pexpect", "watchdog", "pyte")

#: argparse (and the shutil, gettext and locale it pulls in) only for unusual command lines; importlib.resources
#: only for help pages; dataclasses (and inspect) nowhere on this path; sqlite3 only once a journal is used.
NOT_FOR_DASH_C = (
    "argparse", "shutil", "gettext", "locale", "importlib.resources", "dataclasses", "inspect", "sqlite3",
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
        "stringsh.workspace",
        "stringsh.workspace.atomic",
        "stringsh.workspace.audit",
        "stringsh.workspace.clients",
        "stringsh.workspace.context",
        "stringsh.workspace.engine",
        "stringsh.workspace.identity",
        "stringsh.workspace.globs",
        "stringsh.workspace.globtable",
        "stringsh.workspace.layers",
        "stringsh.workspace.ops",
        "stringsh.workspace.ops.guard",
        "stringsh.workspace.ops.listdir",
        "stringsh.workspace.oserrors",
        "stringsh.workspace.paths",
        "stringsh.workspace.policy",
        "stringsh.workspace.redact",  # every reply is masked (a pattern compiles only for a reply that needs it)
        "stringsh.workspace.secrets",
        "stringsh.workspace.state",
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


def interpreter_start_modules(ws: Path) -> set[str]:
    """What this interpreter loads before any stringsh code: site's .pth files differ between machines."""
    probe = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ws, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_dash_c_ls_imports_no_heavy_library(ws: Path) -> None:
    loaded_by_stringsh = dash_c_ls_modules(ws) - interpreter_start_modules(ws)
    assert sorted(name for name in (*HEAVY, *NOT_FOR_DASH_C) if name in loaded_by_stringsh) == []


def test_dash_c_ls_imports_exactly_the_named_stringsh_modules(ws: Path) -> None:
    modules = dash_c_ls_modules(ws)
    ours = {name for name in modules if name == "stringsh" or name.startswith("stringsh.")}
    assert sorted(ours - DASH_C_LS_MODULES) == [], "new on the -c /ls path"
    assert sorted(DASH_C_LS_MODULES - ours) == [], "no longer on the -c /ls path: drop from the list"
