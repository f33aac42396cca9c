"""`stringsh audit verify` and `stringsh audit tail`, through the real program.

A script of every kind of operation (file ops, reads, search, shell, an action) is run with `stringsh run`; the log
must hold one record per operation with its summary and never a file's contents or a command's output. Then the
log is damaged the ways a person or a disk would (a changed field, a cut last line, lines removed at the end or in
the middle, lines swapped, a forged last record, the head file gone) and `verify` must name the first bad line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.workspace.audit import _digest
from stringsh.workspace.state import AUDIT_FILE, AUDIT_FILES, state_folder
from tests.conftest import run_stringsh

PAGE = """# Ops

```act.hello
CLI printf 'HEL%sLO\\n' -3- {who}
  who: string = "$AUDIT_TEST_TOKEN"
```
"""

SCRIPT = """/write notes.md <<EOF
# Notes

CONTENT-WRITTEN-1
EOF
/append notes.md <<EOF
CONTENT-APPENDED-2
EOF
/open notes.md
/ls
/glob *.md
/grep WRITTEN
/stat notes.md
/stat missing.md
/mkdir sub
/cp notes.md sub/copy.md
/mv sub/copy.md sub/moved.md
/rm sub/moved.md
/undo
!printf 'OUT%sPUT\\n' -1-
!cat > heredoc.txt <<'EOF'
HEREDOC-BODY-3
EOF
/exec printf 'EX%sEC\\n' -2-
/open nothere.md
/set $AUDIT_TEST_TOKEN = hush-hush-42
/open ops.md
/act.hello
"""

#: (op, engine ops, outcome, paths, command) of each record the script leaves, in order: one per request.
EXPECTED = [
    ("/write", ["write"], "ok", ["notes.md"], None),
    ("/append", ["append"], "ok", ["notes.md"], None),
    ("/open", ["read"], "ok", ["notes.md"], None),
    ("/ls", ["list_dir"], "ok", ["."], None),
    ("/glob", ["glob"], "ok", ["."], "glob *.md"),
    ("/grep", ["grep"], "ok", ["."], "grep WRITTEN"),
    ("/stat", ["stat"], "ok", ["notes.md"], None),
    ("/stat", ["stat"], "NOT_FOUND", ["missing.md"], None),
    ("/mkdir", ["mkdir"], "ok", ["sub"], None),
    ("/cp", ["copy"], "ok", ["notes.md", "sub/copy.md"], None),
    ("/mv", ["move"], "ok", ["sub/copy.md", "sub/moved.md"], None),
    ("/rm", ["delete"], "ok", ["sub/moved.md"], None),
    ("/undo", ["undo"], "ok", [], None),
    ("!", ["shell"], "ok", [], "printf 'OUT%sPUT\\n' -1-"),
    ("!", ["shell"], "ok", [], "cat > heredoc.txt <<'EOF' [+2 lines]"),
    ("/exec", ["exec"], "ok", [], "printf 'EX%sEC\\n' -2-"),
    ("/open", ["read"], "NOT_FOUND", ["nothere.md"], None),
    ("/set", [], "ok", [], None),  # a request that touches no file is recorded too; its value never is
    ("/open", ["read"], "ok", ["ops.md"], None),
    ("/act", ["action"], "ok", ["ops.md"], "act.hello: printf 'HEL%sLO\\n' -3- ••••••"),
]

#: What the script wrote, printed or kept secret: none of it may reach the log.
NEVER = ("CONTENT-WRITTEN-1", "CONTENT-APPENDED-2", "HEREDOC-BODY-3", "OUT-1-PUT", "EX-2-EC", "HEL-3-LO",
         "hush-hush-42")


def audit(ws: Path, *args: str) -> tuple[int, str, str]:
    proc = run_stringsh(["audit", *args], cwd=ws)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def logged(ws: Path) -> Path:
    """A workspace whose audit log holds the script's records; returns its state folder."""
    (ws / "ops.md").write_text(PAGE)
    (ws.parent / "script.txt").write_text(SCRIPT)
    proc = run_stringsh(["run", "--keep-going", str(ws.parent / "script.txt")], cwd=ws)
    out = proc.stdout.decode()
    assert "OUT-1-PUT" in out and "EX-2-EC" in out and "HEL-3-LO" in out
    assert (ws / "heredoc.txt").read_text() == "HEREDOC-BODY-3\n"
    return state_folder(ws)


