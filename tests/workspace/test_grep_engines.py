"""grep gives identical results with ripgrep walking (or, with --stats, as prefilter of the counted walk) and with
the pure-Python engine, on a corpus with binary, non-UTF-8, oversized, CRLF, lone-CR, BOM and oddly named files,
symlinks and ignored paths. The contract: every field of the result is the same, the traversal counters included
(without --stats they are not counted by either engine: zero, with `counted` False); only `elapsed_ms` differs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.workspace import Policy, Workspace
from stringsh.workspace.ops.grep import GrepResult


def corpus(root: Path, outside: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    needle = 1  # TODO\n    return needle\n")
    (root / "src" / "deep" / "lib.py").write_text("".join(f"line {i} needle\n" for i in range(30)))
    (root / "crlf.txt").write_bytes(b"first\r\nNeedle in crlf\r\nlast needle\r\n")
    (root / "lone-cr.txt").write_bytes(b"one\rneedle after cr\rthree")
    (root / "bom8.txt").write_bytes(b"\xef\xbb\xbfneedle with bom\n")
    (root / "utf16.txt").write_bytes("needle utf16\n".encode("utf-16"))
    (root / "binary.bin").write_bytes(b"\x7fELF\x00\x00needle\x00\x01")
    (root / "binary-nomatch.bin").write_bytes(b"\x00\x01\x02")
    (root / "latin1.txt").write_bytes(b"caf\xe9 needle\n")
    (root / "latin1-nomatch.txt").write_bytes(b"caf\xe9\n")
    (root / "huge.txt").write_bytes(b"needle\n" * 40_000)  # 280,000 bytes: over the limit below
    (root / "long-line.js").write_text("var a='" + "x" * 9000 + "needle';\n")
    (root / "-dash name.txt").write_text("needle dash\n")
    (root / "new\nline.txt").write_text("needle newline name\n")
    (root / "secret.txt").write_text("token ghp_" + "a" * 36 + " needle\n")
    (root / ".env").write_text("needle=env\n")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "x.txt").write_text("needle ignored\n")
    (outside / "leak.txt").write_text("needle outside\n")
    os.symlink(outside / "leak.txt", root / "leak.txt")
    os.symlink(outside, root / "outdir")
    os.symlink("src/app.py", root / "alias.py")
    os.symlink("missing.txt", root / "dangling.txt")


QUERIES = [
    dict(query="needle"),
    dict(query="NEEDLE", ignore_case=True),
    dict(query="needle", context=2),
    dict(query="needle", max_results=7),
    dict(query="needle", max_results=31),
    dict(query="needle", glob="*.py"),
    dict(query="needle", path="src"),
    dict(query=r"ne+dle\s\w+", regex=True),
    dict(query=r"line \d+ needle", regex=True, max_results=5),
    dict(query=r"^needle", regex=True),  # anchors: Python's line model in both
    dict(query="TODO"),
    dict(query="caf"),
    dict(query="x" * 20),
    dict(query="absent"),
]


def comparable(result: GrepResult) -> tuple:
    traversal = result.traversal._replace(elapsed_ms=0)
    return (result.lines, result.matches, result.files, result.truncated, result.skipped_too_large_files,
            result.skipped_non_utf8_files, traversal, result.path, result.one_file)


@pytest.mark.needs("rg")
@pytest.mark.parametrize("request_kw", QUERIES, ids=[str(sorted(q.items())) for q in QUERIES])
def test_rg_and_python_engines_agree(tmp_path: Path, request_kw: dict) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    corpus(root, outside)
    policy = Policy.default(root)
    ws = Workspace(root, policy._replace(limits=policy.limits._replace(max_read_bytes=100_000)))
    try:
        for stats in (False, True):
            with_rg = ws.grep(engine="rg", stats=stats, **request_kw) if "^" not in request_kw["query"] else None
            python = ws.grep(engine="python", stats=stats, **request_kw)
            auto = ws.grep(stats=stats, **request_kw) if not stats else python
            assert python.engine == "python"
            assert python.traversal.counted is stats
            if with_rg is not None:
                assert with_rg.engine == "rg"
                assert comparable(with_rg) == comparable(python), stats
            assert comparable(auto) == comparable(python)
            if not stats:
                assert auto.engine == ("python" if "^" in request_kw["query"] else "rg")  # rg whenever it can
    finally:
        ws.close()


@pytest.mark.needs("rg")
def test_the_corpus_is_what_the_comparison_claims(tmp_path: Path) -> None:
    """The needle search meets every kind of file the comparison is about, and skips what it must."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    corpus(root, outside)
    policy = Policy.default(root)
    ws = Workspace(root, policy._replace(limits=policy.limits._replace(max_read_bytes=100_000)))
    try:
        result = ws.grep("needle", engine="rg")
        counted = ws.grep("needle", engine="rg", stats=True)
    finally:
        ws.close()
    paths = sorted({line.path for line in result.lines})
    assert paths == ["-dash name.txt", "bom8.txt", "crlf.txt", "lone-cr.txt", "long-line.js",
                     "new\nline.txt", "secret.txt", "src/app.py", "src/deep/lib.py", "utf16.txt"]  # no symlink
    assert [(line.line, line.text) for line in result.lines if line.path == "lone-cr.txt"] == [(2, "needle after cr")]
    assert [line.text for line in result.lines if line.path == "secret.txt"] == ["token ***REDACTED*** needle"]
    assert (result.skipped_too_large_files, result.skipped_non_utf8_files) == (0, 2)  # binary and latin1
    assert tuple(result.traversal)[:5] == (0, 0, 0, 0, 0) and not result.traversal.counted
    assert counted.lines == result.lines
    assert (counted.skipped_too_large_files, counted.skipped_non_utf8_files) == (1, 2)  # huge; binary and latin1
    assert counted.traversal.skipped_symlinks == 4  # leak.txt, outdir, alias.py, dangling.txt: none followed
    assert counted.traversal.skipped_walk_errors == 0
