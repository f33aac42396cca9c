"""grep gives identical results with ripgrep walking (or, with --stats, as prefilter of the counted walk) and with
the pure-Python engine, on a corpus with binary, Latin-1, cp1252, damaged UTF-8, oversized, CRLF, lone-CR, BOM and
oddly named files, symlinks and ignored paths. The contract: every field of the result is the same, the traversal
counters included (without --stats they are not counted by either engine: zero, with `counted` False); only
`elapsed_ms` differs."""

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
    (root / "cp1252.txt").write_bytes(b"\x93Caf\xe9\x94 \x80 5 needle\n")  # smart quotes and euro: cp1252
    (root / "latin1-c1.txt").write_bytes(b"x\x85y \x8acaf\xe9 needle\x81\n")  # 0x81: not cp1252, so C1 controls
    (root / "damaged.txt").write_bytes("café needle ".encode() + b"\xff\n")  # parts UTF-8: shown as Latin-1
    (root / "binary-latin1.bin").write_bytes(b"\x00caf\xe9 needle\n")
    (root / "folds.txt").write_bytes(b"\xb5\xe9 \xff \xe9needle\n")  # micro sign, é, ÿ: Latin-1
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


ENCODED = ("cp1252.txt", "damaged.txt", "latin1-c1.txt", "latin1.txt")

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
    dict(query="café"),
    dict(query="CAFÉ", ignore_case=True),
    dict(query="“Café”"),
    dict(query="€ 5"),
    dict(query="x\x85y"),
    dict(query="cafÃ©"),  # the damaged file's UTF-8 read as Latin-1, as /open shows it
    dict(query=r"caf\w\b", regex=True),
    dict(query=r"\w+é", regex=True),
    dict(query=r"x\sy", regex=True),
    dict(query=r"[\W\d]caf", regex=True, ignore_case=True),
    dict(query="ΜÉ", ignore_case=True),  # Greek capital mu: its case folding holds the micro sign
    dict(query="Ÿ", ignore_case=True),  # cp1252's 0x9F, whose lower case is Latin-1's 0xFF
    dict(query=r"\Bneedle", regex=True),
    dict(query="x" * 20),
    dict(query="absent"),
    dict(query=r"token [*A-Z]+ needle", regex=True),  # matches the masked text only; no literal meets the mask
    dict(query=r"REDACTED\*+ needle", regex=True),  # the same, through a literal of the mask itself
    dict(query=r"token \w+ needle", regex=True),  # cannot meet the mask: rg is not told the secrets' literals
    dict(query=r"token \S+ needle", regex=True),  # consumes the mask's `*`: rg names every file with a secret
]


@pytest.mark.parametrize("query", [r"token [*A-Z]+ needle", r"REDACTED\*+ needle", r"to\w+ [*A-Z]+ needle"])
def test_a_regex_that_matches_only_the_masked_text_is_found(tmp_path: Path, query: str) -> None:
    """The Python engine rules a file out by its raw bytes lacking a required literal only where masking cannot
    give it one: `token ` and ` needle` cannot meet a mask, so a file without them is skipped undecoded, while
    `REDACTED` is the mask's own text, found only after masking."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "secret.txt").write_text("token ghp_" + "a" * 36 + " needle\n")
    (root / "plain.txt").write_text("token needle\nREDACTED needle\n")
    ws = Workspace(root)
    try:
        result = ws.grep(query, regex=True, engine="python")
    finally:
        ws.close()
    assert [(line.path, line.line, line.text) for line in result.lines] == [
        ("secret.txt", 1, "token ***REDACTED*** needle")]


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
    assert paths == ["-dash name.txt", "bom8.txt", "cp1252.txt", "crlf.txt", "damaged.txt", "folds.txt",
                     "latin1-c1.txt", "latin1.txt", "lone-cr.txt", "long-line.js", "new\nline.txt", "secret.txt",
                     "src/app.py", "src/deep/lib.py", "utf16.txt"]  # no symlink
    assert [(line.line, line.text) for line in result.lines if line.path == "lone-cr.txt"] == [(2, "needle after cr")]
    assert [line.text for line in result.lines if line.path == "secret.txt"] == ["token ***REDACTED*** needle"]
    assert [(line.path, line.text) for line in result.lines if line.path in ENCODED] == [
        ("cp1252.txt", "“Café” € 5 needle"), ("damaged.txt", "cafÃ© needle ÿ"),
        ("latin1-c1.txt", "x\x85y \x8acafé needle\x81"), ("latin1.txt", "café needle")]  # as /open shows them
    assert (result.skipped_too_large_files, result.skipped_non_utf8_files) == (0, 2)  # the two binary files
    assert tuple(result.traversal)[:5] == (0, 0, 0, 0, 0) and not result.traversal.counted
    assert counted.lines == result.lines
    assert (counted.skipped_too_large_files, counted.skipped_non_utf8_files) == (1, 2)  # huge; the binary files
    assert counted.traversal.skipped_symlinks == 4  # leak.txt, outdir, alias.py, dangling.txt: none followed
    assert counted.traversal.skipped_walk_errors == 0


@pytest.mark.needs("rg")
@pytest.mark.parametrize("engine", ["rg", "python"])
@pytest.mark.parametrize("stats", [False, True])
def test_each_engine_reads_every_encoding_as_open_does(tmp_path: Path, engine: str, stats: bool) -> None:
    """Latin-1, cp1252 (curly quotes, euro), UTF-8 with a BOM and UTF-16: searched and shown as /open decodes them
    (textio.decode_or_legacy), by a UTF-8 query and a regex; only the binary file is skipped and counted."""
    (tmp_path / "latin1.txt").write_bytes(b"un caf\xe9 cr\xe8me\n")
    (tmp_path / "cp1252.txt").write_bytes(b"\x93Caf\xe9\x94 costs \x805\n")
    (tmp_path / "bom.txt").write_bytes("\ufeffcafé with a BOM\n".encode())
    (tmp_path / "utf16.txt").write_bytes("café in UTF-16\n".encode("utf-16"))
    (tmp_path / "blob.bin").write_bytes("\x00café binary\n".encode())
    ws = Workspace(tmp_path, Policy.default(tmp_path))
    try:
        for query, regex, expected in [
            ("café", False, [("bom.txt", "café with a BOM"), ("latin1.txt", "un café crème"),
                             ("utf16.txt", "café in UTF-16")]),
            ("“Café” costs €", False, [("cp1252.txt", "“Café” costs €5")]),
            (r"[Cc]af\w\W", True, [("bom.txt", "café with a BOM"), ("cp1252.txt", "“Café” costs €5"),
                                   ("latin1.txt", "un café crème"), ("utf16.txt", "café in UTF-16")]),
        ]:
            result = ws.grep(query, regex=regex, engine=engine, stats=stats)
            assert result.engine == engine
            assert [(line.path, line.line, line.text) for line in result.lines] == [
                (path, 1, text) for path, text in expected]
            assert result.skipped_non_utf8_files == (0 if query.startswith("“") else 1)  # blob.bin holds café
    finally:
        ws.close()
