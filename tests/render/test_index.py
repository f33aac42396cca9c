"""Block resolution on tricky documents: markers, explicit ids, String's slugs, extents, warnings."""

from __future__ import annotations

import pytest

from stringsh.render.document import Document
from stringsh.render.index import DocIndex
from stringsh.render.slug import explicit_heading_id, string_slug
from tests.render.corpus import TRICKY


def doc(name: str) -> Document:
    return Document.parse(TRICKY[name])


def source(d: Document, block_id: str) -> str | None:
    block = d.resolve(block_id)
    return None if block is None else d.block_source(block)


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Quick Start", "quick-start"),
        ("What's new?", "whats-new"),
        ("C++ & Rust", "c-rust"),  # whitespace runs collapse, unlike GitHub
        ("  Spaced   out  ", "spaced-out"),
        ("snake_case_id", "snake_case_id"),
        ("Café Über", "caf-ber"),  # String's \w is ASCII: accented letters are dropped
        ("日本語", ""),
        ("Title {#custom}", "title-custom"),
        ("tab\tseparated", "tab-separated"),
    ],
)
def test_string_slug(text: str, slug: str) -> None:
    assert string_slug(text) == slug


def test_explicit_heading_ids() -> None:
    assert explicit_heading_id("Intro {#start}") == "start"
    assert explicit_heading_id("Deep []{#deep_1}") == "deep_1"
    assert explicit_heading_id("No id") is None


def test_setext_headings_are_blocks_with_extents() -> None:
    d = doc("setext")
    assert source(d, "title") == "Title\n=====\n\nintro\n\nPart two\n--------\n\ntext\n\nPart three\n---"
    assert source(d, "part-two") == "Part two\n--------\n\ntext"
    assert source(d, "part-three") == "Part three\n---"


def test_headings_inside_fences_and_html_are_not_blocks() -> None:
    d = doc("fenced_heading")
    assert d.resolve("not-a-heading") is None
    assert d.resolve("also-not") is None
    assert d.resolve("fake") is None  # a marker inside a fence is an example, not a block
    assert (
        source(d, "real")
        == "# Real\n\n```md\n# Not a heading\n<!-- #fake -->\n```\n\n~~~~\n## Also not\n~~~~\n\n## Second"
    )
    assert source(d, "second") == "## Second"
    h = doc("html_heading")
    assert h.resolve("inside-html") is None
    assert h.resolve("inside-comment") is None
    assert source(h, "after") == "## After"


def test_nested_markers_are_each_addressable() -> None:
    d = doc("nested_markers")
    assert source(d, "outer") == "A\n<!-- #inner -->\nB\n<!-- /inner -->\nC"
    assert source(d, "inner") == "B"
    assert d.index.warnings == []
    assert d.index.block_ids() == ["outer", "inner"]


def test_unclosed_and_stray_markers_are_warnings() -> None:
    d = doc("unclosed")
    assert d.resolve("open") is None
    assert d.index.warnings == [
        "line 6: <!-- /stray --> has no opening <!-- #stray -->",
        "line 1: block #open is not closed (add <!-- /open -->)",
    ]
    assert source(d, "heading") == "# Heading\n\n<!-- /stray -->"


def test_duplicates_first_wins() -> None:
    d = doc("duplicate")
    assert source(d, "a") == "one"
    assert d.index.warnings == ["line 4: duplicate block id #a (the first one is used)"]
    assert source(d, "same") == "## Same\n\nfirst"


def test_duplicate_explicit_heading_id_is_a_warning() -> None:
    d = Document.parse("# A {#x}\n\n# B {#x}\n")
    assert source(d, "x") == "# A {#x}"
    assert d.index.warnings == ["line 3: duplicate heading id {#x} (line 1 wins)"]


def test_crlf_file() -> None:
    d = doc("crlf")
    assert source(d, "m") == "marked"
    assert source(d, "one") == "# One\n\nfirst\n\n<!-- #m -->\nmarked\n<!-- /m -->\n\n## Two\n\nsecond"
    assert source(d, "two") == "## Two\n\nsecond"


