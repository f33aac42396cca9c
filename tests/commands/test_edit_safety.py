"""An /edit must not damage what the agent did not mean to touch (the real program, `stringsh run`
with heredoc bodies; exact replies and exact bytes)."""

from __future__ import annotations

import os
from pathlib import Path

from stringsh.dispatcher import Dispatcher
from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

GUIDE = """# Guide

Intro with [a link](https://example.com/one) and [are a descendant](https://example.com/desc).
See [the manual of this guide](https://example.com/manual) and [docs](https://example.com/old-docs).

## Example

Some example.

### Nested

Nested text.

<!-- #tip -->
A tip.
<!-- /tip -->

## Setup

Run [the setup script right now](https://example.com/two) or [docs](https://example.com/docs).

## Tail

End.
"""


def run(ws: Path, script: str) -> list[str]:
    """The replies of a script run to the end, each without its trailing newline."""
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin=script)
    assert b"Traceback" not in proc.stderr + proc.stdout, proc.stderr.decode()
    return split_replies(proc.stdout.decode())


def guide(ws: Path) -> bytes:
    (ws / "g.md").write_text(GUIDE)
    return GUIDE.encode()


def test_an_unclosed_fence_is_refused_and_later_blocks_still_resolve(ws: Path) -> None:
    before = guide(ws)
    replies = run(ws, "/edit g.md#example <<EOF\n```\nunclosed\nEOF\n/open g.md#tail\n")
    assert replies == [
        "re: /edit g.md#example\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit g.md#example: the body leaves a code fence open "
        "(body line 1: ```), so the rest of the file would become code.\n"
        "Close the fence inside the body with a matching ``` line. Nothing was written.",
        "re: /open g.md#tail\nOpened g.md#tail\n---\n## Tail\n\nEnd.",
    ]
    assert (ws / "g.md").read_bytes() == before


def test_a_fence_in_a_marker_block_that_hides_its_end_marker_is_refused(ws: Path) -> None:
    before = guide(ws)
    replies = run(ws, "/edit g.md#tip <<EOF\n~~~\nEOF\n")
    assert replies == [
        "re: /edit g.md#tip\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit g.md#tip: with this text the block would no longer resolve.\n"
        "Check the body for an unclosed ``` fence or a block marker; nothing was written."
    ]
    assert (ws / "g.md").read_bytes() == before


def test_the_reply_counts_the_lines_and_names_the_nested_blocks_that_went(ws: Path) -> None:
    guide(ws)
    replies = run(ws, "/edit g.md#example <<EOF\nNew example.\nEOF\n/edit g.md#setup <<EOF\none\ntwo\nEOF\n")
    assert replies == [
        "re: /edit g.md#example\nEdited g.md#example (16 lines): 9 lines replaced by 1 line; "
        "removed with them: #nested (### Nested), #tip (marker block)",
        "re: /edit g.md#setup\nEdited g.md#setup (17 lines): 1 line replaced by 2 lines",
    ]
    assert (ws / "g.md").read_text() == GUIDE.replace(
        "Some example.\n\n### Nested\n\nNested text.\n\n<!-- #tip -->\nA tip.\n<!-- /tip -->", "New example."
    ).replace("Run [the setup script right now](https://example.com/two) or [docs](https://example.com/docs).",
              "one\ntwo")


def test_an_empty_body_needs_force(ws: Path) -> None:
    before = guide(ws)
    script = "/edit g.md#tail <<EOF\nEOF\n/edit g.md#tail <<EOF\n\n  \nEOF\n/edit g.md\n/edit g.md <<EOF\nEOF\n"
    replies = run(ws, script)
    refusal = (
        "ERROR(INVALID_PAYLOAD): Refusing to empty {0}: the body is empty.\n"
        "To empty it on purpose, send the empty body again with --force: /edit --force {0}. Nothing was written."
    )
    assert replies[0] == "re: /edit g.md#tail\n" + refusal.format("g.md#tail")
    assert replies[1] == "re: /edit g.md#tail\n" + refusal.format("g.md#tail")
    assert replies[3] == "re: /edit g.md\n" + refusal.format("g.md")
    assert (ws / "g.md").read_bytes() == before
    assert run(ws, "/edit --force g.md#tail <<EOF\nEOF\n") == [
        "re: /edit --force g.md#tail\nEdited g.md#tail (23 lines): 1 line replaced by 0 lines"
    ]
    assert (ws / "g.md").read_text() == GUIDE.replace("## Tail\n\nEnd.\n", "## Tail\n\n")


