"""The repository explains itself: no comment, docstring, help page, test or benchmark points at a file a maintainer
who clones it does not have (the project's private notes and spec copies) or at a tracker's issue number. Where
another tool's behaviour matters, docs/ says it in our own words and the code points there.

The pattern is written so that its own source text does not match it: this file is scanned like every other.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("stringsh", "tests", "bench", "docs", "README.md", "pyproject.toml", ".ci")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".json", ".sh", ""}

#: Notes that live outside the repository, spec copies by number, and issue numbers (the word, then a number).
OUTSIDE = re.compile(
    r"\b(?:anchors|upstream|DESIGN|TOUR)\.md\b"
    r"|research-ecosyste[m]"
    r"|\bseeds/"
    r"|\b[Ss]eed ?0[0-9]{2}\b"
    r"|\b[Ii]ssue ?#?[0-9]+"
)


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [
                p for p in sorted(path.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts and p.suffix in TEXT_SUFFIXES
            ]
    return files


def test_the_pattern_finds_each_kind_of_outside_reference() -> None:
    found = [
        text for text in (
            "see anchors" + ".md §8", "upstream" + ".md §1.6", "DESIGN" + ".md §5", "research-" + "ecosystem §6",
            "shared/seeds" + "/000.txt", "seed" + " 004's API", "Seed" + " 001 scenarios", "issue" + " 11",
            "Issue" + " 13 item 7", "issue" + " #10",
        )
        if OUTSIDE.search(text)
    ]
    assert len(found) == 10
    assert not OUTSIDE.search("docs/change-sets.md, the issues of a tracker, 2 seeds, reissue 4")


def test_no_file_points_outside_the_repository() -> None:
    files = scanned_files()
    assert Path(__file__).resolve() in files  # this file is scanned too
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert hits == []
