"""Blocks are discoverable (replies list the ids), unambiguous (a bare id several headings share
is refused) and addressable (repeated headings get distinct ids; the Unicode spelling of a slug resolves).

Through the real program: `stringsh -c` and `stringsh run`."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.conftest import run_stringsh

README = """# Project

Intro.

## Install

Run it.

## Säction

Umlaut.

## Unicode ünïcödé 日本語

Mixed.

## 日本語

Only letters String drops.
"""

CHANGELOG = "# Changelog\n\n" + "".join(f"## v{v}\n\n### Changes\n\n- item {v}\n\n" for v in range(34, 0, -1))

RELEASES = """# Releases

## One

### Changes

first

## Two

### Changes

second

## Changes 1

a heading of its own

<!-- #tip -->
marked
<!-- /tip -->

## Tip

the heading
"""


def one(ws: Path, request: str) -> tuple[int, str]:
    """(exit status, reply) of `stringsh -c request`."""
    done = run_stringsh(["-c", request], ws)
    return done.returncode, done.stdout.decode()


def script(ws: Path, text: str) -> tuple[int, str]:
    (ws / "requests.txt").write_text(text)
    done = run_stringsh(["run", "--keep-going", "requests.txt"], ws)
    return done.returncode, done.stdout.decode()


def test_missing_block_lists_the_heading_ids(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    assert one(ws, "/open README.md#nosuch") == (1, (
        "re: /open README.md#nosuch\n"
        "ERROR(BLOCK_NOT_FOUND): Block not found: #nosuch in README.md\n"
        "Available blocks: project, install, sction, unicode-ncd, 日本語\n"
    ))


def test_info_lists_the_heading_ids(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    status, out = script(ws, "/open README.md\n/info\n")
    assert status == 0
    assert "\nfile:      README.md\nblocks:    project, install, sction, unicode-ncd, 日本語\nhistory:" in out


def test_a_document_without_blocks_still_says_so(ws: Path) -> None:
    (ws / "plain.md").write_text("Just text, no headings.\n")
    assert one(ws, "/open plain.md#x") == (1, (
        "re: /open plain.md#x\nERROR(BLOCK_NOT_FOUND): Block not found: #x in plain.md\nThis document has no blocks.\n"
    ))
    assert "\nblocks:    (none)\n" in script(ws, "/open plain.md\n/info\n")[1]


def test_long_lists_are_capped_with_a_count_and_near_ids_first(ws: Path) -> None:
    (ws / "CHANGELOG.md").write_text(CHANGELOG)
    assert one(ws, "/open CHANGELOG.md#nosuch")[1] == (
        "re: /open CHANGELOG.md#nosuch\n"
        "ERROR(BLOCK_NOT_FOUND): Block not found: #nosuch in CHANGELOG.md\n"
        "Available blocks: changelog, v34, changes-0, v33, changes-1, v32, changes-2, v31, changes-3, v30, changes-4, "
        "v29, changes-5, v28, changes-6, v27, changes-7, v26, changes-8, v25 … and 49 more. "
        "A heading's id is its slug (## Quick Start is #quick-start): /help open\n"
    )
    assert one(ws, "/open CHANGELOG.md#changes-99")[1] == (
        "re: /open CHANGELOG.md#changes-99\n"
        "ERROR(BLOCK_NOT_FOUND): Block not found: #changes-99 in CHANGELOG.md\n"
        "Available blocks: changelog, " + ", ".join(f"changes-{n}" for n in range(19))
        + " … and 49 more. A heading's id is its slug (## Quick Start is #quick-start): /help open\n"
    )
    out = script(ws, "/open CHANGELOG.md\n/info\n")[1]
    assert (
        "\nblocks:    changelog, v34, changes-0, v33, changes-1, v32, changes-2, v31, changes-3, v30, changes-4, v29, "
        "changes-5, v28, changes-6, v27, changes-7, v26, changes-8, v25 … and 49 more "
        "(a heading's id is its slug: /help open)\n"
    ) in out


def test_every_repeated_heading_is_addressable(ws: Path) -> None:
    (ws / "CHANGELOG.md").write_text(CHANGELOG)
    assert one(ws, "/open CHANGELOG.md#changes-0") == (0, (
        "re: /open CHANGELOG.md#changes-0\nOpened CHANGELOG.md#changes-0\n---\n### Changes\n\n- item 34\n"
    ))
    assert one(ws, "/open CHANGELOG.md#changes-1") == (0, (
        "re: /open CHANGELOG.md#changes-1\nOpened CHANGELOG.md#changes-1\n---\n### Changes\n\n- item 33\n"
    ))
    assert one(ws, "/open CHANGELOG.md#changes-33")[1].endswith("---\n### Changes\n\n- item 1\n")


def test_string_ids_keep_their_meaning_and_numbering_skips_them(ws: Path) -> None:
    """`## Changes 1` is `#changes-1` in String, so the second `### Changes` is `#changes-2`; a heading that a
    marker's id shadows (`<!-- #tip -->` before `## Tip`) is `#tip-1`."""
    (ws / "releases.md").write_text(RELEASES)
    assert one(ws, "/open releases.md#changes-1")[1].endswith("---\n## Changes 1\n\na heading of its own\n\nmarked\n")
    assert one(ws, "/open releases.md#changes-2")[1].endswith("---\n### Changes\n\nsecond\n")
    assert one(ws, "/open releases.md#tip")[1].endswith("---\nmarked\n")
    assert one(ws, "/open releases.md#tip-1")[1].endswith("---\n## Tip\n\nthe heading\n")
    assert one(ws, "/open releases.md#x")[1].endswith(
        "Available blocks: releases, one, changes-0, two, changes-2, changes-1, tip, tip-1\n"
    )


