"""Each completion source, asserted exactly on real objects (engine, open view and its index, command table,
session): a renamed field or a source that disappears fails here instead of quietly shrinking completion.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from stringsh.dispatcher import Dispatcher
from stringsh.render.view import DocumentView
from stringsh.repl.completer import StringCompleter
from stringsh.repl.sources import Sources

PAGE = """# Page

[@home Home page](README.md)
[!nav:main](nav/main.md)
[Run it](act:build)
[the docs](https://example.com/docs)

## Install {#setup}

<!-- #todo -->
- a
<!-- /todo -->

```act.build
CLI echo building
```
"""
MENU = "# Main\n\n[@start Start here](../README.md)\n[@guide The guide](../page.md#setup)\n"


@pytest.fixture
def page(ws: Path) -> Path:
    (ws / "page.md").write_text(PAGE)
    (ws / "nav").mkdir()
    (ws / "nav" / "main.md").write_text(MENU)
    (ws / "README.md").write_text("# Readme\n")
    (ws / "REAL.txt").write_text("## Not a block\n")
    return ws


def results(dispatcher: Dispatcher, text: str) -> list[str]:
    completer = StringCompleter(Sources(dispatcher, "main"))
    event = CompleteEvent(completion_requested=True)
    return [text[: len(text) + c.start_position] + c.text for c in completer.get_completions(Document(text), event)]


def test_paths_come_from_the_engine_listing(page: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open REA") == ["/open README.md", "/open REAL.txt"]
    assert results(dispatcher, "/open nav/") == ["/open nav/main.md"]


def test_slash_lists_every_visible_command_of_the_table(page: Path, dispatcher: Dispatcher) -> None:
    table = Sources(dispatcher).command_table()
    visible = sorted(name for name, spec in table.items() if not spec.hidden and name != "!")
    assert results(dispatcher, "/") == [f"/{name}" for name in visible]
    assert {"open", "ls", "edit", "write", "undo", "act", "nav", "help", "set", "bash", "exec"} <= set(visible)


def test_hash_lists_the_open_views_index(page: Path, dispatcher: Dispatcher) -> None:
    assert dispatcher.execute("/open page.md").ok
    view = dispatcher.session("main").document
    assert isinstance(view, DocumentView) and view.index.markers  # the view's own index, built by /open
    assert results(dispatcher, "/open #") == ["/open #page", "/open #setup", "/open #todo"]  # an id hides its slug
    assert results(dispatcher, "/open page.md#") == ["/open page.md#page", "/open page.md#setup", "/open page.md#todo"]


def test_hash_of_a_named_file_reads_markdown_only(page: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open README.md#") == ["/open README.md#readme"]
    assert results(dispatcher, "/open REAL.txt#") == []  # /open finds no blocks in a text file


def test_at_lists_page_shortcuts_auto_shortcuts_and_menu_entries(page: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open @") == []
    assert dispatcher.execute("/open page.md").ok
    assert results(dispatcher, "/open @") == [
        "/open @home",
        "/open @the-docs",
        "/open @main.start",
        "/open @main.guide",
    ]


def test_every_offered_shortcut_opens(page: Path, dispatcher: Dispatcher) -> None:
    """Regression: `[Run it](act:build)` was completed as `@run-it`, which `/open` refuses (NOT_FOUND)."""
    assert dispatcher.execute("/open page.md").ok
    offered = results(dispatcher, "/open @")
    assert "/open @run-it" not in offered
    assert dispatcher.execute("/open @run-it").text.startswith("re: /open @run-it\nERROR(NOT_FOUND)")
    for request in offered:
        if "://" in dict(Sources(dispatcher).shortcuts()).get(request[len("/open @") :], ""):
            continue  # a web page is a known shortcut that /open declines with LOAD_ERROR
        reply = dispatcher.execute(request)
        assert reply.ok, reply.text
        assert dispatcher.execute("/open page.md").ok


def test_brace_lists_the_session_variables(page: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open {") == []
    assert dispatcher.execute("/set {b} = 2").ok
    assert dispatcher.execute("/set {a} = 1").ok
    assert results(dispatcher, "/open {") == ["/open {a}", "/open {b}"]


def test_act_lists_the_pages_actions(page: Path, dispatcher: Dispatcher) -> None:
    assert dispatcher.execute("/open page.md").ok
    assert results(dispatcher, "/act ") == ["/act build"]
