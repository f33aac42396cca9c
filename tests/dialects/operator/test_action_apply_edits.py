"""fs.applyEdits: each op, each refusal (nothing written, bytes unchanged), CRLF/BOM kept, one change set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stringsh.protocol.operator_model import ConfirmRequest, Result
from stringsh.workspace import Workspace
from tests.dialects.operator.actions_support import Recorder, run

TEXT = "alpha\nbeta\ngamma\nbeta\n"


@pytest.fixture
def workspace(ws: Path) -> Workspace:
    (ws / "f.txt").write_text(TEXT)
    return Workspace(ws)


def edits(*items: dict[str, Any]) -> str:
    return json.dumps({"version": 1, "edits": list(items)})


@pytest.mark.parametrize(("edit", "after"), [
    ({"op": "insertAfter", "anchor": "alpha", "text": "A2"}, "alpha\nA2\nbeta\ngamma\nbeta\n"),
    ({"op": "insertAfter", "anchor": "beta", "text": "\nB2", "occurrence": 2}, "alpha\nbeta\ngamma\nbeta\nB2\n"),
    ({"op": "insertAfter", "anchor": "alp", "text": "-"}, "alp-ha\nbeta\ngamma\nbeta\n"),
    ({"op": "insertBefore", "anchor": "gamma", "text": "G0\n"}, "alpha\nbeta\nG0\ngamma\nbeta\n"),
    ({"op": "insertBefore", "anchor": "beta", "text": "<", "occurrence": 2}, "alpha\nbeta\ngamma\n<beta\n"),
    ({"op": "replaceFirst", "find": "gamma", "text": "GAMMA"}, "alpha\nbeta\nGAMMA\nbeta\n"),
    ({"op": "replaceAll", "find": "beta", "text": "B"}, "alpha\nB\ngamma\nB\n"),
    ({"op": "replaceRange", "startLine": 2, "endLine": 3, "text": "two\nthree"}, "alpha\ntwo\nthree\nbeta\n"),
    ({"op": "replaceRange", "startLine": 4, "endLine": 4, "text": "last\n"}, "alpha\nbeta\ngamma\nlast\n"),
    ({"op": "replaceRange", "startLine": 1, "endLine": 2, "text": ""}, "gamma\nbeta\n"),
])
def test_each_op(workspace: Workspace, ws: Path, edit: dict[str, Any], after: str) -> None:
    asked = Recorder()
    assert run(workspace, "fs.applyEdits", asked, path="f.txt", edits_b64=edits(edit)) == Result(
        "c1", True, "Applied edits", change_id=1)
    assert (ws / "f.txt").read_text() == after
    assert len(asked.requests) == 1 and asked.requests[0].summary == "apply 1 edit to f.txt"
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert (ws / "f.txt").read_text() == TEXT


def test_edits_run_in_order_on_the_evolving_text_and_diff_is_shown(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    payload = edits({"op": "replaceFirst", "find": "gamma", "text": "delta"},
                    {"op": "insertAfter", "anchor": "delta", "text": "epsilon"})
    assert run(workspace, "fs.applyEdits", asked, path="f.txt", edits_b64=payload).ok
    assert (ws / "f.txt").read_text() == "alpha\nbeta\ndelta\nepsilon\nbeta\n"
    assert asked.requests == [ConfirmRequest(
        "fs.applyEdits", "f.txt", "apply 2 edits to f.txt",
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,5 @@\n alpha\n beta\n-gamma\n+delta\n+epsilon\n beta")]


def test_crlf_and_bom_kept(ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    workspace = Workspace(ws)
    payload = edits({"op": "insertAfter", "anchor": "one", "text": "one.5"},
                    {"op": "replaceRange", "startLine": 3, "endLine": 3, "text": "2"})
    assert run(workspace, "fs.applyEdits", path="w.txt", edits_b64=payload).ok
    assert (ws / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\none.5\r\n2\r\n"


def test_no_change_writes_nothing(workspace: Workspace) -> None:
    asked = Recorder()
    payload = edits({"op": "replaceAll", "find": "beta", "text": "beta"})
    assert run(workspace, "fs.applyEdits", asked, path="f.txt", edits_b64=payload) == Result(
        "c1", True, "Applied edits (no change)")
    assert asked.requests == [] and workspace.history() == []


FAILED = "ApplyEdits failed: "
INVALID = "Invalid OPERATOR_CMD (ERR_INVALID_EDITS_JSON): "
GOOD = {"op": "replaceAll", "find": "alpha", "text": "A"}


@pytest.mark.parametrize(("payload", "summary"), [
    ("{not json", INVALID + "edits_b64 is not valid JSON."),
    ("[1]", INVALID + 'edits_b64 must be a JSON object {"version":1,"edits":[...]}.'),
    ('{"version":2,"edits":[]}', INVALID + "version must be 1 (got 2)."),
    ('{"version":true,"edits":[]}', INVALID + "version must be 1 (got true)."),
    ('{"version":1,"edits":[]}', INVALID + "edits must be a non-empty array of edit objects."),
    ('{"version":1,"edits":{}}', INVALID + "edits must be a non-empty array of edit objects."),
    ('{"version":1,"edits":[],"x":1}', INVALID + "unknown field 'x' (expected version and edits)."),
    (edits(GOOD, "str"), FAILED + "Edit 1: must be a JSON object"),
    (edits(GOOD, {"op": "deleteAll"}), FAILED + 'Edit 1: unknown op "deleteAll" (expected one of insertAfter, '
     "insertBefore, replaceFirst, replaceAll, replaceRange)"),
    (edits({"find": "a", "text": "b"}), FAILED + "Edit 0: unknown op null (expected one of insertAfter, "
     "insertBefore, replaceFirst, replaceAll, replaceRange)"),
    (edits({"op": "insertAfter", "anchor": "a"}), FAILED + "Edit 0: insertAfter needs text"),
    (edits({"op": "insertAfter", "anchor": "a", "text": "b", "find": "c"}),
     FAILED + "Edit 0: unknown field 'find' for insertAfter"),
    (edits({"op": "insertAfter", "anchor": "", "text": "b"}), FAILED + "Edit 0: anchor must not be empty"),
    (edits({"op": "insertBefore", "anchor": 3, "text": "b"}), FAILED + "Edit 0: anchor must be a string (got 3)"),
    (edits({"op": "insertAfter", "anchor": "a", "text": None}), FAILED + "Edit 0: text must be a string (got null)"),
    (edits({"op": "insertAfter", "anchor": "a", "text": "b", "occurrence": 0}),
     FAILED + "Edit 0: occurrence must be a whole number >= 1 (got 0)"),
    (edits({"op": "insertAfter", "anchor": "a", "text": "b", "occurrence": 1.5}),
     FAILED + "Edit 0: occurrence must be a whole number >= 1 (got 1.5)"),
    (edits({"op": "insertAfter", "anchor": "a", "text": "b", "occurrence": True}),
     FAILED + "Edit 0: occurrence must be a whole number >= 1 (got true)"),
    (edits({"op": "replaceRange", "startLine": "1", "endLine": 2, "text": ""}),
     FAILED + 'Edit 0: startLine must be a whole number >= 1 (got "1")'),
    (edits({"op": "replaceRange", "startLine": 3, "endLine": 2, "text": ""}),
     FAILED + "Edit 0: endLine 2 is before startLine 3"),
    (edits(GOOD, {"op": "insertAfter", "anchor": "zeta", "text": "x"}), FAILED + "Edit 1: anchor not found"),
    (edits({"op": "insertBefore", "anchor": "beta", "text": "x", "occurrence": 3}),
     FAILED + "Edit 0: anchor occurs 2 times, not 3"),
    (edits(GOOD, {"op": "replaceFirst", "find": "beta", "text": "x"}),
     FAILED + "Edit 1: find occurs 2 times; replaceFirst needs exactly one match (give more context, or use "
     "replaceAll)"),
    (edits({"op": "replaceFirst", "find": "zeta", "text": "x"}), FAILED + "Edit 0: find not found"),
    (edits(GOOD, {"op": "replaceAll", "find": "alpha", "text": "x"}), FAILED + "Edit 1: find not found"),
    (edits({"op": "replaceRange", "startLine": 4, "endLine": 5, "text": ""}),
     FAILED + "Edit 0: lines 4-5 are outside the file (4 lines)"),
])
def test_failures_write_nothing(workspace: Workspace, ws: Path, payload: str, summary: str) -> None:
    asked = Recorder()
    assert run(workspace, "fs.applyEdits", asked, path="f.txt", edits_b64=payload) == Result("c1", False, summary)
    assert (ws / "f.txt").read_bytes() == TEXT.encode()
    assert asked.requests == [] and workspace.history() == []


def test_missing_payload_and_file(workspace: Workspace) -> None:
    assert run(workspace, "fs.applyEdits", path="f.txt") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_MISSING_EDITS_B64): edits_b64 is required.")
    assert run(workspace, "fs.applyEdits", path="no.txt", edits_b64=edits(GOOD)) == Result(
        "c1", False, "NOT_FOUND: File not found: no.txt",
        'Did you mean f.txt? fs.list {"path": "."} shows what is there.')


def test_a_file_changed_after_the_read_gets_the_edits_again_under_the_lock(workspace: Workspace, ws: Path) -> None:
    """Each find is its own precondition: a change elsewhere keeps both; a find gone is refused, nothing written;
    a list with a replaceRange (line numbers of the file as read) keeps the whole-file guard."""
    from stringsh.dialects.operator.actions import run_action
    from tests.dialects.operator.actions_support import command

    def meddle_with(text: str) -> Callable[[ConfirmRequest], None]:
        def meddle(_: ConfirmRequest) -> None:
            (ws / "f.txt").write_text(text)  # another client, between the read and the write
        return meddle

    def apply(*items: dict[str, Any], text: str) -> Result:
        return run_action(workspace, command("fs.applyEdits", path="f.txt", edits_b64=edits(*items)),
                          meddle_with(text), topic="main")

    assert apply(GOOD, text=TEXT + "delta\n") == Result("c1", True, "Applied edits", change_id=1)
    assert (ws / "f.txt").read_text() == "A\nbeta\ngamma\nbeta\ndelta\n"
    assert apply({"op": "replaceFirst", "find": "gamma", "text": "G"}, text="someone else\n") == Result(
        "c1", False, "ApplyEdits failed: Edit 0: find not found")
    assert (ws / "f.txt").read_text() == "someone else\n"
    ranged = {"op": "replaceRange", "startLine": 1, "endLine": 1, "text": "first"}
    assert apply(ranged, text="someone else again\n") == Result(
        "c1", False, "CONFLICT: f.txt changed since it was read; nothing was written.")
    assert (ws / "f.txt").read_text() == "someone else again\n"


def test_mixed_line_endings_kept_byte_for_byte(ws: Path) -> None:
    (ws / "m.txt").write_bytes(b"a\r\nb\nc\r\n")
    workspace = Workspace(ws)
    assert run(workspace, "fs.applyEdits", path="m.txt",
               edits_b64=edits({"op": "insertAfter", "anchor": "b", "text": "X"})).ok
    assert (ws / "m.txt").read_bytes() == b"a\r\nb\nX\nc\r\n"


def test_utf16_file_keeps_its_encoding(ws: Path) -> None:
    (ws / "u.txt").write_bytes("one\ntwo\n".encode("utf-16"))
    workspace = Workspace(ws)
    assert run(workspace, "fs.applyEdits", path="u.txt",
               edits_b64=edits({"op": "replaceFirst", "find": "two", "text": "zwei"})).ok
    assert (ws / "u.txt").read_bytes() == "one\nzwei\n".encode("utf-16")
