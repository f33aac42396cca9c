"""One implementation each of fence detection, markdown suffixes and text cleaning, shared by every caller."""

from __future__ import annotations

import pytest

from stringsh.actions.cli import clean_output
from stringsh.actions.fences import parse_actions
from stringsh.nav.links import plain_links
from stringsh.render.blocks import closes_fence
from stringsh.render.document import Document
from stringsh.render.document import is_markdown as document_is_markdown
from stringsh.render.kinds import is_markdown
from stringsh.render.people import chunks, render_markdown
from stringsh.render.plain import hint_lines
from stringsh.render.scan import fenced_lines, scan


@pytest.mark.parametrize(
    ("opener", "closer", "closes"),
    [
        ("```", "```", True),
        ("```py", "````", True),
        ("````", "```", False),
        ("~~~", "```", False),
        ("```", "``` x", False),
        ("```", "text", False),
    ],
)
def test_closes_fence(opener: str, closer: str, closes: bool) -> None:
    assert closes_fence(opener, closer) is closes


def test_fenced_lines_follow_the_scanner() -> None:
    lines = ["text", "````", "```", "", "```", "````", "after", "> ```", "> in quote", "> ```", "end"]
    assert fenced_lines(len(lines), scan(lines).fences) == [
        False, True, True, True, True, True, False, True, True, True, False,
    ]


def test_links_chunks_and_actions_agree_on_fences() -> None:
    """A shorter run inside a longer fence does not close it, for links, chunking and actions alike."""
    text = "````\n```\n[In code](https://code.example)\n\n```\n````\n\n[Out](https://out.example)\n"
    assert plain_links(text) == [("Out", "https://out.example")]
    assert all(piece.count("````") in (0, 2) for piece in chunks(text, size=1))
    example = "````\n```act.x\nGET https://x.example\n```\n````\n"
    assert parse_actions(example) == []


def test_markdown_suffixes_are_one_list() -> None:
    for name in ("a.md", "A.MARKDOWN", "b.mdown", "c.mkd", "d.mdx", "e.sfmd"):
        assert is_markdown(name) and document_is_markdown(name)
    assert not is_markdown("notes.txt") and not is_markdown("md")


def test_text_cleaning_drops_whole_escape_sequences() -> None:
    raw = b"a\x1b[31mred\x1b[0m\r\nb\x1b]0;title\x07c\x1b=d\x01"
    assert clean_output(raw, 1000) == "ared\nbcd"
    out = render_markdown("Some \x1b[31mred\x1b[0m text\n", color=False)
    assert "\x1b" not in out and "[31m" not in out and "red" in out


def test_actions_hint_lists_exactly_the_actions_act_runs() -> None:
    """The index and `/act` read action fences by one rule: a blank first line is skipped, the first definition of
    an id wins, an unclosed fence is no action."""
    text = (
        "# Ops\n\n```act.a\n\nGET https://a.example\n```\n\n```act.b\nGET https://b.example\n```\n\n"
        "```act.b\nPOST https://b2.example\n```\n\n```act.c\nGET https://c.example\n"
    )
    doc = Document.parse(text)
    assert [action[0] for action in doc.index.actions] == [action.id for action in parse_actions(text)] == ["a", "b"]
    assert doc.index.actions[1][1:3] == ("GET", "https://b.example")
    assert hint_lines(doc, [])[0].startswith("[actions] a, b  ·")
