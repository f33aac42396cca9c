"""Block edits change no byte outside the block: fixed cases and a property over generated documents."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.render.document import Document
from stringsh.render.index import build_index


def test_marker_block_keeps_markers_and_surrounding_blank_lines() -> None:
    d = Document.parse("a\n<!-- #b -->\n\nold\n\n<!-- /b -->\nz\n")
    assert d.splice_block(d.resolve("b"), "new\n") == "a\n<!-- #b -->\n\nnew\n\n<!-- /b -->\nz\n"
    assert d.splice_block(d.resolve("b"), "") == "a\n<!-- #b -->\n\n\n<!-- /b -->\nz\n"


def test_heading_block_keeps_heading_and_next_section() -> None:
    d = Document.parse("# T\n\n## Setup\n\nold\nlines\n\n## Next\nx\n")
    assert d.splice_block(d.resolve("setup"), "new") == "# T\n\n## Setup\n\nnew\n\n## Next\nx\n"


def test_heading_block_at_end_of_file_with_and_without_final_newline() -> None:
    d = Document.parse("# A\n\ntext\n")
    assert d.splice_block(d.resolve("a"), "b\n") == "# A\n\nb\n"
    d = Document.parse("# A\n\ntext")
    assert d.splice_block(d.resolve("a"), "b\n") == "# A\n\nb"


def test_crlf_file_gets_crlf_lines_and_keeps_a_missing_final_newline() -> None:
    d = Document.parse("<!-- #m -->\r\nold\r\n<!-- /m -->\r\n# H\r\n\r\nend")
    assert d.splice_block(d.resolve("m"), "x\ny\n") == "<!-- #m -->\r\nx\r\ny\r\n<!-- /m -->\r\n# H\r\n\r\nend"
    assert d.splice_block(d.resolve("h"), "z") == "<!-- #m -->\r\nold\r\n<!-- /m -->\r\n# H\r\n\r\nz"


def test_setext_heading_block_keeps_both_heading_lines() -> None:
    d = Document.parse("Title\n=====\n\nold\n")
    assert d.splice_block(d.resolve("title"), "new") == "Title\n=====\n\nnew\n"


LINE = st.one_of(
    st.sampled_from(
        [
            "",
            "text",
            "# One",
            "## Two",
            "### Three",
            "```",
            "~~~",
            "<!-- #a -->",
            "<!-- /a -->",
            "<!-- #b -->",
            "<!-- /b -->",
            "- item",
            "> quote",
            "    code",
            "Setext",
            "===",
            "---",
            "é ü",
        ]
    ),
    st.text(alphabet="ab #-`<>!\t", max_size=8),
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(LINE, max_size=25), crlf=st.booleans(), final=st.booleans(), body=st.text(max_size=30))
def test_bytes_outside_the_block_never_change(lines: list[str], crlf: bool, final: bool, body: str) -> None:
    newline = "\r\n" if crlf else "\n"
    text = newline.join(lines) + (newline if final and lines else "")
    d = Document.parse(text)
    for block_id in ["a", "b", "one", "two", "three", "setext"]:
        block = d.resolve(block_id)
        if block is None:
            continue
        new = d.splice_block(block, body.replace("\r", ""))
        keep_start = sum(len(line) + 1 for line in d.lines[: block.start + block.head])
        tail = d.lines[min(block.end, len(d.lines)) :]
        tail_text = "\n".join(tail)
        assert new.startswith(text[:keep_start])
        assert new.endswith(tail_text)
        assert Document.parse(new).resolve(block_id) is not None or block.kind == "heading"


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(LINE, max_size=30), crlf=st.booleans(), body=st.lists(LINE, max_size=6))
def test_incremental_index_equals_a_full_rebuild(lines: list[str], crlf: bool, body: list[str]) -> None:
    newline = "\r\n" if crlf else "\n"
    d = Document.parse(newline.join(lines) + newline)
    for block_id in ["a", "b", "one", "two", "three", "setext"]:
        block = d.resolve(block_id)
        if block is None:
            continue
        edited = d.edit_block(block, "\n".join(body))
        assert edited.text == d.splice_block(block, "\n".join(body))
        assert edited.index == build_index(edited.text)


def test_incremental_index_on_a_large_document_touches_only_the_region() -> None:
    text = "---\ntitle: T\n---\n" + "".join(
        f"## S{i}\n\ntext [@s{i} x](./x.md)\n\n```\n# c\n```\n\n" for i in range(300)
    )
    d = Document.parse(text)
    edited = d.edit_block(d.resolve("s150"), "```\nunclosed fence swallows the rest\n")
    assert edited.index == build_index(edited.text)
    edited = d.edit_block(d.resolve("s150"), "new [@n y](./y.md)\n<!-- #m -->\nm\n<!-- /m -->\n")
    assert edited.index == build_index(edited.text)
    assert edited.resolve("m") is not None and edited.resolve("s299") is not None
