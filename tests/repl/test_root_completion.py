"""Tab completes `id:` paths of a multi-root policy: `/open docs:` + Tab offers root docs' files, root ids are
offered as `id:`, and a single-root workspace keeps `:` an ordinary character."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from tests.commands.test_roots import roots  # noqa: F401  (the fixture)
from tests.repl.harness import Terminal
from tests.repl.test_completer import complete, results
from tests.repl.test_pty_repl import ENTER, TAB, after_prompt, prompt_line


@pytest.fixture
def multi(roots: Path) -> Iterator[Dispatcher]:  # noqa: F811
    d = Dispatcher(roots / "ws", policy_file=roots / "p.toml")
    yield d
    d.close()


def test_a_root_prefix_lists_that_roots_files(multi: Dispatcher) -> None:
    assert results(multi, "/open docs:") == ["/open docs:sub/", "/open docs:guide.md"]
    assert results(multi, "/open docs:g") == ["/open docs:guide.md"]
    assert results(multi, "/open docs:sub/") == ["/open docs:sub/y.txt"]
    assert results(multi, "/open docs:.") == []  # its secret `.env` is never offered
    assert results(multi, "/ls scratch:") == []  # an empty root
    assert results(multi, "/open main:") == ["/open main:a.md"]


def test_root_ids_are_offered_beside_the_files(multi: Dispatcher) -> None:
    assert complete(multi, "/open ")[:4] == [
        ("/open main:", "main:", "root, read_write"),
        ("/open docs:", "docs:", "root, read_only"),
        ("/open scratch:", "scratch:", "root, read_write"),
        ("/open a.md", "a.md", ""),
    ]
    assert results(multi, "/open d") == ["/open docs:"]
    assert results(multi, "/open nope:") == []  # no such root: a file name with a colon, and there is none


def test_one_root_keeps_colons_ordinary(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "a:b.md").write_text("x\n")
    (ws / "main").mkdir()
    assert results(dispatcher, "/open a:") == ["/open a:b.md"]
    assert results(dispatcher, "/open m") == ["/open main/"]


@pytest.fixture
def term(roots: Path, tmp_path: Path) -> Iterator[Terminal]:  # noqa: F811
    terminal = Terminal(["--policy", str(roots / "p.toml")], roots / "ws",
                        {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        terminal.wait_for("Ctrl-D quit")
        yield terminal
    finally:
        terminal.close()


def test_tab_after_a_root_prefix_in_a_real_terminal(term: Terminal) -> None:
    term.send("/open docs:")
    term.wait_for(lambda s: "guide.md" in after_prompt(s) and "sub/" in after_prompt(s))
    term.send("g")
    term.wait_for(lambda s: prompt_line(s) == "› /open docs:g")
    term.send(TAB)
    term.wait_for(lambda s: prompt_line(s) == "› /open docs:guide.md")
    term.send(ENTER)
    term.wait_for("Opened docs:guide.md")