def test_a_body_that_repeats_the_shown_heading_does_not_write_it_twice(ws: Path) -> None:
    guide(ws)
    replies = run(ws, "/edit g.md#tail\n/edit g.md#tail <<EOF\n## Tail\n\nThe end.\nEOF\n/edit g.md#tail\n")
    n = GUIDE.split("\n").index("## Tail") + 1  # numbered as the file's lines
    assert replies[0] == (
        f"re: /edit g.md#tail\n[editing: g.md#tail]\n---\n{n} | ## Tail\n{n + 1} | \n{n + 2} | End.\n\n(3 lines)"
    )
    assert replies[1] == "re: /edit g.md#tail\nEdited g.md#tail (24 lines): 1 line replaced by 1 line"
    assert replies[2] == (
        f"re: /edit g.md#tail\n[editing: g.md#tail]\n---\n{n} | ## Tail\n{n + 1} | \n{n + 2} | The end.\n\n(3 lines)"
    )
    assert (ws / "g.md").read_text() == GUIDE.replace("End.", "The end.")


def test_a_body_starting_with_another_heading_of_that_level_is_refused(ws: Path) -> None:
    before = guide(ws)
    replies = run(ws, "/edit g.md#tail <<EOF\n## Ending\n\nThe end.\nEOF\n/edit g.md#example <<EOF\n# Top\nEOF\n")
    assert replies == [
        "re: /edit g.md#tail\n"
        'ERROR(INVALID_PAYLOAD): Refusing to edit g.md#tail: the body starts with the heading "## Ending", '
        'not this block\'s "## Tail".\n'
        "Start the body with ## Tail exactly, or leave the heading out (it stays); to rename the heading, edit the "
        "whole file (/edit g.md). Nothing was written.",
        "re: /edit g.md#example\n"
        'ERROR(INVALID_PAYLOAD): Refusing to edit g.md#example: the body starts with the heading "# Top", '
        'not this block\'s "## Example".\n'
        "Start the body with ## Example exactly, or leave the heading out (it stays); to rename the heading, edit "
        "the whole file (/edit g.md). Nothing was written.",
    ]
    assert (ws / "g.md").read_bytes() == before
    # A deeper heading at the start is content: a new nested section.
    assert run(ws, "/edit g.md#tail <<EOF\n### Sub\n\nx\nEOF\n") == [
        "re: /edit g.md#tail\nEdited g.md#tail (26 lines): 1 line replaced by 3 lines"
    ]


def test_crlf_bom_heading_block_round_trip_keeps_every_other_byte(ws: Path) -> None:
    raw = "\ufeff# T\r\n\r\nkeep\r\n\r\n## Part\r\n\r\nold\r\n\r\n### Deep\r\n\r\ngone\r\n\r\n## Tail\r\nend".encode()
    (ws / "w.md").write_bytes(raw)
    replies = run(ws, "/edit w.md#part <<EOF\n## Part\n\nnew 1\nnew 2\nEOF\n")
    assert replies == [
        "re: /edit w.md#part\nEdited w.md#part (11 lines): 5 lines replaced by 2 lines; "
        "removed with them: #deep (### Deep)"
    ]
    assert (ws / "w.md").read_bytes() == raw.replace(b"old\r\n\r\n### Deep\r\n\r\ngone", b"new 1\r\nnew 2")


def test_link_ids_are_the_documents_in_every_view(ws: Path) -> None:
    guide(ws)
    replies = run(ws, "/open g.md\n/open g.md#setup\n/open g.md --from 20\n")
    setup = "Run [the setup script right now][@link-2] or [docs][@docs-2]."
    assert replies[0].endswith(f"## Setup\n\n{setup}\n\n## Tail\n\nEnd.")
    assert "Intro with [a link][@a-link] and [are a descendant][@are-a-descendant]." in replies[0]
    assert replies[1] == f"re: /open g.md#setup\nOpened g.md#setup\n---\n## Setup\n\n{setup}"
    assert replies[2] == f"re: /open g.md --from 20\nOpened g.md\n---\n{setup}\n\n## Tail\n\nEnd."


def test_view_only_link_references_are_refused(ws: Path) -> None:
    before = guide(ws)
    copied = "## Setup\n\nRun [the setup script right now][@link-2] or [docs][@docs-2] and [@docs-2]."
    replies = run(ws, f"/edit g.md#setup <<EOF\n{copied}\nEOF\n/edit g.md\n/edit g.md <<EOF\n{copied}\nEOF\n")
    assert replies[0] == (
        "re: /edit g.md#setup\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit g.md#setup: the body has link references the file does not "
        "define: [@link-2], [@docs-2]. They are how /open shows links, not the file's text.\n"
        "Copy the text from the numbered source view (/edit g.md#setup), which has the real URLs. Nothing was written."
    )
    assert replies[2] == (
        "re: /edit g.md\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit g.md: the body has link references the file does not "
        "define: [@link-2], [@docs-2]. They are how /open shows links, not the file's text.\n"
        "Copy the text from the numbered source view (/edit g.md), which has the real URLs. Nothing was written."
    )
    assert (ws / "g.md").read_bytes() == before
    # Defined by the file, inside code, or an SFMD shortcut link: the file's own text, accepted.
    ok = "Run [it][@run] or `[x][@link-9]` or [@home Home](https://h.example).\n\n[@run]: https://example.com/two"
    assert run(ws, f"/edit g.md#setup <<EOF\n{ok}\nEOF\n") == [
        "re: /edit g.md#setup\nEdited g.md#setup (26 lines): 1 line replaced by 3 lines"
    ]


