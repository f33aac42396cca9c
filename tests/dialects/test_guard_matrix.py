"""The guard matrix, generated: every write-capable tool of every dialect, enumerated from the dialect's
own table (the command table, the JSON tools registry, MCP's tool list and its readOnlyHint, OPERATOR_CMD's
ACTIONS and their `mutates`), run through the real program against each guard the engine holds, and answered
with the same code in every dialect while not one byte of the tree changes.

Each dialect is one real server for the whole run (String Commands: a `Dispatcher`, the engine every String front
end runs; `stringsh tools`, `stringsh operator` and an MCP stdio session), driven case after case. A tool of a
table that is neither driven (`KIND`) nor named as changing no file (`READ_ONLY`) or as writing through something
else (`NOT_DRIVEN`) fails `test_every_write_tool_is_known`, and a kind of tool that meets a guard the driver
does not try fails `test_every_guard_is_tried_or_said_not_to_apply`: a new write tool is driven before it ships.
`NOT_APPLICABLE` says, with its reason, where a guard does not apply to a kind of tool."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from stringsh.commands.table import COMMANDS
from stringsh.dialects.tools.registry import TOOLS
from stringsh.protocol.operator_model import ACTIONS
from tests.dialects.operator.operator_support import b64, block

TOKEN = "ghp_" + "Zq8Lr3Vx7Tn2Wm5Kp9Hd4Jf6Bc1Ys0Ga3Ue8"
#: guard -> (the folder its files are in, the code every dialect answers with)
GUARDS = {
    "mask": ("mask/", "INVALID_PAYLOAD"),  # a shown mask written back over the secret it hides
    "part": ("part/", "CONFLICT"),  # the part this client read, changed by another client since
    "protected": (".git/hooks/", "NOT_PERMITTED"),  # a path that runs code later
    "state": (".state/", "NOT_PERMITTED"),  # the state folder, here inside the workspace (STRINGSH_STATE_DIR)
    "secret": (".ssh/", "SECRET_DENIED"),  # a secret file
    "read_only": ("ro/", "NOT_PERMITTED"),  # a read_only root of the policy
    "latin1": ("latin/", "ENCODING"),  # a Latin-1 file given a character Latin-1 cannot hold
}
POLICY = ('[operator]\nconfirm = "allow"\n\n[[roots]]\nid = "main"\npath = "."\n\n'
          '[[roots]]\nid = "ro"\npath = "ro"\nmode = "read_only"\n')
#: What kind of write each tool makes; the kind decides which guards apply (NOT_APPLICABLE).
KIND = {
    "string": {"write": "stateful", "edit": "stateful", "replace": "stateful", "patch": "patch",
               "append": "append", "mv": "tree", "cp": "tree", "rm": "tree", "mkdir": "tree", "rename": "rename"},
    "tools": {"write": "stateless", "edit": "stateless", "apply_patch": "stateless", "edit_symbol": "stateless",
              "rename": "rename_stateless"},
    "operator": {"fs.write": "stateless", "fs.applyEdits": "stateless", "fs.patch": "stateless",
                 "fs.editSymbol": "stateless", "fs.delete": "tree", "fs.move": "tree", "fs.rename": "tree",
                 "fs.copy": "tree", "fs.renameSymbol": "rename_stateless"},
    "mcp": {"write_file": "stateless", "edit_file": "stateless", "edit_block": "stateful", "replace": "stateful",
            "patch": "patch", "apply_patch": "patch", "replace_symbol": "stateful",
            "insert_symbol": "stateful", "create_directory": "tree", "move_file": "tree", "rename_symbol": "rename"},
}
STATELESS = ("each call reads the file and writes it in one request (held from that read to the write under the "
             "engine's lock: PartText, WholeFile or the exact old text it carries); the dialect remembers no "
             "earlier read of its client to hold a part against")
NO_TEXT = "moves, copies, deletes and makes folders: it writes no text of its own"
NO_MASK = ("a rename writes only NEW, checked as an identifier of the language (a mask is none), in place of "
           "identifiers: every other byte, a secret's included, is written back as it is")
#: (kind, guard) -> why the guard does not apply to that kind of tool.
NOT_APPLICABLE = {
    ("stateless", "part"): STATELESS,
    ("patch", "part"): ("a patch is held against the text it carries (its context and removed lines, matched exactly "
                        "under the lock), not against a read: a part another client changed does not apply "
                        "(PATCH_FAILED, the patch's own refusal)"),
    ("append", "mask"): "an append replaces no text: a mask it adds hides no secret",
    ("append", "part"): "an append is held against no read: it adds to the file as it is under the lock",
    ("tree", "mask"): NO_TEXT,
    ("tree", "latin1"): NO_TEXT,
    ("tree", "part"): NO_TEXT + ", and holds no part of one",
    ("rename", "mask"): NO_MASK,
    ("rename_stateless", "mask"): NO_MASK,
    ("rename_stateless", "part"): STATELESS,
}
#: Tools that change no file, by dialect (OPERATOR_CMD's and MCP's own tables say so: `mutates`, readOnlyHint).
READ_ONLY = {
    "string": {"open", "back", "refresh", "source", "close", "ls", "grep", "symbols", "map", "glob", "stat", "nav",
               "changes", "verify", "set", "info", "topics", "sessions", "session", "help"},
    "tools": {"read", "glob", "grep", "symbols", "definition", "read_symbol", "map", "changes"},
    "operator": set(),
    "mcp": set(),
}
SHELL = "runs processes: the shell's sandbox and its own refusals guard them, not a file write of the engine's"
UNDO = ("takes back a change set of the journal: it writes only the bytes a change replaced, every file of which "
        "passed these guards when that change was made, and names no path or body of its own")
#: Write-capable tools the matrix does not drive, and why.
NOT_DRIVEN = {
    "string": {"!": SHELL, "bash": SHELL, "bash-line": SHELL, "exec": SHELL, "act": SHELL, "git": SHELL,
               "operator-block": "OPERATOR_CMD blocks: driven as the operator dialect", "undo": UNDO,
               "revert": UNDO},
    "tools": {"bash": SHELL, "git": SHELL, "undo": UNDO, "revert": UNDO},
    "operator": {},
    "mcp": {"string": "String Commands in MCP: driven as the string dialect", "bash": SHELL, "undo": UNDO,
            "revert": UNDO},
}


def mcp_tools() -> dict[str, bool]:
    """MCP's tool list as served (tools.json), each with whether it may change files (not readOnlyHint)."""
    listed = json.loads((Path(__file__).parents[2] / "stringsh/dialects/mcp/tools.json").read_text())
    return {t["name"]: not t["annotations"]["readOnlyHint"] for t in listed["tools"]}


