"""Shell spool files under `.stringsh/spool/` can be read (a reply names them); nothing else of the state can."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace

NAME = "bash-20260101T000000-abc123.txt"


@pytest.fixture
def spooled(ws: Path) -> Path:
    spool = ws / ".stringsh" / "spool"
    spool.mkdir(parents=True)
    (spool / NAME).write_text("line 1\nline 2\n")
    return spool


def test_spool_file_reads_through_the_engine(ws: Path, spooled: Path) -> None:
    engine = Workspace(ws)
    assert engine.read_text(f".stringsh/spool/{NAME}").text == "line 1\nline 2\n"
    assert engine.read_bytes(str(spooled / NAME)) == b"line 1\nline 2\n"
    info = engine.stat(f".stringsh/spool/{NAME}")
    assert info is not None and info.size == 14
    assert engine.stat(".stringsh/spool/missing.txt") is None


@pytest.mark.parametrize(
    "path",
    [
        ".stringsh/journal.db",
        ".stringsh/spool",
        ".stringsh/spool/",
        ".stringsh/spool/sub/x.txt",
        ".stringsh/spool/.hidden",
        ".stringsh/audit.log",
    ],
)
def test_the_rest_of_the_state_stays_unreadable(ws: Path, spooled: Path, path: str) -> None:
    (spooled / "sub").mkdir()
    (spooled / "sub" / "x.txt").write_text("x")
    (spooled / ".hidden").write_text("x")
    with pytest.raises(StringError) as err:
        Workspace(ws).read_text(path)
    assert err.value.code == "NOT_PERMITTED"


def test_spool_files_cannot_be_written_or_listed(ws: Path, spooled: Path) -> None:
    engine = Workspace(ws)
    for attempt in (
        lambda: engine.write_text(f".stringsh/spool/{NAME}", "x"),
        lambda: engine.write_text(".stringsh/spool/new.txt", "x"),
        lambda: engine.list_dir(".stringsh/spool"),
    ):
        with pytest.raises(StringError) as err:
            attempt()
        assert err.value.code == "NOT_PERMITTED"
    assert (spooled / NAME).read_text() == "line 1\nline 2\n"
    assert not (spooled / "new.txt").exists()


def test_a_spool_symlink_to_other_state_is_refused(ws: Path, spooled: Path) -> None:
    (ws / ".stringsh" / "journal.db").write_bytes(b"SQLite")
    os.symlink("../journal.db", spooled / "link.txt")
    with pytest.raises(StringError) as err:
        Workspace(ws).read_text(".stringsh/spool/link.txt")
    assert err.value.code == "NOT_PERMITTED"


def test_open_a_spool_file_named_by_a_reply(ws: Path, spooled: Path, dispatcher) -> None:
    absolute = dispatcher.execute(f"/open {shlex.quote(f'{ws.resolve()}/.stringsh/spool/{NAME}')}")
    assert absolute.text.split("\n", 1)[1] == f"Opened .stringsh/spool/{NAME}\n---\nline 1\nline 2"
    assert dispatcher.execute(f"/open .stringsh/spool/{NAME}").ok
    assert dispatcher.execute("/ls .stringsh/spool").code == "NOT_PERMITTED"