def test_whole_file_edit_keeps_the_files_final_newline_and_line_endings(ws: Path) -> None:
    (ws / "nf.txt").write_bytes(b"a\nb")
    (ws / "lf.md").write_bytes(b"x\ny\n")
    (ws / "crlf.txt").write_bytes(b"\xef\xbb\xbfp\r\nq\r\n")
    (ws / "w.str").write_bytes(
        b"/edit nf.txt\n/edit nf.txt <<EOF\na\nB\nEOF\n"
        b"/edit lf.md\n/edit lf.md <<EOF\r\nX\r\nY\r\nEOF\r\n"
        b"/edit crlf.txt\n/edit crlf.txt <<EOF\nP\nQ\nEOF\n"
    )
    proc = run_stringsh(["run", "w.str"], ws)
    assert [r.split("\n")[1] for r in split_replies(proc.stdout.decode())][1::2] == [
        "Edited nf.txt (2 lines, whole file)",
        "Edited lf.md (2 lines, whole file)",
        "Edited crlf.txt (2 lines, whole file)",
    ]
    assert (ws / "nf.txt").read_bytes() == b"a\nB"
    assert (ws / "lf.md").read_bytes() == b"X\nY\n"
    assert (ws / "crlf.txt").read_bytes() == b"\xef\xbb\xbfP\r\nQ\r\n"


def test_a_body_that_would_swallow_the_headings_after_it_is_refused(ws: Path) -> None:
    before = guide(ws)
    assert run(ws, "/edit g.md#example <<EOF\n<!--\nan HTML comment left open\nEOF\n") == [
        "re: /edit g.md#example\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit g.md#example: with this text the rest of the file would read "
        "differently (## Setup, ## Tail).\n"
        "Check the body for an unclosed ``` fence, a block marker or an HTML block left open. Nothing was written."
    ]
    assert (ws / "g.md").read_bytes() == before


def test_force_empties_a_whole_file(ws: Path) -> None:
    guide(ws)
    assert run(ws, "/edit --force g.md <<EOF\nEOF\n") == ["re: /edit --force g.md\nEdited g.md (0 lines, whole file)"]
    assert (ws / "g.md").read_bytes() == b""


def test_a_crlf_body_in_a_block_of_an_lf_bom_file_is_stored_with_lf(ws: Path) -> None:
    raw = "\ufeff# T\n\nkeep\n\n## Part\n\nold\n\n## Tail\nend".encode()
    (ws / "b.md").write_bytes(raw)
    (ws / "s.str").write_bytes(b"/edit b.md#part <<EOF\r\n## Part\r\n\r\nnew 1\r\nnew 2\r\nEOF\r\n")
    proc = run_stringsh(["run", "s.str"], ws)
    assert proc.stdout.decode() == "re: /edit b.md#part\nEdited b.md#part (11 lines): 1 line replaced by 2 lines\n"
    assert (ws / "b.md").read_bytes() == raw.replace(b"old", b"new 1\nnew 2")


def test_a_stray_end_marker_that_would_re_pair_an_outer_block_is_refused(ws: Path) -> None:
    raw = b"# G\n\n<!-- #wrap -->\n## A\n\nold\n\n## B\n\nkeep\n<!-- /wrap -->\n"
    (ws / "m.md").write_bytes(raw)
    assert run(ws, "/edit m.md#a <<EOF\nnew\n<!-- /wrap -->\nEOF\n") == [
        "re: /edit m.md#a\n"
        "ERROR(INVALID_PAYLOAD): Refusing to edit m.md#a: with this text the rest of the file would read "
        "differently (marker block #wrap).\n"
        "Check the body for an unclosed ``` fence, a block marker or an HTML block left open. Nothing was written."
    ]
    assert (ws / "m.md").read_bytes() == raw


def test_a_block_edit_on_a_file_changed_behind_the_views_back_splices_into_the_file_as_it_is(ws: Path) -> None:
    """Another program changed another block keeping the file's size and time (as `rsync -t` does), so the view
    looks current: under the lock the edit finds its block again in the file as it is and keeps that change."""
    guide(ws)
    path = ws / "g.md"
    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/open g.md").ok
        before = path.stat()
        path.write_text(GUIDE.replace("Some example.", "Same example."))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        mine = dispatcher.execute("/edit g.md#tail\nThe end.\n")
    finally:
        dispatcher.close()
    assert mine.ok, mine.text
    assert path.read_text() == GUIDE.replace("Some example.", "Same example.").replace("End.\n", "The end.\n")
