"""grep's whole-file matching: one search over the file, lines split out only around hits,
gives exactly the lines matching line by line gives; a regex's required literal skips files without it; and a
catastrophic regex stops with TIMEOUT instead of hanging (Bad input)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.workspace import Workspace
from stringsh.workspace.ops.grep import hit_lines
from stringsh.workspace.ops.patterns import Budget, compile_query, regex_meets_mask
from stringsh.workspace.textio import BREAK
from tests.conftest import run_stringsh

#: Patterns whose meaning could differ between a whole text and its lines: dots and classes that match a lone \r,
#: whitespace spanning breaks, empty matches, word boundaries at line ends, an escaped newline, DOTALL, anchors.
TRICKY = [
    ("ab", False, False), ("a b", False, False), ("AB", False, True), ("é", False, False),
    (r"a.b", True, False), (r"\s+", True, False), (r"[^a]+", True, False), (r"\W", True, False),
    (r"x*", True, False), (r"\b", True, False), (r"\B", True, False), (r"a\nb", True, False),
    (r"(?s)a.b", True, False), (r"[\r]", True, False), (r"\bab\b", True, False), (r"b\s*a", True, False),
    (r"é+", True, False), (r"(a|b)x", True, False), (r"[ab]{2}", True, False), (r"a|", True, False),
    (r"^a", True, False), (r"b$", True, False), (r"\Aa", True, False), (r"AB", True, True), (r"(?i)ab", True, False),
    (r"x\b", True, False), (r"\S+ \S", True, False), (r"[^\n]b", True, False), (r".", True, False),
]
TEXT = st.text(alphabet="ab x\r\né_", max_size=40)


def by_lines(text: str, pattern: str, regex: bool, ignore_case: bool) -> list[tuple[int, str]]:
    """The reference: split into lines (the one line model), match each."""
    query = compile_query(pattern, regex=regex, ignore_case=ignore_case)
    lines = BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return [(index, line) for index, line in enumerate(lines) if query.line.search(line) is not None]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, case=st.sampled_from(TRICKY), most=st.integers(min_value=1, max_value=6))
def test_whole_text_search_finds_exactly_the_lines_line_by_line_matching_finds(text: str, case: tuple,
                                                                              most: int) -> None:
    pattern, regex, ignore_case = case
    query = compile_query(pattern, regex=regex, ignore_case=ignore_case)
    found = hit_lines(text, query, Budget(query), most)
    if found is not None:  # None: the caller matches line by line, the reference itself
        assert found == by_lines(text, pattern, regex, ignore_case)[:most]
    first = query.text.search(text) if query.text is not None else None
    if first is not None:  # the first match handed on (grep found it already): the same answer
        assert hit_lines(text, query, Budget(query), most, first) == found


@pytest.mark.parametrize(("pattern", "text", "expected"), [
    ("ab", "x\r\nab ab\rq\nab\n", [(1, "ab ab"), (3, "ab")]),
    (r"b\s*a", "b\na\n", []),  # spans a break: matched line by line instead
    (r"a.b", "a\rb\na b\n", [(2, "a b")]),
])
def test_whole_text_search_on_known_cases(pattern: str, text: str, expected: list) -> None:
    query = compile_query(pattern, regex=True, ignore_case=False)
    found = hit_lines(text, query, Budget(query), 10)
    assert (found if found is not None else by_lines(text, pattern, True, False)) == expected


@pytest.mark.parametrize(("pattern", "ignore_case", "needle"), [
    (r"class \w+Error\(\w*Exception\)", False, b"Exception)"),
    (r"def \w+", False, b"def "),
    (r"(?i)def \w+", False, None),
    (r"def \w+", True, None),
    (r"(a|b)+", False, None),
    (r"caf\u00e9 x", False, "café x".encode()),
])
def test_a_regex_required_literal_prefilters_files(pattern: str, ignore_case: bool, needle: bytes | None) -> None:
    assert compile_query(pattern, regex=True, ignore_case=ignore_case).needle == needle


def test_every_required_run_must_be_in_the_file(tmp_path: Path) -> None:
    query = compile_query(r"class \w+Error\(\w*Exception\)", regex=True, ignore_case=False)
    assert (query.needle, query.others) == (b"Exception)", (b"class ", b"Error("))  # ties in pattern order
    (tmp_path / "hit.py").write_text("class BadError(Exception):\n")
    (tmp_path / "near.py").write_text("class Bad(Exception):\n")
    workspace = Workspace(tmp_path)
    try:
        result = workspace.grep(r"class \w+Error\(\w*Exception\)", regex=True, engine="python")
    finally:
        workspace.close()
    assert [(line.path, line.text) for line in result.lines] == [("hit.py", "class BadError(Exception):")]


#: Regexes for the mask property: some may consume a mask's end or lie inside it, most cannot.
MASKED = [r"class \w+Error\(\w*Exception\)", r"a\w+b", r"a[^x]b", r"a.b", r"ab \S+", r"RED\w*", r"DA", r"a\bb",
          r"(?i:r)ed", r"[A-Z]+ x", r"a[*]", r"x(a|\*)b", r"\W+a", r"ab[-_]\d*", r"(?i:Re)DACT", r"ba"]
MASKS = ["***REDACTED***", "[hidden]", "REDACTED", "*", "_a_", "x"]


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.tuples(st.booleans(), st.text(alphabet="abx *REDACT_(-1", max_size=8)), max_size=6),
       pattern=st.sampled_from(MASKED), mask=st.sampled_from(MASKS))
def test_a_regex_that_cannot_meet_the_mask_matches_masked_text_only_where_the_raw_text_matches(
        pieces: list, pattern: str, mask: str) -> None:
    """regex_meets_mask False lets rg's raw file list stand for the masked text: any text with any parts masked
    then holds a match only if the raw text does."""
    raw = "".join(text for _, text in pieces)
    masked = "".join(mask if secret else text for secret, text in pieces)
    if not regex_meets_mask(pattern, mask, ignore_case=False):
        query = compile_query(pattern, regex=True, ignore_case=False)
        assert query.line.search(masked) is None or query.line.search(raw) is not None


@pytest.mark.parametrize(("pattern", "mask", "meets"), [
    (r"class \w+Error\(\w*Exception\)", "***REDACTED***", False),  # `*` is not consumed; no literal in REDACTED
    (r"token [*A-Z]+ needle", "***REDACTED***", True),  # consumes the mask's ends
    (r"to\w+ \S+ needle", "***REDACTED***", True),
    (r"ne+dle\s\w+", "***REDACTED***", False),
    (r"RED\w+", "***REDACTED***", True),  # lies inside the mask
    (r"(?i:r)ed", "***REDACTED***", False),  # `ed` is not in the mask, in its case
    (r"\Bneedle", "***REDACTED***", True),  # a word boundary looks at the mask beside it
    (r"foo.bar", "***REDACTED***", True),
    (r"a\w+b", "XX", True),
    (r"(?i)abc", "***REDACTED***", True),  # no required literal once case is folded
    (r"abc", "", True),  # an empty mask joins the text around a secret
])
def test_whether_a_regex_may_meet_the_mask(pattern: str, mask: str, meets: bool) -> None:
    assert regex_meets_mask(pattern, mask, ignore_case=False) is meets


@pytest.mark.parametrize("pattern", ["(x|xx)+$", "(x|xx)+y", "(a|aa|aaa)+b"])
def test_a_catastrophic_regex_stops_with_timeout_through_the_real_program(tmp_path: Path, pattern: str) -> None:
    """`(x|xx)+` nests no repeat, so the static check lets it through; on a long line of x's re would backtrack
    for hours. The real program answers TIMEOUT with a hint, and the same run goes on to the
    next command."""
    ws = tmp_path / "ws"
    ws.mkdir()
    # a long run of x's then of a's before a line's end; then a line that does match, so that ripgrep, when it is
    # the engine, names the file too
    (ws / "a.txt").write_text("ok\n" + "x" * 80 + "a" * 80 + "!\n" + "xy aab\n")
    (tmp_path / "script.txt").write_text(f"/grep --regex '{pattern}'\n/grep ok\n")
    text = run_stringsh(["run", "--keep-going", str(tmp_path / "script.txt")], ws, timeout=60).stdout.decode()
    assert f"re: /grep --regex '{pattern}'\nERROR(TIMEOUT): Regex ran past its 2 s budget on one file (a.txt); " \
           f"it may backtrack catastrophically: {pattern}\nRewrite it so no two alternatives under one repeat " \
           "match the same text (x+ rather than (x|xx)+), or search for the literal text without --regex." in text
    assert 're: /grep ok\nGrep "ok" in ./: 1 match in 1 file' in text
