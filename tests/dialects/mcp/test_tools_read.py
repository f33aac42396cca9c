"""`grep` and `open` on `stringsh mcp` (real stdio, the SDK's client): /grep and /open run through the Dispatcher,
their replies exactly as `stringsh -c` prints them, refusals as isError, and arguments that try to become
something else (quotes, `{name}`, a leading `-`, a line break, ` <<EOF`) reaching the command as plain text."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import Client, stdio_session

GUIDE = "# Guide\n\n## Install\n\nsay \"hi\" it's {name} here\n-i flag\n\n## Use\n\nline a\nline b\nline c\n"
ONE_LINE = ("ERROR(INVALID_PAYLOAD): {name}: a line break or NUL byte in a one-line argument\n"
            "Give {name} on one line (a body goes in the tool's body argument).")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpread").resolve() / "ws"
    (folder / "src").mkdir(parents=True)
    (folder / "guide.md").write_text(GUIDE)
    (folder / "src" / "app.py").write_text("def main():\n    say(\"hi\")\n")
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="read-client", env=env) as session:
        # a session variable `{name}` would substitute in a typed request; the tools' arguments stay literal
        assert session.text("string", {"request": "/set name = SUBST"}) == 're: /set name = SUBST\n{name} = "SUBST"'
        yield session


def test_grep_quotes_braces_and_dashes_are_searched_as_given(client: Client) -> None:
    assert client.text("grep", {"pattern": "say \"hi\" it's {name}"}) == (
        "re: /grep -- 'say \"hi\" it'\"'\"'s {{name}}'\n"
        "Grep \"say \"hi\" it's {name}\" in ./: 1 match in 1 file\n---\n"
        "guide.md:5: say \"hi\" it's {name} here\n\n1 match in 1 file")
    assert client.text("grep", {"pattern": "-i"}) == (
        "re: /grep -- -i\nGrep \"-i\" in ./: 1 match in 1 file\n---\nguide.md:6: -i flag\n\n"
        "1 match in 1 file")


def test_grep_flags(client: Client) -> None:
    assert client.text("grep", {"pattern": r"def \w+", "regex": True, "glob": "*.py", "path": "src"}) == (
        "re: /grep --regex --glob '*.py' -- 'def \\w+' src\nGrep \"def \\w+\" in src/: 1 match in 1 file\n---\n"
        "src/app.py:1: def main():\n\n1 match in 1 file")
    assert client.text("grep", {"pattern": "HI", "ignoreCase": True, "context": 1, "maxResults": 1}) == (
        "re: /grep -i -C 1 --max 1 -- HI\nGrep \"HI\" in ./: 1 match in 1 file\n---\n"
        "guide.md-4- \nguide.md:5: say \"hi\" it's {name} here\nguide.md-6- -i flag\n\n"
        "1 match in 1 file\n"
        "Stopped after 1 results: narrow the search (a path, --glob) or set --max N.")


def test_grep_errors(client: Client) -> None:
    assert client.error("grep", {"pattern": "x", "path": "nope"}) == (
        "re: /grep -- x nope\nERROR(NOT_FOUND): File not found: nope\nlist_directory {\"path\": \".\"} shows what is "
        "there.")
    assert client.error("grep", {"pattern": "(a+)+", "regex": True}) == (
        "re: /grep --regex -- '(a+)+'\nERROR(INVALID_PAYLOAD): Regex not accepted (a repeat inside a repeat can "
        "take exponential time): (a+)+\nRepeat the group's parts instead of nesting repeats, e.g. (ab)+ rather than "
        "(a+b)+.")
    assert client.error("grep", {"pattern": "x", "context": 51}).startswith("ERROR(INVALID_PAYLOAD): grep: context")


def test_grep_path_injection(client: Client, root: Path) -> None:
    assert client.error("grep", {"pattern": "x", "path": "guide.md\n/rm guide.md"}) == ONE_LINE.format(name="path")
    assert client.error("grep", {"pattern": "a\nb"}) == ONE_LINE.format(name="pattern")
    assert client.error("grep", {"pattern": "x", "path": "guide.md <<EOF"}) == (
        "re: /grep -- x 'guide.md <<EOF'\nERROR(NOT_FOUND): File not found: guide.md <<EOF\n"
        'list_directory {"path": "."} shows what is there.')
    assert (root / "guide.md").read_text() == GUIDE


def test_open_a_block_and_a_window(client: Client) -> None:
    assert client.text("open", {"target": "guide.md#install"}) == (
        "re: /open -- guide.md#install\nOpened guide.md#install\n---\n## Install\n\nsay \"hi\" it's {name} here\n"
        "-i flag")
    assert client.text("open", {"target": "guide.md", "fromLine": 10, "toLine": 11}) == (
        "re: /open --from 10 --to 11 -- guide.md\nOpened guide.md\n---\nline a\nline b\n\n"
        "[--to 11] Shown up to line 11; the rest starts at source line 12 of 12. Read on: /open guide.md --from 12")
    assert client.text("open", {"target": "guide.md:L10-L11"}) == (
        "re: /open -- guide.md:L10-L11\nOpened guide.md:L10-L11\n---\n10 | line a\n11 | line b\n\n(lines 10-11 of 12)")


def test_open_errors_and_injection(client: Client, root: Path) -> None:
    assert client.error("open", {"target": "guide.md#nope"}) == (
        "re: /open -- guide.md#nope\nERROR(BLOCK_NOT_FOUND): Block not found: #nope in guide.md\n"
        "Available blocks: guide, install, use")
    assert client.error("open", {"target": "guide.md <<EOF"}) == (
        "re: /open -- 'guide.md <<EOF'\nERROR(NOT_FOUND): File not found: guide.md <<EOF\n"
        'list_directory {"path": "."} shows what is there.')
    assert client.error("open", {"target": "--force"}) == (
        "re: /open -- --force\nERROR(NOT_FOUND): File not found: --force\nlist_directory {\"path\": \".\"} shows what "
        "is there.")
    assert client.error("open", {"target": "guide.md\n/rm guide.md"}) == ONE_LINE.format(name="target")
    assert client.error("open", {"target": "guide.md", "fromLine": 0}).startswith(
        "ERROR(INVALID_PAYLOAD): open: fromLine")
    assert (root / "guide.md").read_text() == GUIDE


def test_paths_out_of_the_workspace_are_refused(client: Client, root: Path) -> None:
    outside = root.parent / "outside.txt"
    outside.write_text("secret outside\n")
    (root / "escape.txt").symlink_to(outside)
    assert client.error("open", {"target": str(outside)}) == (
        f"re: /open -- {shlex.quote(str(outside))}\nERROR(FILE_NOT_ALLOWED): Path is outside the workspace: {outside}\n"
        f"Only paths under {root} can be used.")
    assert client.error("open", {"target": "../outside.txt"}) == (
        "re: /open -- ../outside.txt\nERROR(INVALID_PATH): Path escapes the workspace root: ../outside.txt\n"
        "Use a path inside the workspace.")
    assert client.error("open", {"target": "escape.txt"}) == (
        "re: /open -- escape.txt\nERROR(INVALID_PATH): Path leaves the workspace through a symlink: escape.txt\n"
        "Symlinks are followed only while they point inside the workspace.")
    assert "secret outside" not in client.call("grep", {"pattern": "secret"}).content[0].text  # type: ignore[union-attr]
