"""The one escaping form (stringsh/escapes.py) and the hint quoting (stringsh/hints.py), value by value: what each
control becomes, what stays (tab, newline, a CRLF's CR, ordinary text as the same object), and that escaping twice
changes nothing."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from stringsh.escapes import escape_controls, json_name, names_as_is, shown_name, shown_names
from stringsh.hints import command_word, shell_hint, shell_word
from stringsh.protocol.request import split_arguments


@pytest.mark.parametrize(("text", "shown"), [
    ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
    ("\x1b]52;c;UFdORUQ=\x07", "\\x1b]52;c;UFdORUQ=\\x07"),
    ("csi \x9b2J nel \x85 del \x7f nul \x00", "csi \\x9b2J nel \\x85 del \\x7f nul \\x00"),
    ("bare\rcr", "bare\\x0dcr"),
    ("crlf\r\nline\r\n", "crlf\r\nline\r\n"),
    ("tab\tand\nnewline\n", "tab\tand\nnewline\n"),
    ("raw byte \udc9b and \udcff", "raw byte \\x9b and \udcff"),  # a C1 byte that was not UTF-8; 0xff is no control
    ("literal \\x1b text", "literal \\x1b text"),
])
def test_escape_controls(text: str, shown: str) -> None:
    assert escape_controls(text) == shown
    assert escape_controls(shown) == shown  # twice is once


def test_ordinary_text_comes_back_unchanged() -> None:
    text = "café — “quoted” ✓\n\tindented\n"
    assert escape_controls(text) is text


@pytest.mark.parametrize(("name", "shown"), [
    ("plain.txt", "plain.txt"),
    ("two words.txt", "two words.txt"),
    ("nl\nname.txt", '"nl\\x0aname.txt"'),
    ('tab\tq"uote\\.txt', '"tab\\x09q\\"uote\\\\.txt"'),
    ("caf\udce9.txt", '"caf\\xe9.txt"'),  # a byte that was not UTF-8 (surrogateescape), as git quotes it
    ("d\udce9r/m\udce9 \\x.py", '"d\\xe9r/m\\xe9 \\\\x.py"'),  # a backslash of its own is doubled
    ("c1 \udc9b.txt", '"c1 \\x9b.txt"'),
    ("lone \ud800.txt", '"lone \\ud800.txt"'),  # a surrogate a JSON client sent: its code point
    ('"quoted".txt', '"\\"quoted\\".txt"'),  # a `"` first would read as a quoted name
    ('mid"quote.txt', 'mid"quote.txt'),
])
def test_shown_name(name: str, shown: str) -> None:
    assert shown_name(name) == shown
    shown.encode("utf-8")  # every reply can encode it
    assert json_name(name) == (shown if any(0xD800 <= ord(char) <= 0xDFFF for char in name) else name)


def test_shown_names_is_shown_name_of_each() -> None:
    """The one search over a listing decides as each name's own would, with one name that needs quoting among plain
    ones (a `"` first in a name or after a `/` of a path only sends the listing to the one-by-one form)."""
    plain = ["plain.txt", "two words.txt", "a/b/c.py"]
    assert shown_names(plain) is plain
    assert shown_names([]) == []
    for odd in ("nl\nname.txt", "caf\udce9.txt", '"quoted".txt', 'mid"quote.txt', "lone \ud800.txt", "c1 \udc9b"):
        names = [*plain[:2], odd, plain[2]]
        assert shown_names(names) == [shown_name(name) for name in names], odd


@pytest.mark.parametrize("odd", ['"quoted', "tab\there", "new\nline", "esc\x1b", "del\x7f", "c1\x85",
                                 "caf\udce9.txt", "lone\ud800", "\x00"])
def test_names_as_is_agrees_with_each_name_shown(odd: str) -> None:
    """A listing shows its names without a look at each one when this one scan says they are shown as they are."""
    plain = ["a.txt", 'mid"quote', "caf\u00e9 \u65e5\u672c.md", "back\\slash", "-dash", " space ", "x"]
    assert names_as_is(plain) and all(shown_name(name) == name == json_name(name) for name in plain)
    assert names_as_is([])
    for at in range(len(plain) + 1):
        names = [*plain[:at], odd, *plain[at:]]
        assert not names_as_is(names)
        assert shown_name(odd) != odd


def test_a_name_that_is_not_utf8_is_shown_unambiguously() -> None:
    """Two names shown alike would be one name to the reader: a name spelled like another's escaped form is not."""
    names = ["caf\udce9.txt", "caf\\xe9.txt", '"caf\\xe9.txt"', "caf\xe9.txt", "caf\udcc3\udca9.txt"]
    assert len({shown_name(name) for name in names}) == len(names)


@pytest.mark.parametrize("name", ["a b", "it's \"q\" \\", "$(touch PWNED)", "nl\nname", "e\x1b]0;t\x07", "-o x",
                                  "caf\udce9.txt"])
def test_a_shell_word_is_the_name_to_bash(name: str, tmp_path) -> None:
    word = shell_word(name)
    assert "\n" not in word and "\x1b" not in word
    word.encode("utf-8")
    done = subprocess.run(["bash", "-c", f"printf %s {word}"], cwd=tmp_path, capture_output=True, check=True)
    assert done.stdout.decode("utf-8", "surrogateescape") == name
    assert list(tmp_path.iterdir()) == []


def test_a_shell_hint_quotes_values_and_keeps_options_apart() -> None:
    assert shell_hint("iconv -f {source} -t UTF-8 {rel}", source="LATIN1", rel="-o x") == \
        "!iconv -f LATIN1 -t UTF-8 './-o x'"
    assert shell_word("plain.txt") == shlex.quote("plain.txt") == "plain.txt"


@pytest.mark.parametrize("name", ["plain.txt", "a b.txt", "it's \"q\" \\.txt", "$(x).txt", "-x.txt"])
def test_a_command_word_is_the_name_to_the_request_parser(name: str) -> None:
    (word,) = split_arguments(command_word(name))
    assert word == (f"./{name}" if name.startswith("-") else name)
    assert command_word("notes.md") == "notes.md"  # ordinary hints stay byte for byte
