"""Making one change through each dialect as users and agents do (`stringsh run`, `stringsh operator`, `stringsh
tools`, the plain loop), and reading back what the engine kept: the journal through `/changes`, the audit trail
through `stringsh audit tail --json`, and each change set's front end through the engine's own history."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from stringsh.workspace import Workspace
from tests.conftest import run_stringsh
from tests.dialects.operator.operator_support import b64, block, run

#: A CRLF file and a UTF-8 file with a BOM (and a non-ASCII character), each with the line every dialect changes.
SEED = {"win.txt": b"alpha\r\nport = 3000\r\nomega\r\n",
        "bom.txt": b"\xef\xbb\xbfname = caf\xc3\xa9\nport = 3000\nend\n"}
#: The same files after `port = 3000` became `port = 8080`: line endings, BOM and every other byte as they were.
CHANGED = {"win.txt": b"alpha\r\nport = 8080\r\nomega\r\n",
           "bom.txt": b"\xef\xbb\xbfname = caf\xc3\xa9\nport = 8080\nend\n"}
OLD, NEW = "port = 3000", "port = 8080"
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
#: Audit fields that differ between any two records (chain, clock, workspace id).
VOLATILE = ("hash", "prev", "time", "ms", "workspace", "client")


def seed(root: Path) -> Path:
    root.mkdir()
    for name, data in SEED.items():
        (root / name).write_bytes(data)
    return root


def files(root: Path) -> dict[str, bytes]:
    """Every file's bytes under root, the engine's `.stringsh/` left out."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.relative_to(root).parts}


def string_commands(ws: Path, script: str) -> str:
    """What `stringsh run --keep-going` prints for `script` (kept beside the workspace, not in it)."""
    path = ws.parent / f"{ws.name}-script.txt"
    path.write_text(script)
    return run_stringsh(["run", "--keep-going", str(path)], cwd=ws).stdout.decode()


def replace_script(*names: str) -> str:
    return "".join(f"/replace {name} <<EOF\n{OLD}\n---\n{NEW}\nEOF\n" for name in names)


def operator(ws: Path, *blocks: str) -> str:
    """`stringsh operator`'s OPERATOR_RESULT blocks, with no controlling terminal (the policy decides)."""
    done = run(["operator"], ws, "".join(blocks))
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout.decode()


def patch_block(name: str, id_: str) -> str:
    """fs.patch: a strict single-file unified diff, written with `\\n` (the engine keeps the file's endings)."""
    diff = (f"--- a/{name}\n+++ b/{name}\n@@ -2 +2 @@\n-{OLD}\n+{NEW}\n")
    return block("version: 1", f"id: {id_}", "action: fs.patch", f"path: {name}", "patch_b64: " + b64(diff))


def edits_block(name: str, id_: str) -> str:
    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": OLD, "text": NEW}]})
    return block("version: 1", f"id: {id_}", "action: fs.applyEdits", f"path: {name}", "edits_b64: " + b64(edits))


def tools(ws: Path, *requests: dict[str, Any]) -> list[dict[str, Any]]:
    """`stringsh tools`' replies, one a request."""
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    done = run_stringsh(["tools"], cwd=ws, stdin=stdin)
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(text) for text in done.stdout.decode().splitlines()]


def edit_request(name: str, id_: int) -> dict[str, Any]:
    return {"id": id_, "tool": "edit", "args": {"file_path": name, "old_string": OLD, "new_string": NEW}}


def command(ws: Path, line: str) -> str:
    """`stringsh -c line`'s reply, local times shown as TIME."""
    return TIME.sub("TIME", run_stringsh(["-c", line], cwd=ws).stdout.decode())


def audit(ws: Path, count: int = 100) -> list[dict[str, Any]]:
    """The workspace's audit records as stored, oldest first."""
    done = run_stringsh(["audit", "tail", "-n", str(count), "--json"], cwd=ws)
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(text) for text in done.stdout.decode().splitlines()]


def steady(record: dict[str, Any]) -> dict[str, Any]:
    """An audit record without its volatile fields (each checked to be there)."""
    assert set(VOLATILE) <= set(record), record
    return {k: v for k, v in record.items() if k not in VOLATILE}


def frontends(ws: Path) -> list[tuple[int, str, str]]:
    """(id, front end, topic) of every change set, oldest first, as the engine's journal keeps them."""
    workspace = Workspace(ws)
    try:
        return [(row.id, row.frontend, row.topic) for row in reversed(workspace.history())]
    finally:
        workspace.close()