def table(dialect: str) -> set[str]:
    """Every tool of the dialect's own table that may change a file."""
    if dialect == "string":
        return set(COMMANDS) - READ_ONLY["string"]
    if dialect == "tools":
        return set(TOOLS) - READ_ONLY["tools"]
    if dialect == "operator":
        return {name for name, shape in ACTIONS.items() if shape.mutates}
    return {name for name, writes in mcp_tools().items() if writes}


# -- the files each guard is tried on ------------------------------------------------------------------------------


def old(guard: str) -> str:
    return f'tok = "{TOKEN}"' if guard == "mask" else "x = 1"


def new(guard: str) -> str:
    return {"mask": 'tok = "***REDACTED***"', "latin1": 'x = "\u20ac"'}.get(guard, "x = 2")


def seed(root: Path) -> None:
    """In each guard's folder a text file, a markdown file with a block and a source file with a symbol, each
    holding the line `old(guard)` (the Latin-1 ones after a line with an é); `src.txt` to copy and move."""
    for guard, (folder, _) in GUARDS.items():
        first = "caf\u00e9\n" if guard == "latin1" else ""
        head = first or "T\n"
        var = old(guard).split(" ", 1)[0]
        files = {"notes.txt": f"{first}{old(guard)}\n", "doc.md": f"# {head}\n## Intro\n\n{old(guard)}\n",
                 "code.py": f"# {head}def f():\n    {old(guard)}\n    return {var}\n"}
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (root / folder / name).write_bytes(text.encode("latin-1" if guard == "latin1" else "utf-8"))
    (root / "src.txt").write_text("x = 1\n")


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root and its bytes, but the engine's own files in the state folder (its audit log grows by
    every request) and its index cache."""
    return {rel: (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))
            if not (rel := p.relative_to(root).as_posix()).startswith((".state/workspaces", ".stringsh"))}


def other_client(root: Path, rel: str) -> None:
    """Another client changes the part every write of the part guard targets (line, block and symbol alike)."""
    path = root / rel
    path.write_text(path.read_text().replace("x = ", "x = 9"))


# -- the cases: what each dialect sends, per tool and guard --------------------------------------------------------


class Case(NamedTuple):
    form: str  # which form of the tool (a tool like /replace has several)
    reads: list[Any]  # this client's reads first (the part guard)
    write: Any
    touched: str | None  # the file another client changes between the reads and the write


def renamed(guard: str) -> str:
    """The name f is renamed to: in the Latin-1 file, one Latin-1 cannot hold."""
    return "f\u03a9" if guard == "latin1" else "g"


class Texts(NamedTuple):
    """A guard's targets and bodies, shared by every dialect's cases."""

    guard: str
    notes: str
    doc: str
    code: str
    line: int  # the line of notes.txt holding old()
    old: str
    new: str
    symbol: str  # f's new definition
    inserted: str  # a definition to add after f

    @classmethod
    def of(cls, guard: str) -> Texts:
        folder = GUARDS[guard][0]
        var = old(guard).split(" ", 1)[0]
        return cls(guard, folder + "notes.txt", folder + "doc.md", folder + "code.py", 2 if guard == "latin1" else 1,
                   old(guard), new(guard), f"def f():\n    {new(guard)}\n    return {var}\n",
                   f"def g():\n    {new(guard)}\n    return 0\n")

    def unified(self) -> str:
        return (f"--- a/{self.notes}\n+++ b/{self.notes}\n@@ -{self.line} +{self.line} @@\n-{self.old}\n"
                f"+{self.new}\n")

    def codex(self) -> str:
        return f"*** Begin Patch\n*** Update File: {self.notes}\n@@\n-{self.old}\n+{self.new}\n*** End Patch\n"


def cases_with(read: Callable[[str], Any]) -> Callable[[Texts, str, Any, str | None], Case]:
    """A case maker: under the part guard, this client first reads the target (`read`), then another client
    changes it."""

    def case(t: Texts, form: str, write: Any, target: str | None = None) -> Case:
        if t.guard == "part" and target is not None:
            return Case(form, [read(target)], write, target)
        return Case(form, [], write, None)

    return case


def tree_cases(t: Texts, make: Callable[..., Any]) -> dict[str, Any]:
    """The paths a tree operation is tried on: a folder made in the guard's folder, its file deleted or moved
    away, a file moved or copied into it, and (a secret: reading is the guard) its file copied out."""
    folder = GUARDS[t.guard][0]
    return {"mkdir": make("mkdir", folder + "newdir"), "delete": make("delete", t.notes),
            "move from": make("move", t.notes, "moved.txt"), "move to": make("move", "src.txt", folder + "new.txt"),
            "copy to": make("copy", "src.txt", folder + "new.txt"),
            **({"copy from": make("copy", t.notes, "copied.txt")} if t.guard == "secret" else {})}


def string_cases(tool: str, t: Texts) -> list[Case]:
    case = cases_with(lambda path: f"/open {path}")
    force = "" if t.guard == "part" else "--force "
    forms = {
        "write": [case(t, "whole", f"/write {force}{t.notes}\n{t.new}\n", t.notes)],
        "edit": [case(t, "whole", f"/edit {force}{t.notes}\n{t.new}\n", t.notes),
                 case(t, "block", f"/edit {t.doc}#intro\n{t.new}\n", t.doc),
                 case(t, "symbol", f"/edit {t.code}#f\n{t.symbol}", t.code),
                 case(t, "insert", f"/edit --after {t.code}#f\n{t.inserted}", t.code)],
        "replace": [*([] if t.guard == "part" else [case(t, "text", f"/replace {t.notes}\n{t.old}\n---\n{t.new}\n")]),
                    case(t, "lines", f"/replace {t.notes}:L{t.line}\n{t.new}\n", t.notes),
                    case(t, "block", f"/replace {t.doc}#intro\n{t.new}\n", t.doc)],
        "patch": [case(t, "unified", f"/patch\n{t.unified()}"), case(t, "codex", f"/patch\n{t.codex()}")],
        "append": [case(t, "append", f"/append {t.notes}\n{t.new}\n")],
        "rename": [case(t, "rename", f"/rename {t.code}#f {renamed(t.guard)}", t.code)],
    }
    if tool in forms:
        return forms[tool]
    lines = {"mkdir": "/mkdir {}", "delete": "/rm {}", "move": "/mv {} {}", "copy": "/cp {} {}"}
    made = tree_cases(t, lambda op, *paths: lines[op].format(*paths))
    return [case(t, form, line) for form, line in made.items() if form.split()[0] in COMMAND_OPS[tool]]


#: The tree operation each tree tool makes (`tree_cases`' forms).
COMMAND_OPS = {"mkdir": ("mkdir",), "rm": ("delete",), "mv": ("move",), "cp": ("copy",), "fs.delete": ("delete",),
               "fs.move": ("move",), "fs.rename": ("move",), "fs.copy": ("copy",), "create_directory": ("mkdir",),
               "move_file": ("move",)}


def tools_cases(tool: str, t: Texts) -> list[Case]:
    case = cases_with(lambda path: {"tool": "read", "args": {"file_path": path}})
    forms = {
        "write": [case(t, "whole", {"tool": "write", "args": {"file_path": t.notes, "content": t.new + "\n"}})],
        "edit": [case(t, "text", {"tool": "edit", "args": {"file_path": t.notes, "old_string": t.old,
                                                             "new_string": t.new}})],
        "apply_patch": [case(t, "codex", {"tool": "apply_patch", "args": {"input": t.codex()}})],
        "edit_symbol": [case(t, "symbol", {"tool": "edit_symbol", "args": {"file_path": t.code, "symbol": "f",
                                                                          "new_body": t.symbol}}),
                        case(t, "insert", {"tool": "edit_symbol", "args": {
                            "file_path": t.code, "symbol": "f", "new_body": t.inserted, "position": "after"}})],
        "rename": [case(t, "rename", {"tool": "rename", "args": {"file_path": t.code, "symbol": "f",
                                                                 "new_name": renamed(t.guard)}})],
    }
    return forms.get(tool, [])


def operator_cases(tool: str, t: Texts) -> list[Case]:
    case = cases_with(lambda path: block("version: 1", "id: r", "action: fs.read", f"path: {path}"))

    def action(name: str, path: str, *fields: str) -> str:
        return block("version: 1", "id: w", f"action: {name}", f"path: {path}", *fields)

    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": t.old, "text": t.new}]})
    forms = {
        "fs.write": [case(t, "whole", action("fs.write", t.notes, "content_b64: " + b64(t.new + "\n")))],
        "fs.applyEdits": [case(t, "text", action("fs.applyEdits", t.notes, "edits_b64: " + b64(edits)))],
        "fs.patch": [case(t, "unified", action("fs.patch", t.notes, "patch_b64: " + b64(t.unified())))],
        "fs.editSymbol": [case(t, "symbol", action("fs.editSymbol", t.code, "symbol: f",
                                                   "body_b64: " + b64(t.symbol))),
                          case(t, "insert", action("fs.editSymbol", t.code, "symbol: f", "position: after",
                                                   "body_b64: " + b64(t.inserted)))],
        "fs.renameSymbol": [case(t, "rename", action("fs.renameSymbol", t.code, "symbol: f",
                                                     f"new_name: {renamed(t.guard)}"))],
    }
    if tool in forms:
        return forms[tool]
    made = tree_cases(t, lambda op, path, *to: action(tool, path, *(f"path_to: {p}" for p in to)))
    return [case(t, form, text) for form, text in made.items() if form.split()[0] in COMMAND_OPS[tool]]


def mcp_cases(tool: str, t: Texts) -> list[Case]:
    case = cases_with(lambda path: ("open", {"target": path}))
    forms = {
        "write_file": [case(t, "whole", ("write_file", {"path": t.notes, "content": t.new + "\n"}))],
        "edit_file": [case(t, "text", ("edit_file", {"path": t.notes, "edits": [{"oldText": t.old,
                                                                                 "newText": t.new}]}))],
        "edit_block": [case(t, "block", ("edit_block", {"target": t.doc + "#intro", "body": t.new}), t.doc)],
        "replace": [*([] if t.guard == "part" else [case(t, "text", ("replace", {
                        "target": t.notes, "body": f"{t.old}\n---\n{t.new}"}))]),
                    case(t, "lines", ("replace", {"target": f"{t.notes}:L{t.line}", "body": t.new}), t.notes),
                    case(t, "block", ("replace", {"target": t.doc + "#intro", "body": t.new}), t.doc)],
        "patch": [case(t, "unified", ("patch", {"diff": t.unified()}))],
        "apply_patch": [case(t, "codex", ("apply_patch", {"input": t.codex()}))],
        "replace_symbol": [case(t, "symbol", ("replace_symbol", {"target": t.code + "#f", "body": t.symbol}),
                                t.code)],
        "insert_symbol": [case(t, "insert", ("insert_symbol", {"target": t.code + "#f", "body": t.inserted,
                                                               "position": "after"}), t.code)],
        "rename_symbol": [case(t, "rename", ("rename_symbol", {"target": t.code + "#f", "newName": renamed(t.guard)}),
                               t.code)],
    }
    if tool in forms:
        return forms[tool]
    args = {"mkdir": lambda path: {"path": path}, "move": lambda src, dst: {"source": src, "destination": dst}}
    made = tree_cases(t, lambda op, *paths: (tool, args[op](*paths)) if op in args else None)
    return [case(t, form, call) for form, call in made.items() if form.split()[0] in COMMAND_OPS[tool]]


CASES: dict[str, Callable[[str, Texts], list[Case]]] = {
    "string": string_cases, "tools": tools_cases, "operator": operator_cases, "mcp": mcp_cases}


def driven(dialect: str) -> dict[str, str]:
    """The dialect's write tools the matrix drives, each with its kind."""
    return {name: KIND[dialect][name] for name in table(dialect) if name not in NOT_DRIVEN[dialect]}


