"""glob and grep engine operations: the file-operation contracts, counters and limits, exactly."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Policy, Workspace
from stringsh.workspace.ops.walk import Traversal, WalkStats, open_found, start_at, walk


def traversal(files: int, entries: int, walk_errors: int = 0, io_errors: int = 0, symlinks: int = 0,
              reason: str | None = None) -> tuple:
    return (files, entries, walk_errors, io_errors, symlinks, reason is not None, reason)


UNCOUNTED = traversal(0, 0)  # without stats=True: no counter is reported, whichever engine walked


def counters(t: Traversal) -> tuple:
    return tuple(t)[:7]


@contextmanager
def opened(root: Path, **limits: int) -> Iterator[Workspace]:
    policy = Policy.default(root)
    workspace = Workspace(root, policy._replace(limits=policy.limits._replace(**limits)))
    try:
        yield workspace
    finally:
        workspace.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """src/{a.py, b.txt, deep/c.py}, a file link inside, a folder link inside, links out, a dangling link."""
    root = tmp_path / "root"
    (root / "src" / "deep").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "leak.py").write_text("needle outside\n")
    (root / "src" / "a.py").write_text("one\nneedle two\n")
    (root / "src" / "b.txt").write_text("needle\n")
    (root / "src" / "deep" / "c.py").write_text("x = 'needle'\n")
    os.symlink("a.py", root / "src" / "alias.py")
    os.symlink("deep", root / "src" / "deeplink")
    os.symlink(tmp_path / "outside" / "leak.py", root / "src" / "out.py")
    os.symlink(tmp_path / "outside", root / "src" / "outdir")
    os.symlink("gone.py", root / "src" / "dangling.py")
    for name in ("a.py", "b.txt", "deep/c.py"):  # one time: glob's order is then by path
        os.utime(root / "src" / name, ns=(10**18, 10**18))
    return root


def test_glob_never_follows_a_link_and_counts_them_with_stats(tree: Path) -> None:
    with opened(tree) as ws:
        result = ws.glob("**/*.py")
        counted = ws.glob("**/*.py", stats=True)
    assert [m.rel for m in result.matches] == [m.rel for m in counted.matches] == ["src/a.py", "src/deep/c.py"]
    assert (result.truncated, result.total) == (False, 2)
    assert counters(result.traversal) == UNCOUNTED and not result.traversal.counted
    # entries: src, then a.py alias.py b.txt dangling.py deep deeplink out.py outdir, then deep/c.py; the five
    # links are counted, none followed (inside or out, to a file or a folder, dangling or not)
    assert counters(counted.traversal) == traversal(files=3, entries=10, symlinks=5)


def test_grep_searches_the_same_walk_and_never_leaves_the_root(tree: Path) -> None:
    with opened(tree) as ws:
        result = ws.grep("needle")
        counted = ws.grep("needle", stats=True)
    assert [(g.path, g.line, g.text) for g in result.lines] == [
        ("src/a.py", 2, "needle two"), ("src/b.txt", 1, "needle"), ("src/deep/c.py", 1, "x = 'needle'"),
    ]
    assert counted.lines == result.lines
    assert (result.matches, result.files, result.truncated) == (3, 3, False)
    assert counters(result.traversal) == UNCOUNTED
    assert counters(counted.traversal) == traversal(files=3, entries=10, symlinks=5)


def test_glob_with_sort_mtime_is_newest_first_then_by_path_and_truncates_at_max_results(tmp_path: Path) -> None:
    for index, name in enumerate(["b.md", "a.md", "c.md", "d.md"]):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, ns=(10**18, 10**18 + (index // 2) * 10**9))  # b,a older; c,d newer
    with opened(tmp_path, max_results=3) as ws:
        for engine in ("auto", "python"):
            result = ws.glob("*.md", sort="mtime", engine=engine)
            assert [m.rel for m in result.matches] == ["c.md", "d.md", "a.md"]
            assert (result.truncated, result.total) == (True, 4)
            assert [m.rel for m in ws.glob("*.md", max_results=1, sort="mtime", engine=engine).matches] == ["c.md"]


def test_glob_is_by_path_folder_by_folder_and_truncates_at_max_results(tmp_path: Path) -> None:
    """By path, as `rg --sort path`: a folder's paths right after its name (`a/` before `a-b/` and `a.txt`, where a
    plain string order puts `-` and `.` before `/`); the newest is not first; past max_results the first by path."""
    names = ["a.txt", "a-b/x.txt", "a/z.txt", "a/b/y.txt", "B.txt", "é.txt", "a/b.txt"]
    for index, rel in enumerate(names):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
        os.utime(tmp_path / rel, ns=(10**18, 10**18 + index * 10**9))
    by_path = ["B.txt", "a/b/y.txt", "a/b.txt", "a/z.txt", "a-b/x.txt", "a.txt", "é.txt"]
    with opened(tmp_path) as ws:
        for engine in ("auto", "python"):
            assert [m.rel for m in ws.glob("**", engine=engine).matches] == by_path
            result = ws.glob("**", engine=engine, max_results=3)
            assert [m.rel for m in result.matches] == by_path[:3]
            assert (result.truncated, result.total) == (True, 7)
            assert [(m.mtime_ns, m.size) for m in result.matches] == [(None, None)] * 3  # given newest first only
            newest = ws.glob("**", engine=engine, max_results=3, sort="mtime")
            assert [(m.rel, m.mtime_ns, m.size) for m in newest.matches] == [
                ("a/b.txt", 10**18 + 6 * 10**9, 1), ("é.txt", 10**18 + 5 * 10**9, 1), ("B.txt", 10**18 + 4 * 10**9, 1)]
            assert ws.glob("**", engine=engine, max_results=0)[2:5] == ((), True, 7)
        with pytest.raises(StringError) as caught:
            ws.glob("**", sort="size")
        assert (caught.value.code, caught.value.message) == ("INVALID_PAYLOAD", "Unknown glob order: size")


def test_patterns_are_relative_to_the_folder(tree: Path) -> None:
    with opened(tree) as ws:
        assert [m.rel for m in ws.glob("*.py").matches] == []
        assert [m.rel for m in ws.glob("*.py", "src").matches] == ["src/a.py"]
        assert [m.rel for m in ws.glob("src/{a,b}.*").matches] == ["src/a.py", "src/b.txt"]
        assert [m.rel for m in ws.glob("./src/deep/*").matches] == ["src/deep/c.py"]


def test_gitignore_at_every_level_and_git_folder_skipped(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "x.py").write_text("hit\n")
    (tmp_path / "app.log").write_text("hit\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("gen_*.py\n")
    (tmp_path / "pkg" / "gen_a.py").write_text("hit\n")
    (tmp_path / "pkg" / "main.py").write_text("hit\n")
    (tmp_path / "gen_b.py").write_text("hit\n")  # the pkg rule does not reach up
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("hit\n")
    with opened(tmp_path) as ws:
        assert sorted(m.rel for m in ws.glob("**").matches) == [".gitignore", "gen_b.py", "pkg/.gitignore",
                                                                  "pkg/main.py"]
        assert [g.path for g in ws.grep("hit").lines] == ["gen_b.py", "pkg/main.py"]


def test_secrets_and_engine_state_are_never_listed_or_searched(tmp_path: Path) -> None:
    for rel in (".env", ".env.local", ".ssh/config", "a/.aws/credentials", "keys/server.pem", "id_rsa",
                ".stringsh/spool/out.txt", "ok.txt", ".env.example"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("PASSWORD=hunter2\n")
    with opened(tmp_path) as ws:
        assert [m.rel for m in ws.glob("**").matches] == [".env.example", "ok.txt"]
        assert [m.rel for m in ws.glob("{.env,.env.local,zzz.ts}").matches] == []
        assert [g.path for g in ws.grep("hunter2").lines] == [".env.example", "ok.txt"]
        for denied in (".env", ".ssh", "a/.aws/credentials"):
            with pytest.raises(StringError) as caught:
                ws.grep("hunter2", denied)
            assert caught.value.code == "SECRET_DENIED"
        with pytest.raises(StringError) as caught:
            ws.glob("*", ".stringsh")
        assert caught.value.code == "NOT_PERMITTED"


def test_grep_skips_and_counts_binary_mislabelled_and_oversized_files(tmp_path: Path) -> None:
    """Binary files, and files that are not what their BOM says, are skipped (and counted when they hold the query);
    a Latin-1 file is searched as /open shows it."""
    (tmp_path / "bin.dat").write_bytes(b"needle\x00\x01\x02")
    (tmp_path / "latin1.txt").write_bytes(b"needle caf\xe9\n")
    (tmp_path / "bad-bom.txt").write_bytes(b"\xef\xbb\xbfneedle caf\xe9\n")  # a UTF-8 BOM, then Latin-1
    (tmp_path / "big.txt").write_bytes(b"needle\n" + b"x" * 200)
    (tmp_path / "crlf.txt").write_bytes(b"one\r\nneedle\r\nthree\rneedle again\r\n")
    (tmp_path / "utf16.txt").write_bytes("needle\n".encode("utf-16"))
    with opened(tmp_path, max_read_bytes=100) as ws:
        result = ws.grep("needle")
        counted = ws.grep("needle", stats=True)
    assert [(g.path, g.line, g.text) for g in result.lines] == [
        ("crlf.txt", 2, "needle"), ("crlf.txt", 4, "needle again"), ("latin1.txt", 1, "needle café"),
        ("utf16.txt", 1, "needle"),
    ]
    assert counted.lines == result.lines
    assert (result.skipped_too_large_files, result.skipped_non_utf8_files) == (0, 2)  # bin.dat and bad-bom.txt
    assert (counted.skipped_too_large_files, counted.skipped_non_utf8_files) == (1, 2)
    assert counters(counted.traversal) == traversal(files=6, entries=6)


def test_grep_clips_lines_on_a_utf8_boundary_after_redaction(tmp_path: Path) -> None:
    token = "ghp_" + "A" * 36
    (tmp_path / "a.txt").write_text(f"needle {token} " + "é" * 20 + "\n")
    with opened(tmp_path, max_line_bytes=31) as ws:
        (line,) = ws.grep("needle").lines
    assert line.text == "needle ***REDACTED*** éééé"  # 22 bytes + 4 × 2 = 30; the 31st would split an é
    assert line.line_truncated is True
    with opened(tmp_path) as ws:
        assert ws.grep(token).lines == ()  # a secret is not found by its own text


def test_grep_context_case_glob_and_regex(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("a\nb\nDef main():\nc\nd\ne\nf\ndef other():\n")
    (tmp_path / "notes.md").write_text("def main\n")
    with opened(tmp_path) as ws:
        result = ws.grep("def ", ignore_case=True, glob="*.py", context=1)
        assert [(g.line, g.match) for g in result.lines] == [(2, False), (3, True), (4, False), (7, False), (8, True)]
        assert [g.path for g in ws.grep("def", glob="src/*.py").lines] == ["src/m.py"]
        assert [g.line for g in ws.grep(r"^def \w+\(", regex=True).lines] == [8]


def test_max_results_stops_with_reason_results(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n" * 5)
    (tmp_path / "b.txt").write_text("x\n")
    with opened(tmp_path) as ws:
        result = ws.grep("x", max_results=3)
    assert [g.line for g in result.lines] == [1, 2, 3]
    assert (result.matches, result.files, result.truncated) == (3, 1, True)
    assert result.traversal.scan_limit_reason == "results"


def test_walk_limits_stop_with_their_reason(tmp_path: Path) -> None:
    for index in range(6):
        (tmp_path / f"f{index}.txt").write_text("x\n")
    with opened(tmp_path, max_walk_entries=4, max_walk_files=4) as ws:
        assert counters(ws.glob("*", stats=True).traversal) == traversal(files=4, entries=4, reason="entries")
        assert ws.glob("*").total == 6  # the walk limits bound the counted walk only
    with opened(tmp_path, max_walk_entries=10, max_walk_files=3) as ws:
        assert counters(ws.grep("x", stats=True).traversal) == traversal(files=3, entries=4, reason="files")
        assert ws.grep("x").files == 6


@pytest.mark.parametrize("query", ["", "   ", "\t"])
def test_empty_query_is_invalid_payload(tmp_path: Path, query: str) -> None:
    with opened(tmp_path) as ws, pytest.raises(StringError) as caught:
        ws.grep(query)
    assert (caught.value.code, caught.value.message) == ("INVALID_PAYLOAD", "Search query is empty.")


@pytest.mark.parametrize(("query", "why"), [
    ("(a+)+$", "a repeat inside a repeat can take exponential time"),
    (r"(\w+\s?)*$", "a repeat inside a repeat can take exponential time"),
    ("(x|xx)+(y{2,})+", "a repeat inside a repeat can take exponential time"),
    (r"(a)\1", "backreferences are not supported"),
    ("(?<=a)b", "lookahead/lookbehind are not supported"),
    ("a++", "possessive repeats are not supported"),
    ("(", "Not a valid regex"),
])
def test_catastrophic_and_unsupported_regexes_are_refused_before_reading(tmp_path: Path, query: str,
                                                                          why: str) -> None:
    (tmp_path / "a.txt").write_text("a" * 40 + "!\n")
    with opened(tmp_path) as ws, pytest.raises(StringError) as caught:
        ws.grep(query, regex=True)
    assert caught.value.code == "INVALID_PAYLOAD"
    assert why in caught.value.message


def test_hard_links_are_not_searched(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    with opened(tmp_path) as ws:
        result = ws.grep("needle")
        counted = ws.grep("needle", stats=True)
    assert result.lines == counted.lines == ()
    assert counters(result.traversal) == UNCOUNTED  # a count among the hits would say whether one holds "needle"
    assert counters(counted.traversal) == traversal(files=2, entries=2, walk_errors=2)


def test_permission_flags(tmp_path: Path) -> None:
    policy = Policy.default(tmp_path)
    ws = Workspace(tmp_path, policy._replace(permissions=policy.permissions._replace(glob=False, grep=False)))
    try:
        for call, op in ((lambda: ws.glob("*"), "glob"), (lambda: ws.grep("x"), "grep")):
            with pytest.raises(StringError) as caught:
                call()
            assert (caught.value.code, caught.value.message) == ("NOT_PERMITTED", f"{op} is disabled by policy")
    finally:
        ws.close()


def test_a_folder_swapped_for_a_symlink_mid_walk_is_not_entered(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("x\n")
    (root / "sub" / "in.txt").write_text("x\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("x\n")
    with opened(root) as ws:
        stats = WalkStats()
        seen = []
        for found in walk(ws, start_at(ws, "."), stats):
            seen.append(found.rel)
            if found.rel == "a.txt":  # the walk has listed the root; now swap sub/ for a link out
                os.rename(root / "sub", tmp_path / "was-sub")
                os.symlink(tmp_path / "outside", root / "sub")
        assert seen == ["a.txt"]
        assert counters(stats.snapshot()) == traversal(files=1, entries=2, walk_errors=1)


def test_a_file_swapped_for_a_symlink_before_reading_is_not_opened(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    (tmp_path / "secret.txt").write_text("x\n")
    with opened(root) as ws:
        for found in walk(ws, start_at(ws, "."), WalkStats()):
            os.remove(root / "a.txt")
            os.symlink(tmp_path / "secret.txt", root / "a.txt")
            assert open_found(found) is None


LEAF_PATHS = [
    ".env", "a/.env", ".env.example", "config/.env.sample", ".ENV", "x/.Env.Local", "id_rsa", "keys/id_rsa.pub",
    "home/.aws/credentials", "home/.aws/config", ".aws/credentials", "a/b/.kube/config", "kube/config",
    ".docker/config.json", "x/.config/gcloud", "x/config/gcloud", "server.pem", "a/b/c.key", "notes.md",
    "src/app.py", "my-kubeconfig.yaml", "credentials-prod.json", "secrets/one.txt", "secrets", "deep/secrets/x.txt",
    "private", "private/a", "state.tfstate", "ok/credentials",
]


@pytest.mark.parametrize("extra", [(), ("secrets/*.txt", "private/")], ids=["defaults", "policy-globs"])
def test_the_walks_leaf_check_agrees_with_the_full_check(extra: tuple[str, ...]) -> None:
    """The walk checks an entry's own path only (its folder was checked on entry): same answer as `denied`."""
    from stringsh.workspace.secrets import DEFAULT_ALLOW_GLOBS, DEFAULT_DENY_GLOBS, SecretMatcher

    matcher = SecretMatcher((*DEFAULT_DENY_GLOBS, *extra), DEFAULT_ALLOW_GLOBS)
    for rel in LEAF_PATHS:
        parts = rel.split("/")
        if any(matcher.denied("/".join(parts[:end])) for end in range(1, len(parts))):
            continue  # the walk never gets here
        assert matcher.denied_leaf(rel) == matcher.denied(rel), rel
