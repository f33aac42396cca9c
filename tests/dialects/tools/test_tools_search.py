"""The JSON tools' `glob` and `grep` scenarios through the real `stringsh tools`."""

from __future__ import annotations

import os
from pathlib import Path

from tests.dialects.tools.client import call


def files(ws: Path, named: dict[str, str]) -> None:
    """Write the files, each one second older than the one before (glob lists newest first)."""
    for age, (rel, text) in enumerate(named.items()):
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_700_000_000 - age, 1_700_000_000 - age))


def test_find_files_by_extension(ws: Path) -> None:
    files(ws, {"src/lib/b.ts": "", "src/a.ts": "", "src/c.js": "", "other/x.ts": ""})  # b.ts newest
    assert call(ws, "glob", {"pattern": "**/*.ts", "path": "/workspace/src"}) == \
        {"id": 1, "ok": True, "result": {"matches": ["src/lib/b.ts", "src/a.ts"], "count": 2}}


def test_no_matches_found(ws: Path) -> None:
    files(ws, {"a.js": ""})
    assert call(ws, "glob", {"pattern": "**/*.rs"}) == {"id": 1, "ok": True, "result": {"matches": [], "count": 0}}


def test_glob_with_specific_directory(ws: Path) -> None:
    files(ws, {"tests/unit/b.py": "", "tests/a.py": "", "src/c.py": "", "testsuite/d.py": ""})
    assert call(ws, "glob", {"pattern": "**/*.py", "path": "/workspace/tests"}) == \
        {"id": 1, "ok": True, "result": {"matches": ["tests/unit/b.py", "tests/a.py"], "count": 2}}


def test_glob_never_lists_secrets(ws: Path) -> None:
    files(ws, {".env": "T=1\n", "a.txt": ""})
    assert call(ws, "glob", {"pattern": "**"})["result"] == {"matches": ["a.txt"], "count": 1}


def test_search_for_pattern_across_files(ws: Path) -> None:
    files(ws, {"src/a.ts": "x\n// TODO: one\n", "src/b.ts": "// TODO two\n", "src/c.ts": "done\n",
               "docs/n.md": "TODO elsewhere\n"})
    assert call(ws, "grep", {"pattern": "TODO", "path": "/workspace/src"}) == {"id": 1, "ok": True, "result": {
        "matches": [{"file_path": "src/a.ts", "line_number": 2, "line": "// TODO: one"},
                    {"file_path": "src/b.ts", "line_number": 1, "line": "// TODO two"}]}}


def test_search_with_file_type_filter(ws: Path) -> None:
    files(ws, {"src/a.ts": "import x from 'x'\n", "src/b.js": "import y from 'y'\n", "c.ts": "// import\n"})
    assert call(ws, "grep", {"pattern": "import", "path": "/workspace", "include": "*.ts"}) == {
        "id": 1, "ok": True, "result": {"matches": [
            {"file_path": "c.ts", "line_number": 1, "line": "// import"},
            {"file_path": "src/a.ts", "line_number": 1, "line": "import x from 'x'"}]}}


def test_regex_pattern_search(ws: Path) -> None:
    files(ws, {"a.js": "function  start() {}\nconst f = function () {}\nfunction stop(x) {}\n"})
    assert call(ws, "grep", {"pattern": "function\\s+\\w+"}) == {"id": 1, "ok": True, "result": {"matches": [
        {"file_path": "a.js", "line_number": 1, "line": "function  start() {}"},
        {"file_path": "a.js", "line_number": 3, "line": "function stop(x) {}"}]}}


def test_grep_no_match_is_an_empty_list(ws: Path) -> None:
    files(ws, {"a.txt": "x\n"})
    assert call(ws, "grep", {"pattern": "nothing"}) == {"id": 1, "ok": True, "result": {"matches": []}}


def test_grep_bad_regex_is_refused(ws: Path) -> None:
    reply = call(ws, "grep", {"pattern": "("})
    assert (reply["ok"], reply["code"]) == (False, "INVALID_PAYLOAD")
    assert reply["error"].startswith("Not a valid regex")


def test_grep_reads_latin1_and_cp1252_files_as_read_shows_them(ws: Path) -> None:
    """The tools' grep is the engine's: a UTF-8 pattern finds the é of a Latin-1 or cp1252 file, shown decoded."""
    (ws / "latin1.txt").write_bytes(b"un caf\xe9 cr\xe8me\n")
    (ws / "cp1252.txt").write_bytes(b"\x93Caf\xe9\x94 costs \x805\n")
    (ws / "blob.bin").write_bytes("\x00café binary\n".encode())
    assert call(ws, "grep", {"pattern": "[Cc]afé"}) == {"id": 1, "ok": True, "result": {"matches": [
        {"file_path": "cp1252.txt", "line_number": 1, "line": "“Café” costs €5"},
        {"file_path": "latin1.txt", "line_number": 1, "line": "un café crème"}]}}
