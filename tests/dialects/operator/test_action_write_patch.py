"""fs.write and fs.patch: confirmed with the diff of what changes, written through the engine as one change set."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.protocol.operator_model import ConfirmRequest, Result
from stringsh.workspace import Workspace
from tests.dialects.operator.actions_support import Recorder, run, snapshot


@pytest.fixture
def workspace(ws: Path) -> Workspace:
    (ws / "a.txt").write_text("one\ntwo\nthree\n")
    (ws / "crlf.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    return Workspace(ws)


def test_write_creates_with_parents_asks_first(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    assert run(workspace, "fs.write", asked, path="new/deep/n.txt", content_b64="x\ny\n") == Result(
        "c1", True, "Wrote file", change_id=1)
    assert (ws / "new" / "deep" / "n.txt").read_bytes() == b"x\ny\n"
    assert asked.requests == [ConfirmRequest("fs.write", "new/deep/n.txt", "create new/deep/n.txt (2 lines)",
                                             "--- /dev/null\n+++ b/new/deep/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y")]
    rows = workspace.history()
    assert len(rows) == 1 and rows[0].frontend == "operator" and rows[0].topic == "main"


def test_write_overwrites_single_line_content_diff_shown(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    assert run(workspace, "fs.write", asked, path="a.txt", content="solo").ok
    assert (ws / "a.txt").read_bytes() == b"solo"
    assert asked.requests[0].summary == "overwrite a.txt (1 lines)"
    assert asked.requests[0].diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1 @@\n-one\n-two\n-three\n+solo"


def test_write_keeps_crlf_and_bom_and_undo_restores(workspace: Workspace, ws: Path) -> None:
    before = (ws / "crlf.txt").read_bytes()
    assert run(workspace, "fs.write", path="crlf.txt", content_b64="alpha\nbeta\n").ok
    assert (ws / "crlf.txt").read_bytes() == b"\xef\xbb\xbfalpha\r\nbeta\r\n"
    workspace.undo("main")
    assert (ws / "crlf.txt").read_bytes() == before


def test_write_refusals_write_nothing(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    assert run(workspace, "fs.write", path="x.txt") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_MISSING_WRITE_CONTENT): fs.write requires content or content_b64.")
    assert run(workspace, "fs.write", path="x.txt", content="a\nb") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_CONTENT_HAS_NEWLINES): content contains newline; use content_b64.")
    assert run(workspace, "fs.write", path=".env", content="T=1") == Result(
        "c1", False, "SECRET_DENIED: Access to a secret file is denied: .env")
    assert run(workspace, "fs.write", path="../out.txt", content="x").summary.startswith("INVALID_PATH: ")
    assert run(workspace, "fs.write", path="stringsh.toml", content="x").summary.startswith("NOT_PERMITTED: ")
    assert snapshot(ws) == before and workspace.history() == []


PATCH = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"


def test_patch_applies_one_change_set(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    assert run(workspace, "fs.patch", asked, path="a.txt", patch_b64=PATCH) == Result("c1", True, "Patched file",
                                                                                              change_id=1)
    assert (ws / "a.txt").read_text() == "one\nTWO\nthree\n"
    assert asked.requests == [ConfirmRequest("fs.patch", "a.txt", "patch a.txt (+1 -1 lines)",
                                             "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three")]
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert (ws / "a.txt").read_text() == "one\ntwo\nthree\n"


def test_patch_bare_hunks_as_upstream(workspace: Workspace, ws: Path) -> None:
    assert run(workspace, "fs.patch", path="a.txt", patch_b64="@@ -3 +3 @@\n-three\n+3\n").ok
    assert (ws / "a.txt").read_text() == "one\ntwo\n3\n"


def test_patch_keeps_crlf_and_bom(workspace: Workspace, ws: Path) -> None:
    diff = "--- a/crlf.txt\r\n+++ b/crlf.txt\r\n@@ -2 +2,2 @@\r\n-two\r\n+2\r\n+2.5\r\n"
    assert run(workspace, "fs.patch", path="crlf.txt", patch_b64=diff).ok
    assert (ws / "crlf.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n2.5\r\nthree\r\n"


def test_patch_mismatch_refused_before_asking(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    result = run(workspace, "fs.patch", asked, path="a.txt", patch_b64="@@ -2 +2 @@\n-TWO\n+2\n")
    assert result == Result("c1", False, "Patch failed: PATCH_FAILED: Hunk 1 of a.txt (@@ -2,1 +2,1 @@) does not "
                            "match line 2: expected 'TWO', the file holds 'two'. Nothing was written.",
                            "Read a.txt line 2 again and redo the hunk.")  # the hint, in OPERATOR_CMD's words
    assert asked.requests == [] and (ws / "a.txt").read_text() == "one\ntwo\nthree\n"


def test_patch_of_another_file_or_several_refused(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    other = PATCH.replace("a.txt", "b.txt")
    assert run(workspace, "fs.patch", path="a.txt", patch_b64=other) == Result(
        "c1", False, "Patch failed: the diff changes b.txt, not a.txt; nothing was written.")
    both = PATCH + "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1 +1 @@\n-one\n+1\n"
    assert run(workspace, "fs.patch", path="a.txt", patch_b64=both) == Result(
        "c1", False, "Patch failed: the diff changes 2 files (a.txt, crlf.txt); fs.patch takes a diff of a.txt alone.")
    assert run(workspace, "fs.patch", path="a.txt", patch_b64="not a diff") == Result(
        "c1", False, "Patch failed: INVALID_PAYLOAD: The body holds no unified diff (no '--- a/path' / '+++ b/path' "
        "lines).")
    assert run(workspace, "fs.patch", path="a.txt") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_MISSING_PATCH_B64): patch_b64 is required.")
    assert snapshot(ws) == before and workspace.history() == []


def test_patch_creates_a_new_file(workspace: Workspace, ws: Path) -> None:
    diff = "--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    assert run(workspace, "fs.patch", path="made.txt", patch_b64=diff).ok
    assert (ws / "made.txt").read_text() == "a\nb\n"