def records(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / AUDIT_FILE).read_text().splitlines()]


def test_every_operation_is_recorded_with_its_summary_never_contents_or_output(ws: Path, logged: Path) -> None:
    found = records(logged)
    assert [(r["op"], r["ops"], r["outcome"], r["paths"], r.get("command")) for r in found] == EXPECTED
    workspace_id = logged.name
    assert {(r["workspace"], r["topic"], r["frontend"]) for r in found} == {(workspace_id, "main", "string")}
    assert all(isinstance(r["time"], float) and isinstance(r["ms"], float) for r in found)
    assert [r.get("change") for r in found if r.get("change")] == [1, 2, 3, 4, 5, 6, 7]
    log = (logged / AUDIT_FILE).read_bytes()
    assert [word for word in NEVER if word.encode() in log] == []


def test_verify_passes_with_a_one_line_summary(ws: Path, logged: Path) -> None:
    size = (logged / AUDIT_FILE).stat().st_size
    assert audit(ws, "verify") == (0, f"audit log ok: {len(EXPECTED)} records, {size} bytes, in {logged}\n", "")
    assert audit(ws.parent, "verify", "--root", str(ws))[1] == audit(ws, "verify")[1]
    assert run_stringsh(["--root", str(ws), "audit", "verify"], cwd=ws.parent).stdout.decode() == audit(ws, "verify")[1]


def test_verify_without_a_log(ws: Path) -> None:
    assert audit(ws, "verify") == (0, f"audit log ok: 0 records, 0 bytes, in {state_folder(ws)}\n", "")
    assert audit(ws, "tail") == (0, "", "")
    assert not state_folder(ws).exists()  # reading creates nothing


def test_a_missing_workspace_folder_is_status_2(tmp_path: Path) -> None:
    code, out, err = audit(tmp_path, "verify", "--root", str(tmp_path / "nope"))
    assert (code, out, err) == (2, "", f"stringsh: workspace folder not found: {tmp_path / 'nope'}\n")


def forge_last(lines: list[str]) -> list[str]:
    """Replace the newest record with a different one whose chain and hash are correct (recomputed)."""
    record = json.loads(lines[-1])
    record.pop("hash")
    record["outcome"] = "ok-forged"
    record["hash"] = _digest(str(record["prev"]), record)
    return [*lines[:-1], json.dumps(record, sort_keys=True)]


def swap(lines: list[str], first: int, second: int) -> list[str]:
    lines = list(lines)
    lines[first], lines[second] = lines[second], lines[first]
    return lines


N = len(EXPECTED)
STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
CHAIN = "chain broken (its link to the record before it does not match: a record was removed, inserted or moved)"
DAMAGE: list[tuple[str, Callable[[list[str]], list[str]], str, int, str]] = [
    ("changed-field", lambda ls: [ls[0], ls[1].replace('"ok"', '"NOT_PERMITTED"'), *ls[2:]], "", 2,
     "hash mismatch (its hash does not match its fields: the record was changed)"),
    ("changed-path", lambda ls: [*ls[:4], ls[4].replace('"."', '"src"'), *ls[5:]], "", 5,
     "hash mismatch (its hash does not match its fields: the record was changed)"),
    ("removed-middle", lambda ls: [ls[0], *ls[2:]], "", 2, CHAIN),
    ("reordered", lambda ls: swap(ls, 2, 3), "", 3, CHAIN),
    ("moved-to-the-end", lambda ls: [*ls[:5], *ls[6:], ls[5]], "", 6, CHAIN),
    ("last-line-cut-mid-record", lambda ls: [*ls[:-1], ls[-1][:40]], "cut", N,
     "truncated record (the last record is cut short)"),
    ("not-a-record", lambda ls: [*ls[:3], "hello", *ls[3:]], "", 4, "not a record (the line is not an audit record)"),
    ("last-line-removed", lambda ls: ls[:-1], "", N, "1 record(s) missing from the end (the head file remembers "
     "more records than the log holds: records were cut from its end)"),
    ("three-lines-removed-from-the-end", lambda ls: ls[:-3], "", N - 2, "3 record(s) missing from the end (the "
     "head file remembers more records than the log holds: records were cut from its end)"),
    ("everything-removed", lambda ls: [], "", 1, f"{N} record(s) missing from the end (the head file remembers "
     "more records than the log holds: records were cut from its end)"),
    ("last-record-forged", forge_last, "", N, "does not match audit.head (the newest records were replaced)"),
]


