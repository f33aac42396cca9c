"""Symbol indexing is linear in the file's size on hostile input, proved by counting the work
budget.WORK records (characters of qualified names built, bytes the look-backs read, nodes walked, queries run),
never by the clock; and the notes that say what was cut: nesting past MAX_NESTING, qualified names past their
budget, a parse past its time budget (the file is text, without symbols)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.render.code import budget
from stringsh.render.code.index import SymbolIndex, build_symbols
from tests.commands.documents import body
from tests.conftest import run_stringsh


def work(kind: str, build: Callable[[], object]) -> int:
    """How much of `kind` one call adds to budget.WORK."""
    before = budget.WORK[kind]
    build()
    return budget.WORK[kind] - before


def nested(n: int) -> str:
    return "class A{m(){" * n + "}}" * n + "\n"


def test_nested_classes_cost_linear_work_and_stop_at_the_nesting_limit() -> None:
    small = work("qualified", lambda: build_symbols(nested(2_000), "javascript"))
    large = work("qualified", lambda: build_symbols(nested(4_000), "javascript"))
    assert small > 0 and large <= 2.2 * small
    index = build_symbols(nested(2_000), "javascript")
    assert len(index.rows) == budget.MAX_NESTING
    assert max(row[0] for row in index.rows) == ".".join(["A", "m"] * 32)  # 64 parts at most
    assert index.error_note == ("[nesting] Definitions nested more than 64 deep are not indexed (the first at line "
                                "1); their lines are in the symbol that holds them.")


def test_nesting_at_the_limit_is_indexed_whole_without_a_note() -> None:
    index = build_symbols(nested(32), "javascript")  # 32 classes and 32 methods: 64 definitions, none past 64 deep
    assert len(index.rows) == 64 and index.error_note == ""


def test_a_long_class_name_over_many_methods_stops_at_the_qualified_budget() -> None:
    name = "C" * 100_000
    text = f"class {name} {{\n" + "".join(f"  m{i}() {{}}\n" for i in range(20)) + "}\n"
    index = build_symbols(text, "javascript")
    limit = budget.qualified_budget(len(text.encode()))
    assert sum(len(row[0]) for row in index.rows) <= limit
    assert len(index.rows) == limit // (len(name) + 4)  # the class and the methods that fit
    line = len(index.rows) + 1
    assert index.error_note == (f"[nesting] The qualified names pass 4 characters per byte of the file at line {line}; "
                                "the symbols from there on are not indexed.")


def test_one_line_of_minified_definitions_scans_linear_bytes() -> None:
    def minified(n: int) -> str:
        return "function f(){return 1};" * n

    small = work("scanned", lambda: build_symbols(minified(5_000), "javascript"))
    large = work("scanned", lambda: build_symbols(minified(10_000), "javascript"))
    assert small > 0 and large <= 2.2 * small
    assert len(build_symbols(minified(3), "javascript").rows) == 3


def test_parents_and_siblings_of_many_definitions_on_one_node_cost_linear_work() -> None:
    """tree-sitter's own `parent` and sibling calls count children from the root: asked of each of n children of
    one node they cost n²; the family walk lists them once."""
    def minified(n: int) -> str:
        return "function f(){return 1};" * n

    def declarators(n: int) -> str:
        return "const " + ",".join(f"a{i}=()=>1" for i in range(n)) + ";\n"

    for make in (minified, declarators):
        small = work("family", lambda make=make: build_symbols(make(5_000), "javascript"))
        large = work("family", lambda make=make: build_symbols(make(10_000), "javascript"))
        assert small > 0 and large <= 2.2 * small, make
    index = build_symbols("const a = () => 1, b = function () {};\nexport const c = () => 2;\n", "javascript")
    assert [(row[0], row[3], row[5], row[6]) for row in index.rows] == [("a", 0, 6, 17), ("b", 0, 19, 38),
                                                                        ("c", 1, 39, 64)]


def test_definitions_after_a_long_line_look_back_once_per_line() -> None:
    def after_blanks(n: int) -> str:  # a line of blanks above n definitions: each asks whether it has text
        return "x" + " " * 100_000 + "\n" + "function f(){return 1};" * n + "\n"

    small = work("scanned", lambda: build_symbols(after_blanks(2_000), "javascript"))
    large = work("scanned", lambda: build_symbols(after_blanks(4_000), "javascript"))
    assert large - small <= 2.2 * 2_000 * 64  # the blank line is read once, not once per definition


def test_nested_brackets_walk_linear_nodes_with_a_syntax_note() -> None:
    def brackets(n: int) -> str:
        return "x = " + "[" * n + "\n"

    small = work("walked", lambda: build_symbols(brackets(20_000), "python"))
    large = work("walked", lambda: build_symbols(brackets(40_000), "python"))
    assert small > 0 and large <= 2.2 * small
    assert build_symbols(brackets(20_000), "python").error_note == (
        "[syntax] The python parser found an error at line 1, column 1; symbols near it may be missing.")


def test_a_syntax_error_elsewhere_still_finds_every_definition() -> None:
    text = "def a():\n    pass\n\nclass B:\n    def c(self):\n        x = [[[\n\ndef d():\n    pass\n"
    index = build_symbols(text, "python")
    assert [row[0] for row in index.rows][:3] == ["a", "B", "B.c"]
    assert index.errors


def test_a_parse_past_its_budget_is_text_without_symbols(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.0)
    monkeypatch.setattr(budget, "PARSE_SECONDS_PER_MIB", 0.0)
    parses = budget.WORK["parses"]
    index = build_symbols("def f():\n    return 1\n" * 2_000, "python")
    assert budget.WORK["parses"] == parses + 1
    assert index.unparsed and index.rows == [] and index.line_count == 4_000
    assert index.error_note == ("[syntax] The python parser did not finish within 0 seconds; the file is shown as "
                                "text, without symbols.")
    again = SymbolIndex.from_tuple(index.to_tuple())  # the signed cache keeps the verdict (no second parse)
    assert again.unparsed and again.error_note == index.error_note


def test_open_shows_a_parse_past_its_budget_as_text_with_the_note(monkeypatch: pytest.MonkeyPatch, ws: Path,
                                                                 dispatcher) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.0)
    monkeypatch.setattr(budget, "PARSE_SECONDS_PER_MIB", 0.0)
    (ws / "slow.py").write_text("def f():\n    return 1\n")
    assert body(dispatcher.execute("/open slow.py").text) == (
        "Opened slow.py\n---\ndef f():\n    return 1\n\n"
        "[syntax] The python parser did not finish within 0 seconds; the file is shown as text, without symbols.")
    assert body(dispatcher.execute("/open slow.py#f").text).startswith("ERROR(BLOCK_NOT_FOUND): ")


def test_the_real_program_opens_deep_nesting_with_the_note(ws: Path) -> None:
    (ws / "nest.js").write_text(nested(3_000))
    reply = run_stringsh(["-c", "/open nest.js"], cwd=ws)
    out = reply.stdout.decode()
    assert reply.returncode == 0, reply.stderr.decode()
    assert "\nSymbols (64), open one with /open nest.js#<id>:\n  #A " in out
    assert out.endswith(
        "  … and 4 more: /symbols * nest.js\n"
        "[nesting] Definitions nested more than 64 deep are not indexed (the first at line 1); their lines are in the "
        "symbol that holds them.\n")


def test_a_parse_past_its_budget_is_remembered_in_memory_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from stringsh.render.code.cache import SymbolCache

    text = "def f():\n    return 1\n" * 20_000  # past the size the cache keeps on disk
    seconds, per_mib = budget.PARSE_SECONDS, budget.PARSE_SECONDS_PER_MIB
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.0)
    monkeypatch.setattr(budget, "PARSE_SECONDS_PER_MIB", 0.0)
    cache = SymbolCache(tmp_path / "cache", key=lambda: b"k" * 32)
    assert cache.symbols(text, "python").unparsed
    assert not list((tmp_path / "cache").glob("*.sym"))  # a busy moment does not outlive the process
    parses = budget.WORK["parses"]
    assert cache.symbols(text, "python").unparsed and budget.WORK["parses"] == parses  # nor is it paid twice
    monkeypatch.setattr(budget, "PARSE_SECONDS", seconds)
    monkeypatch.setattr(budget, "PARSE_SECONDS_PER_MIB", per_mib)
    fresh = SymbolCache(tmp_path / "cache", key=lambda: b"k" * 32).symbols(text, "python")
    assert not fresh.unparsed and len(fresh.rows) == 20_000 and list((tmp_path / "cache").glob("*.sym"))


def test_refs_in_nested_brackets_walk_linear_nodes(ws: Path, dispatcher) -> None:
    def refs(n: int) -> tuple[str, int]:
        (ws / f"b{n}.py").write_text("x = " + "[" * n + "\n")
        before = budget.WORK["walked"]
        text = body(dispatcher.execute(f"/symbols --refs x b{n}.py").text)
        return text, budget.WORK["walked"] - before

    text, small = refs(20_000)
    assert text.startswith('References to "x" in b20000.py: 1 occurrence in 1 file\n---\n'
                           "b20000.py:1:1: use at top level: x = [[[")
    assert text.endswith("\n1 occurrence in 1 file; 1 source file indexed; scanned 1 file (1 entry)")
    _, large = refs(40_000)
    assert small > 0 and large <= 2.2 * small
