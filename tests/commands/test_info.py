"""/info: with nothing open, and the keys of an open page."""

from __future__ import annotations

from stringsh.dispatcher import Dispatcher
from tests.conftest import SHELL_ENV_INFO, info_setup


def test_info_with_no_document(ws, dispatcher) -> None:
    assert dispatcher.execute("/info").text == (
        "re: /info\nSession info\n---\n"
        "topic:     main\n"
        f"root:      {ws.resolve()}\n"
        "cwd:       ./\n"
        "file:      (none open)\n"
        "history:   0 entries\n"
        "vars:      (none)\n"
        f"{SHELL_ENV_INFO}\n{info_setup(ws)}"
    )


def test_info_lists_variables(ws, dispatcher) -> None:
    dispatcher.execute('/set {a} = "1"\nb = two')
    assert dispatcher.execute("/info").text.endswith(
        f'\nvars:      {{a}}="1", {{b}}="two"\n{SHELL_ENV_INFO}\n{info_setup(ws)}')


def test_info_shows_an_app_pages_name_and_version(ws, dispatcher) -> None:
    """String's /info names an app page by its front matter's `name:` and `version:`."""
    (ws / "app.md").write_text("---\nname: notes-app\nversion: 1.4\ntitle: Notes\n---\n# Notes\n")
    dispatcher.execute("/open app.md")
    assert dispatcher.execute("/info").text == (
        "re: /info\nSession info\n---\n"
        "topic:     main\n"
        f"root:      {ws.resolve()}\n"
        "cwd:       ./\n"
        "file:      app.md\n"
        "name:      notes-app\n"
        "version:   1.4\n"
        "title:     Notes\n"
        "blocks:    notes\n"
        "history:   0 entries\n"
        "vars:      (none)\n"
        f"{SHELL_ENV_INFO}\n{info_setup(ws)}"
    )


def test_info_says_when_the_shell_is_not_sandboxed_and_why(ws) -> None:
    dispatcher = Dispatcher(ws, no_sandbox=True)
    try:
        text = dispatcher.execute("/info").text
    finally:
        dispatcher.close()
    assert text.endswith(f"{SHELL_ENV_INFO}\n{info_setup(ws, sandbox='off (--no-sandbox)')}")