@pytest.mark.parametrize(("name", "change", "ending", "line", "why"), DAMAGE, ids=[d[0] for d in DAMAGE])
def test_a_damaged_log_fails_verify_naming_the_first_bad_line(
    ws: Path, logged: Path, name: str, change: Callable[[list[str]], list[str]], ending: str, line: int, why: str
) -> None:
    log = logged / AUDIT_FILE
    lines = change(log.read_text().splitlines())
    log.write_text("\n".join(lines) + ("\n" if lines and ending != "cut" else ""))
    verified = {"everything-removed": 0, "last-record-forged": N - 1}.get(name, line - 1)
    plural = "" if verified == 1 else "s"
    code, out, err = audit(ws, "verify")
    assert (code, out, err) == (
        1, f"audit log BROKEN: {log} line {line}: {why}; {verified} record{plural} verified before it\n", ""
    )


def test_a_missing_head_fails_verify(ws: Path, logged: Path) -> None:
    """Without the head nobody can tell whether records were cut from the end: that is a failure, not a pass."""
    (logged / AUDIT_FILES.head).unlink()
    assert audit(ws, "verify") == (
        1, f"audit log BROKEN: {logged / AUDIT_FILE} line {N + 1}: audit.head is missing or damaged (cannot tell "
        f"whether records were cut from the end); {N} records verified before it\n", "",
    )
    assert run_stringsh(["-c", "/ls"], cwd=ws).returncode == 0  # the next record writes the head again
    assert audit(ws, "verify")[0] == 0


def test_a_head_one_record_behind_is_a_crash_not_tampering(ws: Path, logged: Path) -> None:
    """A crash between writing a record and the head leaves the head one behind: verify passes, the next record
    sets it right."""
    lines = (logged / AUDIT_FILE).read_text().splitlines()
    behind = json.loads(lines[-2])["hash"]
    (logged / AUDIT_FILES.head).write_text(f"{N - 1:012d} {behind}\n")
    assert audit(ws, "verify")[0] == 0
    assert run_stringsh(["-c", "/ls"], cwd=ws).returncode == 0
    assert (logged / AUDIT_FILES.head).read_text().startswith(f"{N + 1:012d} ")
    assert audit(ws, "verify")[0] == 0


def test_tail_shows_local_time_topic_op_outcome_ms_and_summary(ws: Path, logged: Path) -> None:
    code, out, err = audit(ws, "tail", "-n", "6")
    assert (code, err) == (0, "")
    assert [re.sub(rf"^{STAMP}  (.*)  \d+\.\d ms", r"T  \1  MS", line) for line in out.splitlines()] == [
        "T  main  !  ok  MS  cat > heredoc.txt <<'EOF' [+2 lines]",
        "T  main  /exec  ok  MS  printf 'EX%sEC\\n' -2-",
        "T  main  /open  NOT_FOUND  MS  nothere.md",
        "T  main  /set  ok  MS",
        "T  main  /open  ok  MS  ops.md",
        "T  main  /act  ok  MS  ops.md · act.hello: printf 'HEL%sLO\\n' -3- ••••••",
    ]
    copy = audit(ws, "tail")[1].splitlines()
    assert len(copy) == 10
    assert re.sub(rf"^{STAMP}  (.*)  \d+\.\d ms", r"T  \1  MS", copy[0]) == (
        "T  main  /mv  ok  MS  sub/copy.md, sub/moved.md (change 5)"
    )


