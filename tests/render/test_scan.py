"""The line scanner against markdown-it-py's token maps: the CommonMark spec examples and real documents."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from stringsh.render.scan import atx_heading, front_matter_end, scan
from tests.render.corpus import TRICKY
from tests.render.reference import reference_structure

EXAMPLES = json.loads((Path(__file__).parent / "data" / "commonmark-examples.json").read_text(encoding="utf-8"))


def structure(text: str) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]], int]:
    found = scan(text.split("\n"))
    headings = [(line, end, level) for line, end, level, _ in found.headings]
    return headings, sorted((start, end) for start, end, _, _ in found.fences), found.front_matter_end


def reference(text: str) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]], int]:
    headings, fences, front = reference_structure(text)
    return headings, sorted(fences), front


def test_every_commonmark_example_agrees_with_markdown_it() -> None:
    mismatches = [e["example"] for e in EXAMPLES if structure(e["markdown"]) != reference(e["markdown"])]
    assert mismatches == []


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_documents_agree_with_markdown_it(name: str) -> None:
    text = TRICKY[name].replace("\r\n", "\n")
    assert structure(text) == reference(text)


def installed_markdown() -> list[Path]:
    """Markdown files shipped by installed packages (READMEs, licences, docs): real documents on every machine."""
    roots = {Path(p) for p in sys.path if p.endswith("site-packages")}
    files = sorted(f for root in roots for f in root.rglob("*.md") if f.stat().st_size > 500)
    return files[:150]


def test_installed_markdown_files_agree_with_markdown_it() -> None:
    files = installed_markdown()
    assert files, "no markdown files found in site-packages"
    bad = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        if structure(text) != reference(text):
            bad.append(str(path))
    assert bad == []


def test_atx_heading_forms() -> None:
    assert atx_heading("# Title") == (1, "Title")
    assert atx_heading("###### six") == (6, "six")
    assert atx_heading("####### seven") is None
    assert atx_heading("#hashtag") is None
    assert atx_heading("## Closed ##") == (2, "Closed")
    assert atx_heading("# C#") == (1, "C#")
    assert atx_heading("#") == (1, "")
    assert atx_heading("### ###") == (3, "")


def test_front_matter_needs_a_closing_line() -> None:
    assert front_matter_end(["---", "a: 1", "---", "x"]) == 3
    assert front_matter_end(["---", "a: 1", "..."]) == 3
    assert front_matter_end(["---", "a: 1"]) == 0
    assert front_matter_end(["text", "---"]) == 0
    assert front_matter_end([]) == 0


def test_unclosed_fence_runs_to_the_end() -> None:
    found = scan(["```", "# not", "text", ""])
    assert found.headings == []
    assert [(s, e) for s, e, _, _ in found.fences] == [(0, 3)]


def test_a_table_ends_at_a_thematic_break_and_is_no_setext_heading() -> None:
    for delimiter in ("|---|---|", ":--|--:"):
        text = f"## A\n\n| a | b |\n{delimiter}\n| 1 | 2 |\n---\n\n## B\n"
        assert structure(text) == reference(text) == ([(0, 1, 2), (7, 8, 2)], [], 0)


def test_only_a_list_starting_at_1_interrupts_a_paragraph() -> None:
    text = "Some text\n10. ten\n===\n\nPara\n1. one\n===\n"
    assert structure(text) == reference(text) == ([(0, 3, 1)], [], 0)
    text = "+ item\n10. ends the item, not its paragraph\n  ## Heading\n"  # any marker ends an item left of it
    assert structure(text) == reference(text) == ([(2, 3, 2)], [], 0)