def test_front_matter() -> None:
    d = doc("front_matter")
    assert d.index.front_matter == {"title": "Demo Doc", "default": "status", "requires": ["API_KEY", "REGION"]}
    assert d.index.title == "Demo Doc"
    assert d.index.front_matter_end == 7
    assert source(d, "demo") == "# Demo\n\nbody"


def test_unicode_headings_use_strings_slug() -> None:
    d = doc("unicode")
    assert source(d, "caf-ber") == "# Café Über\n\nx\n\n## 日本語\n\ny\n\n## Ünïcödé & Friends!\n\nz"
    assert source(d, "ncd-friends") == "## Ünïcödé & Friends!\n\nz"


def test_resolution_order_markers_then_explicit_then_slug() -> None:
    text = "# setup\n\nslug one\n\n# Other {#setup}\n\nexplicit\n\n<!-- #setup -->\nmarker\n<!-- /setup -->\n"
    d = Document.parse(text)
    assert source(d, "setup") == "marker"
    d = Document.parse(text.split("<!--")[0])
    assert source(d, "setup") == "# Other {#setup}\n\nexplicit"


def test_explicit_ids_and_nested_heading_extents() -> None:
    d = doc("explicit_ids")
    assert source(d, "start").startswith("# Intro {#start}") and source(d, "start").endswith("## Next")
    assert source(d, "deep") == "## Deep Dive []{#deep}\n\nmore\n\n### Child\n\nc"
    assert source(d, "child") == "### Child\n\nc"
    assert d.index.block_ids() == ["start", "deep", "child", "next"]


def test_headings_in_lists_quotes_and_indented_code() -> None:
    d = doc("list_heading")
    assert source(d, "real-heading") == (
        "# real heading\n\n- a\n\n      # code in list\n\n  ```\n  # fenced in list\n  ```\n\n## End"
    )
    assert d.resolve("fenced-in-list") is None
    assert doc("indented_code").resolve("indented-code-not-a-heading") is None
    assert doc("blockquote").resolve("quoted-heading") is None
    assert source(doc("table"), "after-table") == "# After table"


def test_sfmd_extraction_for_nav_and_actions() -> None:
    text = (
        "[!nav:main](./nav/main.md)\n[!menu:old](./old.md)\n[!include:tip](./tips.md)\n[!requirements](./setup.md)\n"
        "See [@home Home](./index.md) and [@home Again](./b.md).\n\n[ref]: https://example.com\n\n"
        "```act.deploy\nPOST https://api.example.com/deploy\n  env: string (required)\n```\n\n"
        "```act.deploy.response\nok\n```\n\n```act.broken\nnot a method\n```\n\n"
        "```md\n[!nav:fake](./x.md)\n[@fake Fake](./f.md)\n```\n"
    )
    index = Document.parse(text).index
    assert index.menus == [("main", "./nav/main.md", 0), ("old", "./old.md", 1)]
    assert index.includes == [("tip", "./tips.md", 2)]
    assert index.requirements == "./setup.md"
    assert index.shortcuts == [("home", "Home", "./index.md", 4), ("home2", "Again", "./b.md", 4)]
    assert index.references == {"ref": "https://example.com"}
    assert [(a[0], a[1], a[2]) for a in index.actions] == [("deploy", "POST", "https://api.example.com/deploy")]


def test_index_round_trips_through_plain_tuples() -> None:
    index = doc("front_matter").index
    assert DocIndex.from_tuple(index.to_tuple()) == index
    with pytest.raises(ValueError):
        DocIndex.from_tuple((999,))


def test_empty_and_odd_documents() -> None:
    for text in ["", "\n", "\r\n", "#", "---\n", "<!--", "```", "\x00\x01", "# \u2028 x", "\t# tab"]:
        d = Document.parse(text)
        assert d.resolve("anything") is None
        d.index.block_ids()


def test_no_front_matter_means_no_keys() -> None:
    d = Document.parse("# Title\n\ndefault: not front matter\ntitle: nor this\n")
    assert d.index.front_matter == {} and d.index.title == ""
    assert Document.parse("---\nnot closed: x\n").index.front_matter == {}
