"""Distinct heading ids in the document index: numbering, Unicode spellings, ambiguity, and that
the incremental index after a block edit names headings as a full rebuild does."""

from __future__ import annotations

from stringsh.render.blockids import capped, near_first, number_slugs
from stringsh.render.document import Document
from stringsh.render.index import DocIndex, build_index


def test_numbering_is_githubs_and_skips_ids_that_exist() -> None:
    assert number_slugs(["a", "b", "a", "a-1", "a", ""], set()) == (
        ["a-0", "b", "a-2", "a-1", "a-3", ""],
        {"a-0": [0], "b": [1], "a-2": [2], "a-1": [3], "a-3": [4], "a": [0, 2, 4]},
    )
    # a slug that a marker or explicit id already has is numbered from -1 and has no bare name of its own
    assert number_slugs(["tip", "tip"], {"tip"}) == (["tip-1", "tip-2"], {"tip-1": [0], "tip-2": [1]})
    # `a-0` taken by a real heading: the first keeps the bare (ambiguous) slug
    assert number_slugs(["a", "a-0", "a"], set())[0] == ["a", "a-0", "a-1"]


def test_ids_names_and_ambiguity_of_an_index() -> None:
    index = build_index("# T {#top}\n\n## Säction\n\n## Säction\n\n<!-- #m -->\nx\n<!-- /m -->\n\n## M\n")
    assert index.heading_ids == ["top", "sction-0", "sction-1", "m-1"]
    assert index.block_ids() == ["top", "sction-0", "sction-1", "m", "m-1"]
    assert index.ambiguity("sction") == [("sction-0", 3), ("sction-1", 5)]
    assert index.ambiguity("säction") == [("sction-0", 3), ("sction-1", 5)]  # named by the ids listed
    assert index.ambiguity("sction-1") == index.ambiguity("m") == index.ambiguity("top") == []
    def lines(block_id: str) -> tuple[int, int] | None:
        block = index.resolve(block_id)
        return None if block is None else (block.start, block.end)

    assert lines("säction-1") == lines("sction-1") == (4, 10)
    assert lines("sction") == lines("sction-0") == (2, 4)  # String's first match (includes resolve so)
    assert index.ambiguity("nosuch") == [] and index.resolve("nosuch") is None


def test_a_block_edit_renames_headings_as_a_rebuild_does() -> None:
    text = "# A\n\n## Changes\n\none\n\n## B\n\ntwo\n\n## Changes\n\nthree\n"
    doc = Document.parse(text)
    edited = doc.edit_block(doc.resolve("b"), "two\n\n### Changes\n\nnew")
    rebuilt = build_index(edited.text)
    assert edited.index.heading_ids == rebuilt.heading_ids == ["a", "changes-0", "b", "changes-1", "changes-2"]
    assert edited.index.heading_names == rebuilt.heading_names
    assert DocIndex.from_tuple(rebuilt.to_tuple()) == rebuilt


def test_capped_lists_and_near_ids() -> None:
    assert capped(["a", "b"], 2) == "a, b"
    assert capped(["a", "b", "c"], 2) == "a, b … and 1 more"
    assert near_first(["x", "changes-0", "y", "changelog"], "changes-9") == ["changes-0", "changelog", "x", "y"]
    assert near_first(["x"], "-1") == ["x"]
