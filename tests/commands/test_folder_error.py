"""A folder named where a file is needed gets one refusal everywhere: `INVALID_TARGET` "Is a directory: PATH"."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.errors import StringError, is_a_folder
from stringsh.workspace import Workspace
from stringsh.workspace.models import ChangeSet
from tests.dialects.tools.client import call


def test_the_helper() -> None:
    error = is_a_folder("d")
    assert (error.code, error.text) == ("INVALID_TARGET", "Is a directory: d\nUse /ls d")
    assert is_a_folder("d", "Use /open d").text == "Is a directory: d\nUse /open d"


@pytest.mark.parametrize(("line", "hint"), [
    ("/write d\nx\n", "Use /ls d"),
    ("/append d x", "Use /ls d"),
    ("/open d#intro", "Use /open d"),
    ("/open d:L1", "Use /open d"),
    ("/rm d", "Nothing was changed; /rm -r d deletes it and everything in it."),
])
def test_string_commands(ws: Path, dispatcher, line: str, hint: str) -> None:  # type: ignore[no-untyped-def]
    (ws / "d").mkdir()
    reply = dispatcher.execute(line)
    assert reply.text.split("\n", 1)[1] == f"ERROR(INVALID_TARGET): Is a directory: d\n{hint}"
    assert (ws / "d").is_dir() and not any((ws / "d").iterdir())


def test_engine_apply_and_read(ws: Path) -> None:
    (ws / "d").mkdir()
    workspace = Workspace(ws)
    try:
        for attempt in (lambda: workspace.apply(ChangeSet().write("d", b"x"), topic="main"),
                        lambda: workspace.read_text("d", topic="main")):
            with pytest.raises(StringError) as caught:
                attempt()
            assert (caught.value.code, caught.value.text) == ("INVALID_TARGET", "Is a directory: d\nUse /ls d")
    finally:
        workspace.close()


def test_json_tools_edit(ws: Path) -> None:
    (ws / "d").mkdir()
    reply = call(ws, "edit", {"file_path": "/workspace/d", "old_string": "a", "new_string": "b"})
    assert reply == {"id": 1, "ok": False, "code": "INVALID_TARGET", "error": "Is a directory: /workspace/d",
                     "hint": "read lists a folder; edit changes one file."}
