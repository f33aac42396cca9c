"""The read-only OPERATOR_CMD actions (docs/operator-protocol.md, and fs.stat): exact summaries and payloads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from stringsh.dialects.operator.results import format_result, parse_results
from stringsh.protocol.operator_model import ACTIONS, Result
from stringsh.protocol.operator_spec import ACTION_DOCS, interface_spec
from stringsh.workspace import Workspace
from tests.dialects.operator.actions_support import Recorder, run


@pytest.fixture
def workspace(ws: Path) -> Workspace:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("import os\nprint(1)\n# os here\n")
    (ws / "README.md").write_text("hello\n")
    (ws / ".env").write_text("TOKEN=x\n")
    (ws / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    return Workspace(ws)


def test_get_interface_spec_is_the_generated_spec(workspace: Workspace) -> None:
    assert run(workspace, "operator.getInterfaceSpec") == Result("c1", True, "Interface spec", interface_spec())
    assert set(ACTION_DOCS) == set(ACTIONS)  # every action documented, nothing documented that does not run
    spec = interface_spec()
    assert spec.startswith("Operator Interface Specification (version: 3; stringsh)\n\nHARD RULES\n")
    for name in ACTIONS:
        assert f"\n{name}\n" in spec


def test_list_sorted_folders_marked_secrets_left_out(workspace: Workspace) -> None:
    assert run(workspace, "fs.list", path=".") == Result("c1", True, "Listed 3 entries",
                                                         "README.md\ncrlf.txt\n[DIR] src")
    assert run(workspace, "fs.list", path="src") == Result("c1", True, "Listed 1 entries", "a.py")


def test_list_of_an_empty_folder_has_no_details(workspace: Workspace, ws: Path) -> None:
    (ws / "empty").mkdir()
    assert run(workspace, "fs.list", path="empty") == Result("c1", True, "Listed 0 entries", None)


def test_list_refusals(workspace: Workspace) -> None:
    assert run(workspace, "fs.list", path="README.md") == Result("c1", False, "INVALID_TARGET: Not a directory")
    assert run(workspace, "fs.list", path="../x").summary.startswith("INVALID_PATH: ")


def test_read_whole_text_line_endings_as_lf(workspace: Workspace, ws: Path) -> None:
    assert run(workspace, "fs.read", path="src/a.py") == Result("c1", True, "Read file",
                                                                "import os\nprint(1)\n# os here\n")
    assert run(workspace, "fs.read", path="crlf.txt") == Result("c1", True, "Read file", "one\ntwo\n")
    (ws / "latin.txt").write_bytes(b"caf\xe9\r\n")  # not UTF-8: shown as Latin-1, as /open shows it
    assert run(workspace, "fs.read", path="latin.txt") == Result("c1", True, "Read file", "caf\u00e9\n")


def test_read_refusals(workspace: Workspace, ws: Path) -> None:
    assert run(workspace, "fs.read", path=".env") == Result(
        "c1", False, "SECRET_DENIED: Access to a secret file is denied: .env")
    assert run(workspace, "fs.read", path="nope.txt") == Result("c1", False, "NOT_FOUND: File not found: nope.txt",
                                                                'fs.list {"path": "."} shows what is there.')
    assert run(workspace, "fs.read", path="src") == Result("c1", False, "INVALID_TARGET: Is a directory: src",
                                                           'Use fs.list {"path": "src"}')
    (ws / "big.txt").write_text("x" * 200_001)
    assert run(workspace, "fs.read", path="big.txt") == Result(
        "c1", False, "File too large for fs.read (200001 bytes). Use fs.readSlice.")
    (ws / "bin.dat").write_bytes(b"\x00\x01\x02")
    result = run(workspace, "fs.read", path="bin.dat")
    assert not result.ok and result.summary.startswith("BINARY_FILE: ") and "\n" not in result.summary


def test_read_masks_secrets_in_text(workspace: Workspace, ws: Path) -> None:
    """Actions return the file's text; the OPERATOR_RESULT formatter masks it, before details are encoded."""
    (ws / "conf.txt").write_text("key = AKIAABCDEFGHIJKLMNOP\n")
    result = run(workspace, "fs.read", path="conf.txt")
    assert result.ok and result.details == "key = AKIAABCDEFGHIJKLMNOP\n"
    shown = parse_results(format_result(result, workspace.redact_lines))[0]
    assert shown.details == "key = ***REDACTED***\n"