def applicable(dialect: str) -> Iterator[tuple[str, str, list[Case]]]:
    """(tool, guard, its cases) for every driven tool and every guard that applies to its kind."""
    for tool, kind in sorted(driven(dialect).items()):
        for guard in GUARDS:
            if (kind, guard) not in NOT_APPLICABLE:
                yield tool, guard, CASES[dialect](tool, Texts.of(guard))


@pytest.mark.parametrize("dialect", CASES)
def test_every_write_tool_is_known(dialect: str) -> None:
    """Each write-capable tool of the dialect's own table is driven or said not to be, with a reason."""
    unknown = table(dialect) - set(KIND[dialect]) - set(NOT_DRIVEN[dialect])
    assert not unknown, f"{dialect}: write tools the guard matrix does not know how to drive: {sorted(unknown)}"
    stale = (set(KIND[dialect]) | set(NOT_DRIVEN[dialect])) - table(dialect)
    assert not stale, f"{dialect}: tools the matrix names that the dialect's table has not (or not as writes)"


@pytest.mark.parametrize("dialect", CASES)
def test_every_guard_is_tried_or_said_not_to_apply(dialect: str) -> None:
    for tool, guard, cases in applicable(dialect):
        assert cases, f"{dialect} {tool} ({KIND[dialect][tool]}) is not tried on the {guard} guard"
        for case in cases:  # a case of the part guard reads its target first, and another client changes it
            assert (guard == "part") == bool(case.reads) == (case.touched is not None), (tool, guard, case.form)


