"""/symbols with and without the grep prefilter give the same answers: the same confinement (a symlink out of the
root, a canary beside it), secrets, .gitignore and walk counts; in-process, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

import stringsh.documents.symbolsearch as search
from stringsh.workspace import Workspace

QUERIES = [("parse", False), ("Parser.parse", False), ("P*", False), ("parse", True), ("zzz", False),
           ("résumé", False), ("PARSE", False)]


def make_tree(ws: Path) -> None:
    (ws / "src" / "deep").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("class Parser:\n    def parse(self, text):\n        return text\n\n\n"
                                       "def main():\n    Parser().parse('a')\n")
    (ws / "src" / "lib.js").write_text("export function parseAll(xs) {\n  return xs.map(parse);\n}\n")
    (ws / "src" / "deep" / "r.py").write_text("def résumé():\n    pass\n")
    for k in range(12):  # files that never hold the names
        (ws / "src" / "deep" / f"f{k}.go").write_text(f"package p\n\nfunc f{k}() int {{ return {k} }}\n")
    (ws / "src" / "notes.txt").write_text("def parse(): pass\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "gen.py").write_text("def parse(): pass\n")
    (ws / ".env").write_text("def parse(): pass\n")
    (ws.parent / "canary.py").write_text("def parse(): pass\n")
    (ws / "src" / "out.py").symlink_to(ws.parent / "canary.py")


def answer(root: Path, query: str, refs: bool, path: str) -> tuple[object, ...]:
    workspace = Workspace(root)
    try:
        found = search.search(workspace, query, [path], refs=refs)
    finally:
        workspace.close()
    return ([(h.path, h.symbol.id) for h in found.hits], found.refs, found.files, found.indexed, found.truncated,
            found.traversal and found.traversal._replace(elapsed_ms=0))


@pytest.mark.needs("rg")
def test_prefilter_gives_the_answers_of_the_whole_walk(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(ws)
    for query, refs in QUERIES:
        for path in (".", "src"):
            monkeypatch.setattr(search, "REMEMBERED", search.Remembered())
            monkeypatch.setattr(search, "ABSENT", search.Absent())
            monkeypatch.setattr(search, "PREFILTER_AFTER", 10**9)
            whole = answer(ws, query, refs, path)
            monkeypatch.setattr(search, "REMEMBERED", search.Remembered())
            monkeypatch.setattr(search, "PREFILTER_AFTER", 1)
            assert answer(ws, query, refs, path) == whole, (query, refs, path)
            assert answer(ws, query, refs, path) == whole, (query, refs, path)  # again, from what it remembered
    absent = search.ABSENT.of(b"parse")
    assert {key[0] for key in absent} >= {"src/deep/f0.go", "src/deep/r.py"}  # grep answered, the walk skipped them
    assert not {key[0] for key in absent} & {"src/app.py", "src/lib.js"}
    # a file that now holds the name is read again, whatever grep said of it before
    (ws / "src" / "deep" / "f0.go").write_text("package p\n\nfunc parse() int { return 0 }\n")
    assert ("src/deep/f0.go", "parse") in answer(ws, "parse", False, ".")[0]
