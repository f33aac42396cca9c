"""The no-`\\r` fast paths of line-ending detection agree with the general regex path."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stringsh.workspace.textio import STYLES, count_lines, dominant_newline, line_breaks, newline_style

LF_TEXT = st.text(alphabet=st.sampled_from(["a", "é", " ", "\n", "\t", "\u2028"]), max_size=60)


@given(LF_TEXT)
def test_fast_paths_match_the_regex_model(text: str) -> None:
    breaks = line_breaks(text)
    kinds = set(breaks)
    style = "none" if not kinds else STYLES[kinds.pop()]
    assert newline_style(text) == (style, bool(text) and text[-1] == "\n")
    assert dominant_newline(text, default="X") == (breaks[0] if breaks else "X")
    assert count_lines(text) == (0 if not text else len(breaks) + (0 if text.endswith("\n") else 1))
