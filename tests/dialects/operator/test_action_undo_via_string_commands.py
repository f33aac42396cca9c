"""A change made by an OPERATOR_CMD action is listed by `/changes` and taken back by `/undo` of String Commands:
one engine, one journal."""

from __future__ import annotations

import re
from pathlib import Path

from stringsh.dialects.operator.actions import run_action
from stringsh.dispatcher import Dispatcher
from stringsh.protocol.operator_model import Result
from tests.dialects.operator.actions_support import Recorder, command


def test_changes_lists_and_undo_takes_back_operator_changes(dispatcher: Dispatcher, ws: Path) -> None:
    workspace = dispatcher.workspace
    assert workspace is not None
    assert run_action(workspace, command("fs.write", path="n.txt", content="hi"), Recorder(), topic="main") == Result(
        "c1", True, "Wrote file", change_id=1)
    assert run_action(workspace, command("fs.delete", path="n.txt"), Recorder(), topic="main").ok
    listing = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "TIME", dispatcher.execute("/changes").text)
    assert listing == (
        "re: /changes\nChanges, newest first (all 2 kept; /changes ID shows one, /revert ID reverts it):\n---\n"
        "2  TIME  main  fs.delete n.txt  n.txt +0 -1\n1  TIME  main  fs.write n.txt   n.txt +1 -0")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: restored n.txt (1 line)"
    assert (ws / "n.txt").read_text() == "hi"
    assert [row.frontend for row in workspace.history()] == ["string", "operator", "operator"]
