"""The persistent symbol index (documents/symbolstore.py, symbolindexer.py): replies byte-identical with and without
it, built in the background by a running daemon and kept fresh, rebuilt when damaged or another workspace's, never
holding a secret; on real SQLite files and the real program."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

from stringsh.dispatcher import Dispatcher
from stringsh.documents.symbolindexer import build, start_indexing, stop_indexing
from stringsh.documents.symbolstore import forget_stores, store_for
from stringsh.render.code.budget import WORK
from stringsh.workspace.state import state_folder
from tests.commands.documents import body
from tests.commands.test_symbols import make_tree
from tests.conftest import STRINGSH, run_stringsh, wait_until

TOKEN = "AKIA" + "Q7W3E5R7T9Y1U3I5"  # an AWS key id the built-in masking hides
QUERIES = ("parse", "--refs parse", "P* --max 1", "Parser.*", "--refs Parser", "zzz", "leaky", "--refs leaky")


def index_file(ws: Path) -> Path:
    return state_folder(ws) / "symbols.db"


def rows(ws: Path, sql: str) -> list[tuple]:
    """Rows of the index file as another reader sees them ([] while it does not exist or is being made)."""
    try:
        conn = sqlite3.connect(f"file:{index_file(ws)}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []


def make_secret_tree(ws: Path) -> None:
    make_tree(ws)
    (ws / "src" / "keys.py").write_text(f"KEY = '{TOKEN}'\n\n\ndef leaky():\n    return KEY\n")


def replies(ws: Path, queries: tuple[str, ...] = QUERIES) -> list[str]:
    dispatcher = Dispatcher(ws)
    try:
        return [body(dispatcher.execute(f"/symbols {query}").text) for query in queries]
    finally:
        dispatcher.close()


def test_replies_are_the_same_with_and_without_the_index(ws: Path) -> None:
    make_secret_tree(ws)
    without = replies(ws)
    assert without[0].startswith('Symbols "parse" in ./: 3 definitions in 2 files\n')
    assert not index_file(ws).exists()  # a search alone never builds it
    dispatcher = Dispatcher(ws)
    try:
        store = store_for(dispatcher.workspace)
        assert store is not None
        done = build(dispatcher.workspace, store)
        assert (done.parsed, done.finished, done.settled) == (2, True, False)  # keys.py is masked, never stored
        assert store.live() is None  # nothing was known of the folders before: not yet a walk to answer from
        done = build(dispatcher.workspace, store)
        assert (done.parsed, done.unchanged, done.settled) == (0, 2, True)
        assert store.live() is not None  # the walk a running process answers from
        answered = [body(dispatcher.execute(f"/symbols {query}").text) for query in QUERIES]
    finally:
        dispatcher.close()
    assert answered == without
    forget_stores()  # a new process: the index file alone, walked again
    assert replies(ws) == without
    assert rows(ws, "SELECT path FROM files ORDER BY path") == [("src/app.py",), ("src/lib.js",)]


def test_occurrences_carry_role_and_containing_symbol(ws: Path) -> None:
    make_tree(ws)
    expected = Dispatcher(ws)
    try:
        outline = expected.execute("/open src/app.py").text
    finally:
        expected.close()
    shutil.rmtree(ws / ".stringsh")  # the outline's signed cache: the next process knows nothing of it
    dispatcher = Dispatcher(ws)
    try:
        build(dispatcher.workspace, store_for(dispatcher.workspace))  # type: ignore[arg-type]
        parses = WORK["parses"]
        assert dispatcher.execute("/open src/app.py").text == outline  # the outline the index already holds
        assert WORK["parses"] == parses
    finally:
        dispatcher.close()
    # each row as `--refs` reports it: 1-based line and column (characters), role by scope, container, via
    assert rows(ws, "SELECT name, path, line, col, role, container, via FROM occurrence_rows WHERE name IN "
                    "('parse', 'Parser') ORDER BY path, line, col") == [
        ("Parser", "src/app.py", 1, 7, "definition", "", ""),
        ("parse", "src/app.py", 2, 9, "definition", "Parser", ""),
        ("Parser", "src/app.py", 7, 5, "use", "main", ""),
        ("parse", "src/app.py", 7, 14, "member", "main", "Parser()"),
        ("parse", "src/lib.js", 2, 17, "use", "parseAll", ""),
    ]


def test_a_running_daemon_builds_the_index_and_sees_other_processes_changes(ws: Path) -> None:
    make_secret_tree(ws)
    expected = replies(ws, ("parse", "--refs parse"))
    proc = subprocess.Popen([*STRINGSH, "daemon", "--json"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    asked = iter(range(1_000_000))

    def ask(command: str) -> str:
        ident = str(next(asked))
        proc.stdin.write((json.dumps({"id": ident, "cmd": command}) + "\n").encode())  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        reply = json.loads(proc.stdout.readline())  # type: ignore[union-attr]
        assert reply["id"] == ident
        return reply["content"].split("\n", 1)[1]

    try:
        assert [ask("/symbols parse"), ask("/symbols --refs parse")] == expected
        wait_until(lambda: rows(ws, "SELECT count(*) FROM files") == [(2,)])  # the daemon stored both files
        # another process adds a definition: the next search sees it, whatever the index holds yet
        (ws / "src" / "app.py").write_text((ws / "src" / "app.py").read_text() + "\n\ndef parse_more():\n    pass\n")
        assert ask("/symbols parse_more") == (
            'Symbols "parse_more" in ./: 1 definition in 1 file\n---\n@s1 src/app.py:L10-L11  function  #parse_more\n\n'
            "Open one: /open @s1 (or /open src/app.py#parse_more)\n"
            "1 definition in 1 file; 1 source file indexed; scanned 5 files (7 entries)")
        wait_until(lambda: rows(ws, "SELECT path FROM symbols JOIN files ON files.id = symbols.file "
                                    "WHERE name = 'parse_more'") == [("src/app.py",)])  # the changed file indexed
        (ws / "src" / "lib.js").unlink()
        assert ask("/symbols parseAll").startswith('Symbols "parseAll" in ./: none found')
        wait_until(lambda: rows(ws, "SELECT path FROM files") == [("src/app.py",)])  # the gone file was dropped
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    stored = b"".join(path.read_bytes() for path in state_folder(ws).glob("symbols.db*"))
    assert b"parse_more" in stored
    assert TOKEN.encode() not in stored and b"leaky" not in stored  # a file masking changes is never stored


def test_a_damaged_index_is_made_again_and_never_fails_a_search(ws: Path) -> None:
    make_tree(ws)
    expected = replies(ws, ("parse",))[0]
    dispatcher = Dispatcher(ws)
    try:
        build(dispatcher.workspace, store_for(dispatcher.workspace))  # type: ignore[arg-type]
    finally:
        dispatcher.close()
    forget_stores()
    assert rows(ws, "SELECT count(*) FROM files") == [(2,)]
    for suffix in ("-wal", "-shm"):
        Path(f"{index_file(ws)}{suffix}").unlink(missing_ok=True)
    index_file(ws).write_bytes(b"SQLite format 3\x00" + b"\xde\xad" * 4096)
    done = run_stringsh(["-c", "/symbols parse"], ws)
    assert (done.returncode, done.stderr.decode()) == (0, "")
    assert body(done.stdout.decode().rstrip("\n")) == expected
    assert not index_file(ws).exists()  # deleted by the search that could not read it
    dispatcher = Dispatcher(ws)
    try:
        assert build(dispatcher.workspace, store_for(dispatcher.workspace)).parsed == 2  # type: ignore[arg-type]
    finally:
        dispatcher.close()
    assert rows(ws, "SELECT value FROM meta WHERE key = 'root'") == [(str(ws.resolve()),)]  # made again
    assert rows(ws, "SELECT count(*) FROM files") == [(2,)]


def test_another_workspaces_index_is_never_used(ws: Path, tmp_path: Path) -> None:
    make_tree(ws)
    dispatcher = Dispatcher(ws)
    try:
        build(dispatcher.workspace, store_for(dispatcher.workspace))  # type: ignore[arg-type]
    finally:
        dispatcher.close()
    forget_stores()
    other = tmp_path / "other"
    shutil.copytree(ws, other)
    (other / "src" / "app.py").write_text("def parse_other():\n    pass\n")
    expected = replies(other, ("parse",))[0]
    shutil.copy(index_file(ws), index_file(other))  # the first workspace's rows, planted in the other's state
    forget_stores()
    done = run_stringsh(["-c", "/symbols parse"], other)
    assert body(done.stdout.decode().rstrip("\n")) == expected
    assert rows(other, "SELECT value FROM meta WHERE key = 'root'") == [(str(other.resolve()),)]
    assert rows(other, "SELECT count(*) FROM files") == [(0,)]


def test_the_indexer_stops_and_a_second_start_is_the_same_one(ws: Path) -> None:
    make_tree(ws)
    dispatcher = Dispatcher(ws)
    try:
        first = start_indexing(dispatcher.workspace)
        assert first is not None and start_indexing(dispatcher.workspace) is first
        wait_until(lambda: first.store.live() is not None)  # the first pass finished
        assert first.passes >= 2 and rows(ws, "SELECT count(*) FROM files") == [(2,)]
    finally:
        stop_indexing()
        dispatcher.close()
    assert first.stopped.is_set() and not first._thread.is_alive()