def test_read_slice_defaults_and_numbering(workspace: Workspace, ws: Path) -> None:
    (ws / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 501)))
    result = run(workspace, "fs.readSlice", path="n.txt")
    assert result.summary == "Read slice (1-120)"
    assert result.details is not None
    lines = result.details.split("\n")
    assert lines[:4] == ["# n.txt", "# lines 1-120 of 500", "", "     1: line 1"]
    assert lines[-1] == "   120: line 120" and len(lines) == 123
    assert run(workspace, "fs.readSlice", path="n.txt", start="499", lines="5") == Result(
        "c1", True, "Read slice (499-500)", "# n.txt\n# lines 499-500 of 500\n\n   499: line 499\n   500: line 500")
    wide = run(workspace, "fs.readSlice", path="n.txt", start="2", lines="1000")  # above 400: read as 400
    assert wide.summary == "Read slice (2-401)"
    assert run(workspace, "fs.readSlice", path="n.txt", line="3", count="1").details == (
        "# n.txt\n# lines 3-3 of 500\n\n     3: line 3")


def test_read_slice_crlf_lines_have_no_cr(workspace: Workspace) -> None:
    assert run(workspace, "fs.readSlice", path="crlf.txt").details == (
        "# crlf.txt\n# lines 1-2 of 2\n\n     1: one\n     2: two")


@pytest.mark.parametrize(("fields", "summary"), [
    ({"start": "abc"}, "start must be a whole number of at least 1 (got 'abc')."),
    ({"start": "0"}, "start must be a whole number of at least 1 (got '0')."),
    ({"start": "-3"}, "start must be a whole number of at least 1 (got '-3')."),
    ({"lines": "1.5"}, "lines must be a whole number of at least 1 (got '1.5')."),
    ({"len": "0"}, "len must be a whole number of at least 1 (got '0')."),
    ({"start": "4"}, "start 4 is past the end of src/a.py (3 lines)."),
])
def test_read_slice_bad_numbers_refused(workspace: Workspace, fields: dict[str, str], summary: str) -> None:
    assert run(workspace, "fs.readSlice", path="src/a.py", **fields) == Result(
        "c1", False, f"Invalid OPERATOR_CMD (ERR_INVALID_READSLICE_PARAMS): {summary}")


def test_search_numbered_matches(workspace: Workspace) -> None:
    assert run(workspace, "fs.search", path="src/a.py", query=" os ") == Result(
        "c1", True, "Search found 2 matches", "# search in src/a.py\n# query: os\n# matches: 2\n\n"
        "     1: import os\n     3: # os here")


def test_search_cap_and_truncation(workspace: Workspace, ws: Path) -> None:
    (ws / "fifty.txt").write_text("hit\n" * 50)
    exact = run(workspace, "fs.search", path="fifty.txt", q="hit")
    assert exact.summary == "Search found 50 matches"
    assert exact.details is not None and exact.details.split("\n")[2] == "# matches: 50"  # not truncated: no 51st
    (ws / "many.txt").write_text("hit\n" * 51)
    more = run(workspace, "fs.search", path="many.txt", query="hit")
    assert more.summary == "Search found 50 matches"
    assert more.details is not None
    assert more.details.split("\n")[:3] == ["# search in many.txt", "# query: hit", "# matches: 50 (truncated)"]
    assert more.details.split("\n")[-1] == "    50: hit"


