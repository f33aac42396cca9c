"""The README's examples run as printed, so the README cannot drift from the program.

Each fenced block of README.md is read like a doctest: a `$ stringsh …` line (with its here-document, if it opens
one) is run by the real bash in the tour's workspace, and the lines after it, up to the next `$ ` line, are its
output. Two conventions keep the examples readable: a line `…` stands for any number of lines, and the tour's
folder `/home/ana/notes` stands for the workspace's real path. Standard error is not part of the output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.gitrepo import git

ROOT = Path(__file__).resolve().parent.parent
TOUR_FOLDER = "/home/ana/notes"
ELLIPSIS = "…"

#: The tour's workspace: a git checkout holding `docs/` and a 14-line README.md with a `## Setup` section.
TOUR_README = (
    "# Notes\n\nA folder of notes.\n\n## Setup\n\nInstall the tools, then run `make`.\n\n"
    "## Usage\n\nRun `make` again after each change.\n\n## License\nMIT\n"
)


def examples(text: str) -> list[tuple[str, list[str]]]:
    """Every `$ stringsh` command of the README's fenced blocks, with the output printed under it."""
    found: list[tuple[str, list[str]]] = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```$", text, flags=re.M | re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ stringsh "):
                i += 1
                continue
            command = [lines[i][2:]]
            heredoc = re.search(r"<<'?(\w+)'?$", lines[i])
            i += 1
            if heredoc:
                while i < len(lines) and lines[i] != heredoc.group(1):
                    command.append(lines[i])
                    i += 1
                command.append(lines[i])
                i += 1
            output: list[str] = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            found.append(("\n".join(command), output))
    return found


def matches(expected: list[str], actual: list[str]) -> bool:
    """`expected` equals `actual`, where a line `…` matches any run of lines (even none)."""
    if not expected:
        return not actual
    if expected[0] == ELLIPSIS:
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def test_the_runner_reads_commands_outputs_and_ellipses() -> None:
    text = "```\n$ stringsh -c '/ls'\nre: /ls\n$ stringsh run - <<'S'\n/undo\nS\n…\nre: /undo\n```\n"
    assert examples(text) == [
        ("stringsh -c '/ls'", ["re: /ls"]),
        ("stringsh run - <<'S'\n/undo\nS", ["…", "re: /undo"]),
    ]
    assert matches(["…", "c"], ["a", "b", "c"]) and matches(["a", "…"], ["a"])
    assert not matches(["…", "c"], ["c", "d"]) and not matches(["a"], ["a", "b"])


@pytest.fixture
def tour(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text(TOUR_README)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "README.md")
    git(root, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "notes")
    return root


@pytest.mark.needs("git")
def test_every_readme_example_prints_what_the_readme_shows(tour: Path) -> None:
    found = examples((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(found) >= 3, "the README's tour has lost its examples"
    # The printed command runs as is; `stringsh` is this tree's program.
    prelude = f'stringsh() {{ "{sys.executable}" -m stringsh "$@"; }}\n'
    env = {**os.environ, "TERM": "dumb", "PYTHONPATH": str(ROOT)}
    for command, expected in found:
        done = subprocess.run(
            ["bash", "-c", prelude + command], cwd=tour, env=env, capture_output=True, text=True, timeout=60
        )
        actual = done.stdout.replace(str(tour), TOUR_FOLDER).splitlines()
        assert matches(expected, actual), f"README example:\n$ {command}\nprinted:\n{done.stdout}{done.stderr}"
