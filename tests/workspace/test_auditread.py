"""The audit log read by position (workspace/auditread.py, what `stringsh web` follows): new records after a place,
across a rotation without losing or repeating one; a record still being appended left for the next read; older
records a page at a time across both files, filtered, and a read-back budget that ends a page early with a place to
go on from."""

from __future__ import annotations

import json
import os
from pathlib import Path

from stringsh.workspace.audit import AuditLog
from stringsh.workspace.auditread import before, end, kept, since
from stringsh.workspace.statefolder import AUDIT_FILES


def opened(folder: Path, max_bytes: int = 8 * 1024 * 1024) -> AuditLog:
    return AuditLog(os.open(folder, os.O_RDONLY | os.O_DIRECTORY), AUDIT_FILES, max_bytes)


def numbers(lines: list[str]) -> list[int]:
    return [json.loads(line)["n"] for line in lines]


def test_since_returns_what_was_written_after_a_place_across_a_rotation(tmp_path: Path) -> None:
    log = opened(tmp_path, max_bytes=1000)
    for n in range(3):
        log.append({"n": n})
    spot = end(tmp_path, AUDIT_FILES)
    assert since(tmp_path, AUDIT_FILES, spot) == ([], spot)
    got: list[int] = []
    for n in range(3, 30):  # about 150 bytes a record: the log rotates several times on the way
        log.append({"n": n})
        if n % 4 == 0:  # read now and then, never after every append
            entries, spot = since(tmp_path, AUDIT_FILES, spot)
            got += numbers([entry.line for entry in entries])
    entries, spot = since(tmp_path, AUDIT_FILES, spot)
    got += numbers([entry.line for entry in entries])
    assert got == list(range(3, 30))
    assert (tmp_path / "audit.log.1").exists()


def test_a_record_being_appended_waits_for_its_newline(tmp_path: Path) -> None:
    (tmp_path / "audit.log").write_bytes(b'{"n": 0}\n{"n": 1')
    spot = end(tmp_path, AUDIT_FILES)
    assert spot.offset == len(b'{"n": 0}\n')
    assert since(tmp_path, AUDIT_FILES, spot) == ([], spot)
    with open(tmp_path / "audit.log", "ab") as handle:
        handle.write(b'}\n{"n": 2}\n')
    entries, after = since(tmp_path, AUDIT_FILES, spot)
    whole = len(b'{"n": 0}\n{"n": 1}\n{"n": 2}\n')
    assert (numbers([entry.line for entry in entries]), after.offset) == ([1, 2], whole)
    assert [entry.spot.offset for entry in entries] == [9, 18]


def test_before_pages_back_through_both_files_newest_first(tmp_path: Path) -> None:
    log = opened(tmp_path, max_bytes=2000)
    for n in range(25):
        log.append({"n": n, "who": "even" if n % 2 == 0 else "odd"})
    assert (tmp_path / "audit.log.1").exists()  # rotated: the older file holds the first records
    seen: list[int] = []
    spot = None
    while True:
        entries, spot = before(tmp_path, AUDIT_FILES, spot, 4, bool)
        seen += numbers([entry.line for entry in entries])
        if spot is None:
            break
    older = sum(1 for line in (tmp_path / "audit.log.1").read_text().splitlines() if line)
    assert seen == list(range(24, 24 - len(seen), -1))
    assert len(seen) == older + sum(1 for line in (tmp_path / "audit.log").read_text().splitlines() if line)
    odd, _ = before(tmp_path, AUDIT_FILES, None, 3, lambda line: '"odd"' in line)
    assert numbers([entry.line for entry in odd]) == [23, 21, 19]


def test_a_filter_that_matches_little_ends_the_page_at_its_budget(tmp_path: Path) -> None:
    log = opened(tmp_path)
    for n in range(400):
        log.append({"n": n, "pad": "x" * 200})
    entries, spot = before(tmp_path, AUDIT_FILES, None, 10, lambda line: '"n":0,' in line, budget=64 * 1024)
    assert entries == [] and spot is not None and spot.offset > 0
    found: list[int] = []
    while spot is not None and not found:
        entries, spot = before(tmp_path, AUDIT_FILES, spot, 10, lambda line: '"n":0,' in line, budget=64 * 1024)
        found = numbers([entry.line for entry in entries])
    assert found == [0]


def test_a_place_is_kept_until_its_file_is_rotated_out(tmp_path: Path) -> None:
    log = opened(tmp_path, max_bytes=1000)
    for n in range(5):
        log.append({"n": n})
    entries, _ = before(tmp_path, AUDIT_FILES, None, 2, bool)
    place = entries[-1].spot
    assert kept(tmp_path, AUDIT_FILES, place)
    assert not kept(tmp_path, AUDIT_FILES, place._replace(offset=place.offset + 1))  # no record starts there
    assert before(tmp_path, AUDIT_FILES, place._replace(offset=place.offset + 1), 2, bool) == ([], None)
    n = 5
    while not (tmp_path / "audit.log.1").exists():  # one rotation: the place is in the older file now
        log.append({"n": n})
        n += 1
    assert kept(tmp_path, AUDIT_FILES, place)
    assert numbers([entry.line for entry in before(tmp_path, AUDIT_FILES, place, 9, bool)[0]]) == [2, 1, 0]
    rotated = (tmp_path / "audit.log").stat().st_ino
    while (tmp_path / "audit.log.1").stat().st_ino != rotated:  # a second: the file it was in is gone
        log.append({"n": n})
        n += 1
    assert not kept(tmp_path, AUDIT_FILES, place)
