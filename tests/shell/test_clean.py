"""Stream cleaning: escapes, line endings, controls and UTF-8, whatever the read boundaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stringsh.workspace.shell.clean import StreamCleaner, clean_bytes, clean_text

SAMPLES = [
    ("\x1b[1;31mred\x1b[0m", "red"),
    ("a\x1b]0;window title\x07b", "ab"),
    ("\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"),
    ("\x1b(Bplain\x1b=", "plain"),
    ("one\r\ntwo\r\r\nthree", "one\ntwo\nthree"),
    ("50%\r100%\n", "50%100%\n"),
    ("tab\tkept\x00\x07\x08\x7f\x9b", "tab\tkept"),
]


def test_samples() -> None:
    for raw, clean in SAMPLES:
        assert clean_text(raw) == clean, raw
        assert clean_bytes(raw.encode()) == clean.encode(), raw


def feed_in_pieces(data: bytes, cuts: list[int]) -> str:
    cleaner = StreamCleaner()
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, last = [], 0
    for point in [*points, len(data)]:
        pieces.append(cleaner.feed(data[last:point]))
        last = point
    return (b"".join(pieces) + cleaner.finish()).decode("utf-8")  # always valid UTF-8


@given(
    st.lists(st.sampled_from([raw for raw, _ in SAMPLES] + ["€uro", "ü", "\r", "\n", "x", "\x1b["]), max_size=12),
    st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_any_split_gives_the_same_text(parts: list[str], cuts: list[int]) -> None:
    data = "".join(parts).encode()
    assert feed_in_pieces(data, cuts) == clean_text(data.decode())


def test_utf8_split_byte_by_byte() -> None:
    data = "naïve – 日本 🙂\r\n".encode()
    assert feed_in_pieces(data, list(range(len(data)))) == "naïve – 日本 🙂\n"


def test_invalid_bytes_become_replacement_characters() -> None:
    assert feed_in_pieces(b"a\xffb\xe2\x82", [2]) == "a\ufffdb\ufffd"
    assert feed_in_pieces(b"\xf8\x80\x80", [1, 2]) == "\ufffd\ufffd\ufffd"


@given(st.binary(max_size=64), st.lists(st.integers(min_value=0, max_value=64), max_size=6))
def test_arbitrary_bytes_give_valid_clean_utf8(data: bytes, cuts: list[int]) -> None:
    text = feed_in_pieces(data, cuts)
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text)
