"""The audit log's summaries, its rotation (verify follows the chain across files), appends from
several processes across a rotation, and `Workspace.audited`, the record front ends wrap their own runs in (git)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.audit import SUMMARY_MAX, AuditLog, summarize_command, verify_audit
from stringsh.workspace.digest import sha256
from stringsh.workspace.redact import Redactor
from stringsh.workspace.state import AUDIT_FILES, state_folder

TOKEN = "ghp_" + "a1B2c3D4" * 5
MASK = "***REDACTED***"


@pytest.mark.parametrize(
    ("command", "summary"),
    [
        ("ls -la", "ls -la"),
        (f"curl -H 'Authorization: Bearer {TOKEN}' https://x", f"curl -H 'Authorization: Bearer {MASK}' https://x"),
        (f"git push https://{TOKEN}@github.com/o/r", f"git push https://{MASK}@github.com/o/r"),
        ("GITHUB_TOKEN=abc123 make deploy", f"GITHUB_TOKEN={MASK} make deploy"),
        ("export DB_PASSWORD='p a s s'; run", f"export DB_PASSWORD={MASK}; run"),
        ("tool --api-key k-123 --password=hunter2 -v", f"tool --api-key {MASK} --password={MASK} -v"),
        ('curl -H "X: $API_TOKEN" --token $TOKEN x', 'curl -H "X: $API_TOKEN" --token $TOKEN x'),
        ("cat > f <<'EOF'\nline one\nline two\nEOF", "cat > f <<'EOF' [+3 lines]"),
        ("echo a\necho b", "echo a [+1 line]"),
        ("x" * 400, "x" * (SUMMARY_MAX - 1) + "…"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----", f"{MASK} [+2 lines]"),
    ],
)
def test_a_command_line_is_summarized_with_secrets_masked(command: str, summary: str) -> None:
    assert summarize_command(command, Redactor([], MASK)) == summary


def test_the_policy_patterns_mask_the_summary_too() -> None:
    assert summarize_command("deploy --stage acme-internal-7", Redactor([r"acme-internal-\d+"], "[x]")) == (
        "deploy --stage [x]"
    )


def open_log(folder: Path, max_bytes: int) -> tuple[int, AuditLog]:
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    return fd, AuditLog(fd, AUDIT_FILES, max_bytes)


def fill(folder: Path, count: int, max_bytes: int) -> None:
    fd, log = open_log(folder, max_bytes)
    try:
        for i in range(count):
            log.append({"op": "write", "paths": [f"f{i}.md"], "outcome": "ok"})
    finally:
        log.close()
        os.close(fd)


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_rotation_bounds_the_log_and_verify_follows_the_chain_across_files(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    fill(folder, 60, 2000)
    log, old = folder / AUDIT_FILES.log, folder / AUDIT_FILES.old
    assert log.stat().st_size <= 2000 and old.stat().st_size <= 2000
    check = verify_audit(folder, AUDIT_FILES)
    kept = len(lines_of(old)) + len(lines_of(log))
    assert (check.ok, check.records, check.size) == (True, kept, log.stat().st_size + old.stat().st_size)
    assert kept < 60  # the oldest were dropped with the older file
    assert json.loads(lines_of(log)[0])["prev"] == json.loads(lines_of(old)[-1])["hash"]  # one chain
    newest = json.loads(lines_of(log)[-1])["hash"]
    assert (folder / AUDIT_FILES.head).read_text() == f"{len(lines_of(log)):012d} {newest}\n"


def test_damage_in_the_older_file_or_at_the_seam_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    fill(folder, 40, 2000)
    log, old = folder / AUDIT_FILES.log, folder / AUDIT_FILES.old
    saved = old.read_text()
    old_lines = saved.splitlines()
    old.write_text("\n".join([old_lines[0], old_lines[1].replace("f", "g", 1), *old_lines[2:]]) + "\n")
    check = verify_audit(folder, AUDIT_FILES)
    assert (check.ok, check.file, check.bad_line, check.reason, check.records) == (
        False, AUDIT_FILES.old, 2, "hash mismatch", 1,
    )
    old.write_text("\n".join(old_lines[:-1]) + "\n")  # the older file's end cut: the current log's first link breaks
    check = verify_audit(folder, AUDIT_FILES)
    assert (check.ok, check.file, check.bad_line, check.reason) == (False, AUDIT_FILES.log, 1, "chain broken")
    old.unlink()  # the older file removed: the current log does not start the chain
    check = verify_audit(folder, AUDIT_FILES)
    assert (check.ok, check.file, check.bad_line, check.reason) == (False, AUDIT_FILES.log, 1, "chain broken")
    old.write_text(saved)
    assert verify_audit(folder, AUDIT_FILES).ok
    log.write_text("")  # a crash right after rotating: the next record chains to the older file
    (folder / AUDIT_FILES.head).write_text("")
    fill(folder, 1, 2000)
    assert verify_audit(folder, AUDIT_FILES).ok


ODD = {"op": "write", "paths": ["é/日本.md", "tab\there", "q\"uote\\"], "outcome": "ok", "ms": 0.1 + 0.2,
       "big": 10**20, "neg": -1.5e-07, "none": None, "yes": True, "nested": {"b": [1, {"z": "\u0001"}], "a": "\u2028"}}


def test_verify_holds_every_record_to_its_canonical_text(tmp_path: Path) -> None:
    """verify's fast walk (one encoder, the scanner called straight) checks what json.dumps/json.loads checked: a
    record's hash over its canonical text, so a line rewritten in another form (spaces, escapes) with a hash over
    its own bytes is refused, and a line that is not UTF-8 is not a record."""
    from stringsh.workspace.audit import _canonical, _parsed

    assert _canonical(ODD) == json.dumps(ODD, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert _parsed(b' {"a": 1} ') == {"a": 1}  # what json.loads accepts, as it accepts it
    folder = tmp_path / "state"
    fd, log = open_log(folder, 1 << 20)
    try:
        for _ in range(3):
            log.append(dict(ODD))
    finally:
        log.close()
        os.close(fd)
    assert verify_audit(folder, AUDIT_FILES).ok
    path = folder / AUDIT_FILES.log
    good = path.read_bytes().split(b"\n")
    record = json.loads(good[1])
    stored = record.pop("hash")
    for body in (json.dumps(record, sort_keys=True, ensure_ascii=False),  # spaces after the separators
                 json.dumps(record, sort_keys=True, separators=(",", ":"))):  # \u escapes for the non-ASCII
        own = sha256((record["prev"] + body).encode()).hexdigest()  # a hash over the line's own text
        assert own != stored
        path.write_bytes(b"\n".join([good[0], (body[:-1] + f',"hash":"{own}"}}').encode(), *good[2:]]))
        check = verify_audit(folder, AUDIT_FILES)
        assert (check.ok, check.bad_line, check.reason) == (False, 2, "hash mismatch")
    path.write_bytes(b"\n".join([good[0], good[1].replace("é".encode(), b"\xe9"), *good[2:]]))
    check = verify_audit(folder, AUDIT_FILES)
    assert (check.ok, check.bad_line, check.reason) == (False, 2, "not a record")
    path.write_bytes(b"\n".join(good))
    assert verify_audit(folder, AUDIT_FILES).ok


def test_records_appended_together_are_the_bytes_of_one_append_each(tmp_path: Path) -> None:
    """`append_all` (the audit writer's, for the records that queued meanwhile) leaves the log, the older file and the
    head byte for byte as appending each record on its own does, rotating in the middle of a batch included."""
    records = [{"op": "write", "paths": [f"f{i}.md"], "outcome": "ok", "time": 1.5} for i in range(45)]
    one, together = tmp_path / "one", tmp_path / "together"
    for folder, batches in ((one, [[record] for record in records]), (together, [records[:1], records[1:30],
                                                                               records[30:]])):
        fd, log = open_log(folder, 2000)
        try:
            for batch in batches:
                log.append_all(batch)
        finally:
            log.close()
            os.close(fd)
    for name in AUDIT_FILES:
        assert (together / name).read_bytes() == (one / name).read_bytes(), name
    assert (one / AUDIT_FILES.old).exists() and verify_audit(together, AUDIT_FILES).ok


def test_the_writer_keeps_every_record_in_order_when_requests_stream_in(tmp_path: Path) -> None:
    """Records handed on while the writer gathers (GATHER_SECONDS after its last append) are all written, in the
    order handed, one chain; a flush waits for them."""
    from stringsh.workspace.auditwriter import AuditWriter

    fd, log = open_log(tmp_path / "state", 1 << 20)
    writer = AuditWriter(log, dict)  # the records as handed
    try:
        for i in range(200):
            writer.put([{"op": "/set", "paths": [], "outcome": "ok", "n": i}])
            if i % 50 == 0:
                writer.flush()
                assert json.loads(lines_of(tmp_path / "state" / AUDIT_FILES.log)[-1])["n"] == i
        writer.flush()
    finally:
        writer.close()
        log.close()
        os.close(fd)
    assert [json.loads(line)["n"] for line in lines_of(tmp_path / "state" / AUDIT_FILES.log)] == list(range(200))
    assert verify_audit(tmp_path / "state", AUDIT_FILES).ok


def test_a_record_made_after_the_reply_is_the_one_made_when_the_request_ended(tmp_path: Path) -> None:
    """A request ending inside `records_after_reply` (a front end sending its reply) has its record made later, by the
    audit writer, from what it was when it ended: the same record as one written at its end, not one changed after."""
    workspace = Workspace(tmp_path)
    try:
        for after_reply in (False, True):
            with contextlib.ExitStack() as stack:
                if after_reply:
                    stack.enter_context(workspace.records_after_reply())
                with workspace.request("string", "/set", topic="t1", command="/set a = 1", agent="bot") as ctx:
                    ctx.note("read", ["a.md", "é.md"], 7, "grep x")
                    ctx.note("apply", ["b.md"], 8, None)
                    ctx.fail("CONFLICT")
                ctx.changes.append(9)  # after its end: not the request's
                ctx.paths.append("late.md")
        workspace.state.flush_records()
    finally:
        workspace.close()
    found = [json.loads(line) for line in lines_of(state_folder(tmp_path) / AUDIT_FILES.log)]
    volatile = ("time", "ms", "prev", "hash")
    first, second = ({k: v for k, v in record.items() if k not in volatile} for record in found)
    assert first == second
    assert (first["paths"], first["changes"], first["outcome"], first["command"]) == (
        ["a.md", "é.md", "b.md"], [7, 8], "CONFLICT", "grep x")


WRITER = """
import os, sys
from pathlib import Path
from stringsh.workspace.audit import AuditLog
from stringsh.workspace.state import AUDIT_FILES
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
log = AuditLog(fd, AUDIT_FILES, 3000)
for i in range(150):
    log.append({"op": "write", "paths": [sys.argv[2] + str(i)], "outcome": "ok"})
"""


def test_processes_appending_across_rotations_keep_one_chain(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(folder), name], env=env) for name in "ab"]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    check = verify_audit(folder, AUDIT_FILES)
    assert check.ok, check
    assert (folder / AUDIT_FILES.log).stat().st_size <= 3000
    newest = [json.loads(line)["paths"][0] for line in lines_of(folder / AUDIT_FILES.log)]
    assert newest[-1] in ("a149", "b149")  # the last writer's last record ends the chain


def test_workspace_audited_records_what_a_front_end_runs(tmp_path: Path) -> None:
    """The wrapper for front ends' own runs (e.g. `/git`): op, paths, topic, masked command, outcome, never the
    error's message (it may quote a file)."""
    workspace = Workspace(tmp_path)
    try:
        with workspace.audited("git", ["src/a.py"], topic="t1", command=f"git push https://{TOKEN}@h/r") as note:
            note.outcome = "EXIT_1"
        with pytest.raises(StringError), workspace.audited("git", topic="t1", command="git status"):
            raise StringError("CONFLICT", "line 3 holds SECRET-FILE-TEXT")
        with workspace.audited("git", command="git log -n 1"):
            pass
    finally:
        workspace.close()
    log = state_folder(tmp_path) / AUDIT_FILES.log
    found = [json.loads(line) for line in lines_of(log)]
    assert [(r["op"], r["paths"], r["topic"], r["command"], r["outcome"]) for r in found] == [
        ("git", ["src/a.py"], "t1", f"git push https://{MASK}@h/r", "EXIT_1"),
        ("git", [], "t1", "git status", "CONFLICT"),
        ("git", [], "-", "git log -n 1", "ok"),
    ]
    assert {r["workspace"] for r in found} == {state_folder(tmp_path).name}
    assert TOKEN not in log.read_text() and "SECRET-FILE-TEXT" not in log.read_text()
    assert verify_audit(state_folder(tmp_path), AUDIT_FILES).ok