def test_search_refusals(workspace: Workspace) -> None:
    assert run(workspace, "fs.search", path="src/a.py", query="  ") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_MISSING_QUERY): missing query; use query: <text>.")
    assert run(workspace, "fs.search", path="src", query="x") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_SEARCH_PATH_IS_DIR): path is a directory; use fs.list.")
    assert run(workspace, "fs.search", path=".env", query="x").summary.startswith("SECRET_DENIED: ")


def test_stat_json(workspace: Workspace, ws: Path) -> None:
    st = os.stat(ws / "src" / "a.py")
    result = run(workspace, "fs.stat", path="src/a.py")
    assert result.ok and result.summary == "Stat"
    assert json.loads(result.details or "") == {"path": "src/a.py", "size": 29, "isFile": True, "isDir": False,
                                                "mtimeMs": st.st_mtime_ns / 1_000_000}
    folder = json.loads(run(workspace, "fs.stat", path="src").details or "")
    assert (folder["isFile"], folder["isDir"]) == (False, True)
    assert run(workspace, "fs.stat", path="gone") == Result("c1", False, "NOT_FOUND: No such file or folder: gone")
    assert run(workspace, "fs.stat", path=".env").summary.startswith("SECRET_DENIED: ")


def test_reads_never_ask_and_unknown_action(workspace: Workspace) -> None:
    asked = Recorder("no")
    for action in ("fs.list", "fs.stat"):
        assert run(workspace, action, asked, path=".").ok
    assert asked.requests == []
    assert run(workspace, "fs.frobnicate", path="x") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_UNKNOWN_ACTION): Unknown action: fs.frobnicate")


def test_reads_are_audited_as_operator(workspace: Workspace) -> None:
    run(workspace, "fs.read", path="README.md")
    log = b"".join(p.read_bytes() for p in workspace.state_dir.glob("audit*"))
    assert b'"operator"' in log and b"README.md" in log


def test_path_rules_hold_for_a_library_caller_too(workspace: Workspace) -> None:
    assert run(workspace, "fs.read") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_ACTION_REQUIRES_PATH): fs.* actions require path.")
    assert run(workspace, "operator.getInterfaceSpec", path="x") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_ACTION_FORBIDS_PATH): operator.* actions must not include path.")


def test_an_unexpected_failure_is_a_one_line_result_not_a_traceback(workspace: Workspace) -> None:
    def broken(_: object) -> str | None:
        raise RuntimeError("boom\nsecond line")
    from stringsh.dialects.operator.actions import run_action
    from tests.dialects.operator.actions_support import command

    result = run_action(workspace, command("fs.write", path="n.txt", content="x"), broken, topic="main")
    assert result == Result("c1", False, "INTERNAL_ERROR: RuntimeError: boom second line")
    assert not (workspace.root / "n.txt").exists()


def test_summaries_stay_one_line_for_odd_names(workspace: Workspace, ws: Path) -> None:
    (ws / "a\nb.txt").write_text("x\n")
    result = run(workspace, "fs.copy", path="README.md", path_to="a\nb.txt")
    assert result == Result("c1", False, "CONFLICT: Destination exists: a b.txt; add overwrite: true to replace it")


def test_an_outer_speaker_keeps_its_agent(workspace: Workspace) -> None:
    from stringsh.dialects.operator.actions import run_action
    from tests.dialects.operator.actions_support import command

    with workspace.request("operator", "operator", topic="main", agent="agent-x"):  # e.g. a named agent's loop
        assert run_action(workspace, command("fs.read", path="README.md"), Recorder(), topic="main").ok
    assert run_action(workspace, command("fs.stat", path="README.md"), Recorder(), topic="main", agent="agent-y").ok
    records = [json.loads(line) for p in sorted(workspace.state_dir.glob("audit.log*"))
               for line in p.read_text().splitlines() if line.strip()]
    assert [(r.get("op"), r.get("ops"), r.get("agent")) for r in records][-2:] == [
        ("operator", ["read"], "agent-x"), ("operator.fs.stat", ["stat"], "agent-y")]
