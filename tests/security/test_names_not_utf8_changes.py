"""Changes touching names that are not UTF-8, through the real programs: a folder holding `caf\\xe9.txt`, a folder
`in\\xe9ner` and a link `l\\xe9nk` (bytes names, made with `os.fsencode`d paths or by a shell command) is moved,
deleted and copied as one change set, recorded in the journal (such a path is kept as its bytes), listed and shown
by `/changes` and undone byte for byte; every reply and refusal shows each such name escaped, as every listing does
(`escapes.shown_name`: `"box/caf\\xe9.txt"`; a JSON field `escapes.json_name`), and is valid UTF-8. A path a request
names is still refused when it is not UTF-8 (nothing can type it back)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from stringsh.protocol.operator_model import Result
from stringsh.workspace import Workspace
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.actions_support import Recorder, run
from tests.dialects.tools.client import steady, tools

#: What a name holds: a file's bytes, None for a folder, or ("link", target) for a link.
Entry = bytes | tuple[str, bytes] | None
#: The bytes names of the tree.
TREE: dict[bytes, Entry] = {
    b"box": None, b"box/in\xe9ner": None, b"box/caf\xe9.txt": b"hi\n", b"box/in\xe9ner/x.txt": b"x\n",
    b"box/fine.txt": b"fine\n", b"box/l\xe9nk": ("link", b"caf\xe9.txt")}


def make(root: Path) -> None:
    base = os.fsencode(root)
    for name, what in TREE.items():
        path = base + b"/" + name
        if what is None:
            os.mkdir(path)
        elif isinstance(what, tuple):
            os.symlink(what[1], path)
        else:
            with open(path, "wb") as f:
                f.write(what)


def tree(root: Path) -> dict[bytes, Entry]:
    """What is on disk under root (engine state left out), as TREE spells it."""
    found: dict[bytes, Entry] = {}
    base = os.fsencode(root)
    for folder, dirs, files in os.walk(base):
        rel = folder[len(base) + 1:]
        if rel.split(b"/")[0] == b".stringsh":
            continue
        for name in dirs + files:
            path = os.path.join(folder, name)
            key = os.path.join(rel, name) if rel else name
            if key == b".stringsh":
                continue
            if os.path.islink(path):
                found[key] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                found[key] = None
            else:
                with open(path, "rb") as f:
                    found[key] = f.read()
    return found


def moved(to: bytes) -> dict[bytes, Entry]:
    return {to + name[3:]: what for name, what in TREE.items()}


@pytest.fixture
def box(ws: Path) -> Path:
    make(ws)
    return ws


def replies(ws: Path, script: str) -> list[str]:
    """`stringsh run --keep-going` of `script`: each reply (valid UTF-8: no raw byte of a name), times as TIME."""
    (ws.parent / "script.txt").write_text(script)
    out = run_stringsh(["run", "--keep-going", str(ws.parent / "script.txt")], ws).stdout.decode("utf-8")
    out = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "TIME", out)
    return out.rstrip("\n").removeprefix("re: ").split("\nre: ")


MOVE_UNDONE = (
    'Undo: put back folder box; put back folder "box/in\\xe9ner"; put back link "box/l\\xe9nk" → "caf\\xe9.txt"; '
    'restored "box/caf\\xe9.txt" (1 line); deleted "box3/caf\\xe9.txt" (was newly created); restored box/fine.txt '
    '(1 line); deleted box3/fine.txt (was newly created); restored "box/in\\xe9ner/x.txt" (1 line); deleted '
    '"box3/in\\xe9ner/x.txt" (was newly created); removed link "box3/l\\xe9nk"; removed folder "box3/in\\xe9ner"; '
    "removed folder box3")
DELETE_UNDONE = (
    'Undo: put back folder box; put back folder "box/in\\xe9ner"; put back link "box/l\\xe9nk" → "caf\\xe9.txt"; '
    'restored "box/caf\\xe9.txt" (1 line); restored box/fine.txt (1 line); restored "box/in\\xe9ner/x.txt" (1 line)')
DELETED = ('link "box/l\\xe9nk" removed, "box/caf\\xe9.txt" +0 -1, box/fine.txt +0 -1, "box/in\\xe9ner/x.txt" +0 -1, '
           '"box/in\\xe9ner"/ removed, box/ removed')


def test_string_commands_move_delete_list_and_undo_a_folder_holding_them(box: Path) -> None:
    got = replies(box, "/mv box box3\n/undo\n/rm -r box\n/changes\n/changes 3\n/undo\n")
    assert got[:3] == ["/mv box box3\nMoved: box → box3 (folder, 3 files)", f"/undo\n{MOVE_UNDONE}",
                       "/rm -r box\nDeleted: box (folder, 3 files, 2 folders)"]
    assert got[3].split("\n")[:3] == [
        "/changes", "Changes, newest first (all 3 kept; /changes ID shows one, /revert ID reverts it):", "---"]
    assert got[3].split("\n")[3] == f"3  TIME  main  /rm -r box    {DELETED}"
    assert got[4] == (
        "/changes 3\nChange 3, TIME, topic main: /rm -r box\n---\n"
        'link "box/l\\xe9nk" → "caf\\xe9.txt" removed\nfolder "box/in\\xe9ner"/ removed\nfolder box/ removed\n'
        '--- "a/box/caf\\xe9.txt"\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\n'
        "--- a/box/fine.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-fine\n"
        '--- "a/box/in\\xe9ner/x.txt"\n+++ /dev/null\n@@ -1 +0,0 @@\n-x')
    assert got[5] == f"/undo\n{DELETE_UNDONE}"
    assert tree(box) == TREE  # byte for byte, names, modes of links and folders as they were


def test_a_name_a_shell_command_made_is_moved_and_its_undo_refused_by_name(box: Path) -> None:
    got = replies(box, "!touch \"box/$(printf 'n\\xe9w')\"\n/mv box box4\n!touch \"box4/$(printf 'x\\xe9')\"\n"
                       "/undo\n!rm \"box4/$(printf 'x\\xe9')\"\n/undo\n")
    assert got[1] == "/mv box box4\nMoved: box → box4 (folder, 4 files)"
    assert got[3] == (
        '/undo\nERROR(CONFLICT): Refusing to undo: "box4/x\\xe9" was added since change 1, and the folder box4 would '
        "have to go.\nNothing was changed; move it aside, then undo again, or /undo --skip to go on to older "
        "changes.")
    assert got[5].startswith('/undo\nUndo: put back folder box; put back folder "box/in\\xe9ner"; ')
    assert tree(box) == {**TREE, b"box/n\xe9w": b""}


def test_refusals_show_the_names_escaped_and_change_nothing(box: Path) -> None:
    os.makedirs(os.fsencode(box) + b"/sec/d\xe9r")
    (box / "sec" / "plain.txt").write_text("p\n")
    with open(os.fsencode(box) + b"/sec/d\xe9r/.env", "wb") as f:
        f.write(b"TOKEN=1\n")
    before = tree(box)
    denied = ('ERROR(SECRET_DENIED): Access to a secret file is denied: "sec/d\\xe9r/.env"\n'
              "The policy's secret deny list covers this path.")
    assert replies(box, "/rm -r sec\n/mv sec sec2\n") == [f"/rm -r sec\n{denied}", f"/mv sec sec2\n{denied}"]
    assert tree(box) == before


def test_daemon_json_replies_are_the_same_text(box: Path) -> None:
    requests = ["/mv box box3", "/undo", "/rm -r box", "/undo"]
    lines = "".join(json.dumps({"id": n, "cmd": cmd}) + "\n" for n, cmd in enumerate(requests))
    done = run_stringsh(["daemon", "--json"], box, stdin=lines)
    got = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [(reply["ok"], reply["content"]) for reply in got] == [
        (True, "re: [0] /mv box box3\nMoved: box → box3 (folder, 3 files)"), (True, f"re: [1] /undo\n{MOVE_UNDONE}"),
        (True, "re: [2] /rm -r box\nDeleted: box (folder, 3 files, 2 folders)"),
        (True, f"re: [3] /undo\n{DELETE_UNDONE}")]
    assert tree(box) == TREE


def test_mcp_moves_lists_and_undoes(box: Path) -> None:
    with stdio_session(box, name="names-changes") as client:
        assert client.text("move_file", {"source": "box", "destination": "box3"}) == (
            "Successfully moved box to box3 (change 1, undoable)")
        assert tree(box) == moved(b"box3")
        listed = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "TIME", client.text("changes", {}))
        assert re.sub(r"mcp-names-changes-\w+", "CLIENT", listed).split("\n")[3] == (
            '1  TIME  CLIENT  move_file box box3  box3/ made, "box3/in\\xe9ner"/ made, link "box3/l\\xe9nk" made, '
            'link "box/l\\xe9nk" removed, "box/caf\\xe9.txt" +0 -1, "box3/caf\\xe9.txt" +1 -0, box/fine.txt +0 -1, '
            '"box/in\\xe9ner"/ removed, box/ removed, and 3 more files')
        assert client.text("undo", {}) == f"re: /undo\n{MOVE_UNDONE}\nChange 2, undoable."
        assert client.text("string", {"request": "/rm -r box"}) == (
            "re: /rm -r box\nDeleted: box (folder, 3 files, 2 folders)")
        assert client.text("undo", {}) == f"re: /undo\n{DELETE_UNDONE}\nChange 4, undoable."
    assert tree(box) == TREE


def test_a_path_sent_raw_is_still_refused(box: Path) -> None:
    """A JSON client can spell a byte that is not UTF-8 as `\\udce9`: a request naming such a path is refused, as
    before; only the names the engine finds itself are reached."""
    lines = "".join(json.dumps({"id": n, "cmd": cmd}) + "\n" for n, cmd in enumerate(
        ["/rm box/caf\udce9.txt", "/mv box/caf\udce9.txt x.txt"]))
    done = run_stringsh(["daemon", "--json"], box, stdin=lines)
    refused = ('ERROR(INVALID_PATH): Path is not valid UTF-8: "box/caf\\xe9.txt"\nstringsh reaches only names that '
               'are UTF-8; this one is shown escaped, "box/caf\\xe9.txt", and that form cannot be typed back. Rename '
               "it in the shell: !mv $'box/caf\\xe9.txt' NEW_NAME")
    got = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [(reply["code"], reply["content"].split("\n", 1)[1]) for reply in got] == [("INVALID_PATH", refused)] * 2
    assert tree(box) == TREE


def test_json_tools_list_and_revert_with_the_names_as_json_fields(box: Path) -> None:
    """A change made by another front end (String Commands), listed and reverted by the JSON tools."""
    assert replies(box, "/rm -r box\n") == ["/rm -r box\nDeleted: box (folder, 3 files, 2 folders)"]
    listed, reverted = (steady(reply) for reply in tools(
        box, {"id": 1, "tool": "changes", "args": {}}, {"id": 2, "tool": "revert", "args": {"id": 1}}))
    change = listed["result"]["changes"][0]
    assert (change["files"], change["tree"]) == (
        [{"file_path": '"box/caf\\xe9.txt"', "lines": "+0 -1"}, {"file_path": "box/fine.txt", "lines": "+0 -1"},
         {"file_path": '"box/in\\xe9ner/x.txt"', "lines": "+0 -1"}],
        [{"path": '"box/l\\xe9nk"', "kind": "link", "action": "remove"},
         {"path": '"box/in\\xe9ner"', "kind": "dir", "action": "remove"},
         {"path": "box", "kind": "dir", "action": "remove"}])
    assert reverted["result"]["files"] == [
        {"file_path": '"box/caf\\xe9.txt"', "action": "restored", "lines": 1},
        {"file_path": "box/fine.txt", "action": "restored", "lines": 1},
        {"file_path": '"box/in\\xe9ner/x.txt"', "action": "restored", "lines": 1}]
    assert reverted["result"]["summary"] == DELETE_UNDONE.removeprefix("Undo: ")
    assert tree(box) == TREE


def test_operator_cmd_confirms_with_the_names_escaped_and_undo_restores(box: Path) -> None:
    workspace = Workspace(box)
    try:
        asked = Recorder()
        assert run(workspace, "fs.copy", asked, path="box", path_to="copy") == Result("c1", False, (
            'INVALID_TARGET: box holds "box/l\\xe9nk", a symlink; fs.copy copies folders of plain files and folders '
            "only"))
        os.unlink(os.fsencode(box) + b"/box/l\xe9nk")
        assert run(workspace, "fs.copy", asked, path="box", path_to="copy") == Result("c1", True, "Copied",
                                                                                    change_id=1)
        assert run(workspace, "fs.delete", asked, path="box") == Result("c1", True, "Deleted", change_id=2)
        assert [(r.summary, r.diff) for r in asked.requests] == [
            ("copy folder box to copy (3 files)",
             'new file: "copy/caf\\xe9.txt"\nnew file: copy/fine.txt\nnew file: "copy/in\\xe9ner/x.txt"'),
            ("delete folder box and everything in it",
             'deleted: "box/caf\\xe9.txt"\ndeleted: box/fine.txt\ndeleted: "box/in\\xe9ner"/\n'
             'deleted: "box/in\\xe9ner/x.txt"')]
        workspace.undo("main")
        workspace.undo("main")
    finally:
        workspace.close()
    assert tree(box) == {name: what for name, what in TREE.items() if name != b"box/l\xe9nk"}
