"""The guard matrix (issue 35), generated: every write-capable tool of every dialect, enumerated from the dialect's
own table (the command table, the JSON tools registry, MCP's tool list and its readOnlyHint, OPERATOR_CMD's
ACTIONS and their `mutates`), run through the real program against each guard the engine holds: a mask written
back over a secret, a protected path (`.git/`), the state folder inside the workspace, a secret file, read-only
mode and a Latin-1 file given a character it cannot hold. Every dialect answers with the same code, and not one
byte changes on disk. A tool of a table that is neither driven here nor named as read-only or as running no write
of its own fails the coverage test: a new tool is driven, or named, before it ships."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.commands.table import COMMANDS
from stringsh.dialects.tools.registry import TOOLS
from stringsh.protocol.operator_model import ACTIONS
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.operator_support import allow_changes, b64, block, run

TOKEN = "ghp_" + "Zq8Lr3Vx7Tn2Wm5Kp9Hd4Jf6Bc1Ys0Ga3Ue8"
SEED = {
    "conf.py": f'tok = "{TOKEN}"\n'.encode(),
    ".git/config": b"x = 1\n",
    ".state/f.txt": b"x = 1\n",
    ".env": b"x = 1\n",
    "latin.txt": b"caf\xe9\nx = 1\n",
    "notes.txt": b"x = 1\n",
}
#: guard -> (the file it is tried on, the code every dialect answers with)
GUARDS = {
    "mask": ("conf.py", "INVALID_PAYLOAD"),
    "protected": (".git/config", "NOT_PERMITTED"),
    "state": (".state/f.txt", "NOT_PERMITTED"),
    "secret": (".env", "SECRET_DENIED"),
    "latin1": ("latin.txt", "ENCODING"),
    "read_only": ("notes.txt", "NOT_PERMITTED"),
}
#: what replaces the old text `x = 1` (or the secret's line), per guard: the mask, or a character Latin-1 lacks
NEW = {"mask": 'tok = "***REDACTED***"', "latin1": "x = \u20ac"}
OLD = {"mask": f'tok = "{TOKEN}"'}
#: Guards of content: a tool that moves, copies, deletes or makes folders writes no text of its own.
CONTENT_GUARDS = ("mask", "latin1")
READ_ONLY_POLICY = ("[permissions]\nwrite = false\nedit = false\npatch = false\ndelete = false\nmkdir = false\n"
                    "move = false\nrevert = false\n")

#: Tools that change no file, by dialect (reads, searches, listings, history, settings).
READ_ONLY = {
    "string": {"back", "changes", "close", "glob", "grep", "help", "info", "ls", "nav", "open", "refresh",
               "session", "sessions", "set", "stat", "symbols", "topics", "verify"},
    "tools": {"read", "glob", "grep", "symbols", "read_symbol", "changes"},
    "operator": {name for name, shape in ACTIONS.items() if not shape.mutates},
}
#: Write-capable tools whose writes are other tools' (String Commands sent in another wrapper), processes the
#: sandbox and the shell's own checks guard (shell, git, actions), or take back the engine's own change sets
#: (revert, undo: they write only what a change wrote, which passed these guards when it was written).
NOT_ENGINE_WRITES = {
    "string": {"!", "act", "bash", "bash-line", "exec", "git", "source", "operator-block", "revert", "undo"},
    "tools": {"bash", "git", "revert", "undo"},
    "mcp": {"string", "bash", "revert", "undo"},
    "operator": set(),
}

Step = str | dict | tuple


def string_steps(name: str, guard: str, path: str) -> list[str] | None:
    """The String Command lines trying `name` on `path` (None: the guard is not one this tool meets)."""
    old, new = OLD.get(guard, "x = 1"), NEW.get(guard, "x = 2")
    text = {"write": [f"/write --force {path}\n{new}\n"],
            "edit": [f"/edit --force {path}\n{new}\n"],
            "replace": [f"/replace {path}\n{old}\n---\n{new}\n"],
            "append": [f"/append {path}\n{new}\n"],
            "patch": [f"/patch\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"]}
    if name in text:
        return None if guard == "mask" and name == "append" else text[name]
    if guard in CONTENT_GUARDS:
        return None
    return {"mv": [f"/mv {path} moved.txt"], "cp": [f"/cp notes.txt {path}" if guard != "secret"
                                                     else f"/cp {path} copied.txt"],
            "rm": [f"/rm {path}"], "mkdir": [f"/mkdir {path}.d"]}.get(name, [])


def tools_steps(name: str, guard: str, path: str) -> list[dict] | None:
    old, new = OLD.get(guard, "x = 1"), NEW.get(guard, "x = 2")
    codex = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
    calls = {"write": {"file_path": path, "content": new + "\n"},
             "edit": {"file_path": path, "old_string": old, "new_string": new},
             "apply_patch": {"input": codex}}
    if name == "edit_symbol":
        return None  # symbols: see SYMBOL_TOOLS
    return [{"id": 1, "tool": name, "args": calls[name]}] if name in calls else []


def operator_steps(name: str, guard: str, path: str) -> list[str] | None:
    old, new = OLD.get(guard, "x = 1"), NEW.get(guard, "x = 2")
    head = ("version: 1", "id: t", f"action: {name}", f"path: {path}")
    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": old, "text": new}]})
    diff = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"
    text = {"fs.write": [block(*head, "content_b64: " + b64(new + "\n"))],
            "fs.applyEdits": [block(*head, "edits_b64: " + b64(edits))],
            "fs.patch": [block(*head, "patch_b64: " + b64(diff))]}
    if name in text:
        return text[name]
    if name == "fs.editSymbol":
        return None
    if guard in CONTENT_GUARDS:
        return None
    if name == "fs.delete":
        return [block(*head)]
    if name in ("fs.move", "fs.rename"):
        return [block(*head, "path_to: moved.txt")]
    if name == "fs.copy":
        return [block(*head[:3], "path: notes.txt", f"path_to: {path}")] if guard != "secret" else \
            [block(*head, "path_to: copied.txt")]
    return []


def mcp_steps(name: str, guard: str, path: str) -> list[tuple[str, dict]] | None:
    old, new = OLD.get(guard, "x = 1"), NEW.get(guard, "x = 2")
    text = {"write_file": {"path": path, "content": new + "\n"},
            "edit_file": {"path": path, "edits": [{"oldText": old, "newText": new}]},
            "replace": {"path": path, "old_text": old, "new_text": new},
            "patch": {"diff": f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"},
            "apply_patch": {"input": f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"}}
    if name in text:
        return [(name, text[name])]
    if name in ("edit_block", "replace_symbol", "insert_symbol"):
        return None
    if guard in CONTENT_GUARDS:
        return None
    return {"create_directory": [(name, {"path": f"{path}.d"})],
            "move_file": [(name, {"source": path, "destination": "moved.txt"})]}.get(name, [])


DRIVERS: dict[str, Callable[[str, str, str], list | None]] = {
    "string": string_steps, "tools": tools_steps, "operator": operator_steps, "mcp": mcp_steps}
#: Part edits of markdown blocks and source symbols: driven by tests/security/test_engine_guards.py and the
#: dialects' own tests; listed so the coverage test knows them (see the report of issue 35 for what remains).
PART_TOOLS = {"tools": {"edit_symbol"}, "operator": {"fs.editSymbol"},
              "mcp": {"edit_block", "replace_symbol", "insert_symbol"}}


def mcp_tools() -> dict[str, bool]:
    """MCP's tool list as served (tools.json), each with whether it may change files."""
    listed = json.loads((Path(__file__).parents[2] / "stringsh/dialects/mcp/tools.json").read_text())
    return {t["name"]: not t["annotations"]["readOnlyHint"] for t in listed["tools"]}