# -- the dialects' servers -----------------------------------------------------------------------------------------


class Server:
    """One dialect's real server: `send` one request, get the code it was refused with ("ok": it was not)."""

    def __init__(self, dialect: str, root: Path) -> None:
        self.dialect = dialect
        self.closers: list[Callable[[], object]] = []
        if dialect == "string":
            from stringsh.dispatcher import Dispatcher

            self.dispatcher = Dispatcher(root)
            self.closers.append(self.dispatcher.close)
        elif dialect == "mcp":
            from tests.dialects.mcp.client import stdio_session

            session = stdio_session(root, env=dict(os.environ))
            self.client = session.__enter__()
            self.closers.append(lambda: session.__exit__(None, None, None))
        else:
            self.process = subprocess.Popen([sys.executable, "-m", "stringsh", dialect], cwd=root, text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                            env={**os.environ, "TERM": "dumb"}, start_new_session=True)
            self.closers.append(self._stop)

    def _stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)

    def close(self) -> None:
        for close in reversed(self.closers):
            close()

    def send(self, step: Any) -> str:
        if self.dialect == "string":
            lines = self.dispatcher.execute(step).text.split("\n")
            found = re.match(r"ERROR\(([A-Z_]+)\)", lines[1]) if len(lines) > 1 else None
            return found.group(1) if found else "ok"
        if self.dialect == "mcp":
            result = self.client.call(*step)
            text = result.content[0].text  # type: ignore[union-attr]
            found = re.search(r"^ERROR\(([A-Z_]+)\)", text, re.M)
            return "ok" if not result.is_error else (found.group(1) if found else text[:120])
        assert self.process.stdin is not None and self.process.stdout is not None
        if self.dialect == "tools":
            self.process.stdin.write(json.dumps({"id": 1, **step}) + "\n")
            self.process.stdin.flush()
            reply = json.loads(self.process.stdout.readline())
            return "ok" if reply["ok"] else reply["code"]
        self.process.stdin.write(step)
        self.process.stdin.flush()
        answer = list(iter(self.process.stdout.readline, "END_OPERATOR_RESULT\n"))
        fields = dict(line.rstrip("\n").split(": ", 1) for line in answer[1:] if ": " in line)
        if fields["ok"] == "true":
            return "ok"
        found = re.match(r"([A-Z][A-Z_]+): ", fields["summary"])  # every engine refusal: `CODE: message`
        return found.group(1) if found else fields["summary"][:120]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    seed(root)
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text(POLICY)  # the user's policy: a workspace's own may not allow these
    monkeypatch.setenv("STRINGSH_STATE_DIR", str(root / ".state"))
    yield root


@pytest.mark.parametrize("dialect", CASES)
def test_every_dialect_refuses_alike_and_changes_nothing(dialect: str, workspace: Path) -> None:
    server = Server(dialect, workspace)
    wrong, changed, tried = [], [], 0
    try:
        for tool, guard, cases in applicable(dialect):
            code = GUARDS[guard][1]
            for case in cases:
                for read in case.reads:
                    assert server.send(read) == "ok", (tool, guard, case.form, read)
                if case.touched is not None:
                    other_client(workspace, case.touched)
                before = snapshot(workspace)
                got = server.send(case.write)
                tried += 1
                if got != code:
                    wrong.append(f"{tool} {case.form} ({guard}): {got}, not {code}")
                if snapshot(workspace) != before:
                    changed.append(f"{tool} {case.form} ({guard})")
    finally:
        server.close()
    assert tried and wrong == [] and changed == [], "\n".join(["wrong:", *wrong, "changed:", *changed])
