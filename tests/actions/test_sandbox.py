"""A CLI action under the policy's bubblewrap sandbox: sandboxed, or refused; never a silent plain run."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher


def test_cli_action_respects_the_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(tmp_path / "cfg"))
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    (ws / "a.md").write_text(f"```act.escape\nCLI echo hi > {outside}; echo inside > here.txt; echo done\n```\n")
    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/open a.md").ok
        reply = dispatcher.execute("/act.escape")
    finally:
        dispatcher.close()
    if reply.ok:
        assert reply.text == f"re: /act.escape\nexit: 0 | cwd: {ws}\n---\ndone"
        assert (ws / "here.txt").read_text() == "inside\n"
    else:
        assert reply.code in ("NOT_PERMITTED", "EXIT_1"), reply.text
    assert not outside.exists()


@pytest.mark.needs("bwrap")
def test_a_sandboxed_cli_action_cannot_plant_a_git_hook(ws: Path) -> None:
    """`git init` inside the action, then a hook: the action runs in the sandbox, and what it planted on a protected
    path is removed after it, with a note, as after `!cmd`."""
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    hook = ".git/hooks/post-commit"
    (ws / "a.md").write_text(
        f"```act.plant\nCLI git init -q && printf '#!/bin/sh\\ntouch pwned\\n' > {hook} && chmod +x {hook}\n```\n"
    )
    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/open a.md").ok
        reply = dispatcher.execute("/act.plant")
    finally:
        dispatcher.close()
    assert reply.text == (
        f"re: /act.plant\nexit: 0 | cwd: {ws}\n---\nnote: removed {hook} written by the command: protected path"
    )
    assert not (ws / hook).exists()
    assert (ws / ".git").is_dir()  # the repository itself is the action's to make


@pytest.mark.needs("bwrap")
def test_values_reach_a_sandboxed_action_as_parameters(ws: Path, tmp_path: Path) -> None:
    """The sandbox wraps `bash -c SCRIPT bash VALUES…` whole: the values arrive as data inside it too."""
    canary = tmp_path / "canary"
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    (ws / "a.md").write_text("```act.say\nCLI printf '[%s]' \"{a}\" '{b}' > out.txt; cat out.txt\n  a: string\n"
                             "  b: string\n```\n")
    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/open a.md").ok
        reply = dispatcher.execute(f"/act.say --a '$(touch {canary})' --b \"it's\"")
    finally:
        dispatcher.close()
    assert reply.text.split("\n", 1)[1] == f"exit: 0 | cwd: {ws}\n---\n[$(touch {canary})][it's]"
    assert not canary.exists()