def write_tools(dialect: str) -> set[str]:
    names = {"string": set(COMMANDS), "tools": set(TOOLS), "operator": set(ACTIONS),
             "mcp": {name for name, writes in mcp_tools().items() if writes}}[dialect]
    return names - READ_ONLY.get(dialect, set()) - NOT_ENGINE_WRITES[dialect] - PART_TOOLS.get(dialect, set())


@pytest.mark.parametrize("dialect", DRIVERS)
def test_every_write_tool_is_driven(dialect: str) -> None:
    """Each write tool of the dialect's own table has a driver that tries it on every path guard."""
    for name in write_tools(dialect):
        steps = DRIVERS[dialect](name, "protected", ".git/config")
        assert steps, f"{dialect} tool {name} is write-capable and not driven by the guard matrix"


def seed(root: Path) -> None:
    for rel, data in SEED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root but the state folder's own files (its audit log grows by every request)."""
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*")) if ".stringsh" not in p.parts
            and not p.relative_to(root).as_posix().startswith(".state/workspaces")}


def codes(dialect: str, root: Path, steps: list) -> list[str]:
    """The code each step was refused with ("ok" for one that was not)."""
    if dialect == "string":
        script = root.parent / f"{root.name}.script"
        script.write_text("".join(step if step.endswith("\n") else step + "\n" for step in steps))
        out = run_stringsh(["run", "--keep-going", str(script)], cwd=root).stdout.decode()
        replies = out.split("re: ")[1:]
        return [r.split("ERROR(", 1)[1].split(")", 1)[0] if "\nERROR(" in r else "ok" for r in replies]
    if dialect == "tools":
        done = run_stringsh(["tools"], cwd=root, stdin="".join(json.dumps(s) + "\n" for s in steps))
        return [r.get("code", "ok") for r in map(json.loads, done.stdout.decode().splitlines())]
    if dialect == "operator":
        out = run(["operator"], root, "".join(steps)).stdout.decode()
        return [r.split("summary: ", 1)[1].split(":", 1)[0] if "ok: false" in r else "ok"
                for r in out.split("END_OPERATOR_RESULT")[:-1]]
    found = []
    with stdio_session(root, env=dict(os.environ)) as client:
        for name, args in steps:
            result = client.call(name, args)
            text = result.content[0].text  # type: ignore[union-attr]
            found.append(text.split("(", 1)[1].split(")", 1)[0] if result.is_error and "(" in text else
                         ("ok" if not result.is_error else text))
    return found


@pytest.mark.parametrize("dialect", DRIVERS)
def test_every_dialect_refuses_alike_and_changes_nothing(dialect: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    allow_changes()
    for mode in ("normal", "read_only"):
        root = tmp_path / mode
        root.mkdir()
        seed(root)
        monkeypatch.setenv("STRINGSH_STATE_DIR", str(root / ".state"))
        if mode == "read_only":
            policy = Path(os.environ["STRINGSH_CONFIG_DIR"]) / "policy.toml"
            policy.write_text(policy.read_text() + READ_ONLY_POLICY)
        before = snapshot(root)
        steps, expected, asked = [], [], []
        for guard, (path, code) in GUARDS.items():
            if (guard == "read_only") != (mode == "read_only"):
                continue
            for name in sorted(write_tools(dialect)):
                tried = DRIVERS[dialect](name, guard, path)
                for step in tried or []:
                    steps.append(step)
                    expected.append(code)
                    asked.append(f"{name} ({guard})")
        got = codes(dialect, root, steps)
        assert list(zip(asked, got, strict=True)) == list(zip(asked, expected, strict=True))
        assert snapshot(root) == before