def test_tail_json_prints_the_records_as_stored(ws: Path, logged: Path) -> None:
    stored = (logged / AUDIT_FILE).read_text().splitlines()
    assert audit(ws, "tail", "-n", "4", "--json") == (0, "\n".join(stored[-4:]) + "\n", "")
    assert audit(ws, "tail", "--json", "-n", "100")[1] == "\n".join(stored) + "\n"
    assert audit(ws, "tail", "-n", "0") == (0, "", "")


def test_tail_marks_a_damaged_line_and_bad_counts_are_refused(ws: Path, logged: Path) -> None:
    with (logged / AUDIT_FILE).open("a") as handle:
        handle.write("garbage\n")
    assert audit(ws, "tail", "-n", "1") == (0, "(not an audit record)\n", "")
    assert audit(ws, "tail", "-n", "-2") == (2, "", "stringsh: audit tail -n needs a count of 0 or more\n")
    code, _, err = audit(ws, "tail", "-n", "many")
    assert code == 2 and "invalid int value: 'many'" in err
    code, _, err = audit(ws)
    assert code == 2 and "the following arguments are required: {verify,tail}" in err


def test_a_log_replaced_by_a_link_or_fifo_is_reported_not_followed(ws: Path, logged: Path) -> None:
    import os

    log = logged / AUDIT_FILE
    log.unlink()
    os.mkfifo(log)  # a FIFO would block a plain read forever
    assert audit(ws, "verify") == (
        1, f"audit log BROKEN: {logged / AUDIT_FILE} line 1: cannot be read (not a regular file); 0 records verified "
        "before it\n", "",
    )
    log.unlink()
    os.symlink(ws / "notes.md", log)
    assert audit(ws, "verify")[1] == (
        f"audit log BROKEN: {logged / AUDIT_FILE} line 1: cannot be read (Too many levels of symbolic links); 0 "
        "records verified before it\n"
    )


def test_a_request_refused_before_the_engine_is_recorded_by_its_first_word(ws: Path) -> None:
    """The stale-write guard, bad arguments, an unknown command: one record per request with its code, the
    arguments (which may hold a value to hide) never in it."""
    (ws / "notes.md").write_text("old\n")
    (ws.parent / "script.txt").write_text(
        "/edit notes.md <<EOF\nNEW-CONTENT\nEOF\n/frob a b\n/set $AUDIT_TEST_TOKEN hush-hush-99\n/write\n"
        "/stat missing.md\n/exec exit 4\n"
    )
    proc = run_stringsh(["run", "--keep-going", str(ws.parent / "script.txt")], cwd=ws)
    assert proc.returncode == 1
    found = [(r["op"], r["ops"], r["outcome"], r["paths"], r.get("command")) for r in records(state_folder(ws))]
    assert found == [
        ("/edit", ["read"], "CONFLICT", ["notes.md"], None),  # the guard read the file, then refused to overwrite it
        ("/frob", [], "COMMAND_UNSUPPORTED", [], None),  # an unknown command: its first word only
        ("/set", [], "INVALID_PAYLOAD", [], None),
        ("/write", [], "INVALID_PAYLOAD", [], None),
        ("/stat", ["stat"], "NOT_FOUND", ["missing.md"], None),
        ("/exec", ["exec"], "EXIT_4", [], "exit 4"),
    ]
    log = (state_folder(ws) / AUDIT_FILE).read_text()
    assert "hush-hush-99" not in log and "NEW-CONTENT" not in log
    assert (ws / "notes.md").read_text() == "old\n"
