"""`lazy_pattern`: compiled on first use, then the compiled pattern's own methods and attributes."""

from __future__ import annotations

import re

from stringsh.lazyexports import lazy_pattern


def test_compiles_on_first_use_and_answers_as_the_compiled_pattern() -> None:
    pattern = lazy_pattern(r"^(a+)b$", re.MULTILINE)
    assert "match" not in vars(pattern) and "pattern" not in vars(pattern)
    assert pattern.match("aab").group(1) == "aa"  # type: ignore[union-attr]
    assert pattern.findall("ab\nx\naab") == ["a", "aa"]
    assert (pattern.pattern, pattern.flags & re.MULTILINE) == (r"^(a+)b$", re.MULTILINE)
    assert vars(pattern)["match"] == re.compile(r"^(a+)b$", re.MULTILINE).match  # kept: later calls look it up once