def test_a_bare_repeated_id_is_refused_by_every_command(ws: Path) -> None:
    (ws / "releases.md").write_text(RELEASES)
    before = (ws / "releases.md").read_bytes()
    refusal = (
        "ERROR(AMBIGUOUS_BLOCK): #changes names 2 headings in releases.md; nothing was done.\n"
        "Name one: #changes-0 (line 5), #changes-2 (line 11)\n"
    )
    for request in ("/open releases.md#changes", "/edit releases.md#changes", "/verify releases.md#changes"):
        assert one(ws, request) == (1, f"re: {request}\n{refusal}")
    status, out = script(ws, "/edit releases.md#changes <<EOF\nreplaced\nEOF\n/open releases.md\n/open #changes\n")
    assert status == 1
    assert out.startswith(f"re: /edit releases.md#changes\n{refusal}re: /open releases.md\nOpened releases.md\n")
    assert out.endswith(f"re: /open #changes\n{refusal}")
    assert (ws / "releases.md").read_bytes() == before


def test_edit_by_distinct_id_changes_that_heading_only(ws: Path) -> None:
    (ws / "releases.md").write_text(RELEASES)
    status, out = script(ws, "/edit releases.md#changes-2 <<EOF\nsecond, edited\nEOF\n/open releases.md#changes-2\n")
    assert status == 0
    assert out.startswith("re: /edit releases.md#changes-2\nEdited releases.md#changes-2 (")  # its counts: /help edit
    assert out.endswith(
        "re: /open releases.md#changes-2\nOpened releases.md#changes-2\n---\n### Changes\n\nsecond, edited\n"
    )
    assert (ws / "releases.md").read_text() == RELEASES.replace("second\n", "second, edited\n")


def test_the_unicode_spelling_resolves_as_well_as_strings_slug(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    for block in ("sction", "säction", unicodedata.normalize("NFD", "säction"), "s%C3%A4ction"):
        assert one(ws, f"/open README.md#{block}") == (0, (
            f"re: /open README.md#{block}\nOpened README.md#{block}\n---\n## Säction\n\nUmlaut.\n"
        ))
    for block in ("unicode-ncd", "unicode-ünïcödé-日本語"):
        assert one(ws, f"/open README.md#{block}")[1].endswith("---\n## Unicode ünïcödé 日本語\n\nMixed.\n")
    assert one(ws, "/open README.md#日本語")[1].endswith("---\n## 日本語\n\nOnly letters String drops.\n")


def test_bad_ids_are_not_found_and_change_nothing(ws: Path) -> None:
    (ws / "releases.md").write_text(RELEASES)
    before = (ws / "releases.md").read_bytes()
    ids = "Available blocks: releases, one, changes-0, two, changes-2, changes-1, tip, tip-1"
    meant = {"changes--1": "Did you mean #changes-1? "}  # one id a single edit away, not a tie
    for block in ("changes-", "changes--1", "-1", "CHANGES", "changes-3", "one-0", "Säction", "changes-02"):
        assert one(ws, f"/open releases.md#{block}") == (1, (
            f"re: /open releases.md#{block}\n"
            f"ERROR(BLOCK_NOT_FOUND): Block not found: #{block} in releases.md\n{meant.get(block, '')}{ids}\n"
        ))
    status, out = script(ws, "/edit releases.md#changes-9 <<EOF\nx\nEOF\n/info\n")
    assert status == 1
    assert out.startswith(
        "re: /edit releases.md#changes-9\n"
        f"ERROR(BLOCK_NOT_FOUND): Block not found: #changes-9 in releases.md\n{ids}\nre: /info\nSession info\n"
    )
    assert (ws / "releases.md").read_bytes() == before


def test_help_says_the_rule(ws: Path) -> None:
    status, out = one(ws, "/help open")
    assert status == 0
    flat = " ".join(out.split())
    for sentence in (
        "Repeated headings get distinct ids, GitHub's way: the second `### Changes` is `#changes-1`, the third "
        "`#changes-2`, skipping an id another block already has",
        "the first is `#changes-0`. The bare `#changes` is then ambiguous: `/open`, `/edit` and `/verify` refuse it "
        "(`AMBIGUOUS_BLOCK`)",
        "the Unicode spelling is accepted as well (`#säction`, `#unicode-ünïcödé-日本語`",
    ):
        assert sentence in flat
    assert "AMBIGUOUS_BLOCK" in one(ws, "/help errors")[1]
