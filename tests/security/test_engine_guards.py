"""The engine's guards hold in every dialect: a read shows a secret masked, and writing that text back
through any dialect's whole-file write (`/write`, JSON tools `write`, MCP `write_file`, OPERATOR_CMD `fs.write`)
is refused inside the engine with the same INVALID_PAYLOAD, the token left on disk; and a state folder inside the
workspace (STRINGSH_STATE_DIR=$WS/.state) is refused to every change, like `.stringsh/` and `.git/`, so
`stringsh audit verify` still says the chain is intact. Each dialect is the real program."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.operator_support import allow_changes, b64, block, result, run

TOKEN = "ghp_" + "Zq8Lr3Vx7Tn2Wm5Kp9Hd4Jf6Bc1Ys0Ga3Ue8"
SECRET = f'tok = "{TOKEN}"\n'.encode()
MASKED = 'tok = "***REDACTED***"\n'
REFUSAL = ("Refusing to write conf.py: the body contains ***REDACTED*** where the file holds a secret; "
           "nothing was written.")
HINT = ("stringsh shows secrets masked. Rewrite those lines in full with their real text, or edit that part outside "
        "stringsh.")


@pytest.fixture
def conf(ws: Path) -> Path:
    (ws / "conf.py").write_bytes(SECRET)
    return ws / "conf.py"


def test_string_write_refuses_the_mask_over_a_secret(ws: Path, conf: Path) -> None:
    shown = run_stringsh(["-c", "/open conf.py"], cwd=ws).stdout.decode()
    assert MASKED.strip() in shown and TOKEN not in shown
    out = run_stringsh(["-c", f"/write --force conf.py\n{MASKED}"], cwd=ws).stdout.decode()
    assert out == f"re: /write --force conf.py\nERROR(INVALID_PAYLOAD): {REFUSAL}\n{HINT}\n"
    assert conf.read_bytes() == SECRET


def test_json_tools_write_refuses_the_mask_over_a_secret(ws: Path, conf: Path) -> None:
    requests = [{"id": 1, "tool": "read", "args": {"file_path": "conf.py"}},
                {"id": 2, "tool": "write", "args": {"file_path": "conf.py", "content": MASKED}}]
    done = run_stringsh(["tools"], cwd=ws, stdin="".join(json.dumps(r) + "\n" for r in requests))
    read, write = (json.loads(line) for line in done.stdout.decode().splitlines())
    assert read["result"]["content"] == "1: " + MASKED.rstrip("\n")
    assert write == {"id": 2, "ok": False, "code": "INVALID_PAYLOAD", "error": REFUSAL, "hint": HINT}
    assert conf.read_bytes() == SECRET


def test_operator_fs_write_refuses_the_mask_over_a_secret(ws: Path, conf: Path) -> None:
    allow_changes()
    blocks = (block("version: 1", "id: r", "action: fs.read", "path: conf.py")
              + block("version: 1", "id: w", "action: fs.write", "path: conf.py", "content_b64: " + b64(MASKED)))
    out = run(["operator"], ws, blocks).stdout.decode()
    assert out == result("r", True, "Read file", MASKED) + result("w", False, f"INVALID_PAYLOAD: {REFUSAL}")
    assert conf.read_bytes() == SECRET


def test_mcp_write_file_refuses_the_mask_over_a_secret(ws: Path, conf: Path) -> None:
    with stdio_session(ws, env=dict(os.environ)) as client:
        assert client.text("read_text_file", {"path": "conf.py"}) == MASKED
        error = client.error("write_file", {"path": "conf.py", "content": MASKED})
    assert "INVALID_PAYLOAD" in error and REFUSAL in error, error
    assert conf.read_bytes() == SECRET


def test_a_state_folder_inside_the_workspace_is_refused_to_every_change(ws: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRINGSH_STATE_DIR", str(ws / ".state"))
    env = None
    (ws / "a.txt").write_text("a\n")
    assert run_stringsh(["-c", "/write --force a.txt\nb\n"], cwd=ws, env=env).returncode == 0
    folder = next((ws / ".state" / "workspaces").iterdir())
    key = folder.name
    before = {p: p.read_bytes() for p in sorted((ws / ".state").rglob("*")) if p.is_file()}
    assert {p.name for p in before} >= {"audit.log", "audit.head", "journal.db"}
    inside = f".state/workspaces/{key}"
    refusal = ("ERROR(NOT_PERMITTED): {shown} is in stringsh's state folder and cannot be changed through stringsh\n"
               "stringsh keeps its journal and audit log there; /changes, /undo and `stringsh audit` reach them. "
               "Use a path outside it.\n")
    for line, shown in ((f"/write --force {inside}/audit.log\nforged\n", f"{inside}/audit.log"),
                        (f"/append {inside}/audit.log\nforged\n", f"{inside}/audit.log"),
                        (f"/rm {inside}/journal.db", f"{inside}/journal.db"),
                        (f"/rm {inside}/audit.head", f"{inside}/audit.head"),
                        ("/rm -r .state", ".state"),
                        (f"/mv {inside}/audit.log a2.txt", f"{inside}/audit.log"),
                        (f"/mv a.txt {inside}/a.txt", f"{inside}/a.txt"),
                        (f"/cp a.txt {inside}/a.txt", f"{inside}/a.txt"),
                        (f"/mkdir {inside}/new", f"{inside}/new")):
        out = run_stringsh(["-c", line], cwd=ws, env=env).stdout.decode()
        assert out == f"re: {line.splitlines()[0]}\n" + refusal.format(shown=shown), out
    # the other dialects say the same code
    requests = [{"id": 1, "tool": "write", "args": {"file_path": f"{inside}/audit.log", "content": "forged\n"}}]
    done = run_stringsh(["tools"], cwd=ws, stdin=json.dumps(requests[0]) + "\n", env=env)
    assert json.loads(done.stdout)["code"] == "NOT_PERMITTED"
    allow_changes()
    out = run(["operator"], ws, block("version: 1", "id: d", "action: fs.delete", f"path: {inside}/journal.db"))
    assert out.stdout.decode().startswith("OPERATOR_RESULT\nid: d\nok: false\nsummary: NOT_PERMITTED: "), out
    after = {p: p.read_bytes() for p in sorted((ws / ".state").rglob("*")) if p.is_file()}
    for path, data in before.items():  # the audit log grew by its own records only; the journal is the same file
        assert path in after and (path.name.startswith("audit") or after[path] == data), path
    verify = run_stringsh(["audit", "verify"], cwd=ws, env=env)
    assert verify.returncode == 0 and b"BROKEN" not in verify.stdout, verify.stdout.decode()


def test_a_change_set_of_whole_files_refuses_the_mask_over_a_secret(ws: Path, conf: Path) -> None:
    """The library's change sets (and a page action's `to:` file, which writes through them) hold the same check."""
    from stringsh.errors import StringError
    from stringsh.workspace import ChangeSet, FileChange, Workspace

    workspace = Workspace(ws)
    try:
        with pytest.raises(StringError) as caught:
            workspace.apply(ChangeSet([FileChange("other.txt", b"fine\n"), FileChange("conf.py", MASKED.encode())]))
        assert (caught.value.code, caught.value.message, caught.value.hint) == ("INVALID_PAYLOAD", REFUSAL, HINT)
        workspace.apply(ChangeSet([FileChange("conf.py", SECRET + b"x = 1\n")]))  # the real text is written
    finally:
        workspace.close()
    assert conf.read_bytes() == SECRET + b"x = 1\n" and not (ws / "other.txt").exists()
