"""Finding 8: opening a document never runs what it ships. A front matter `default:` action runs only in a
workspace the user trusts, and a CLI one only where `[permissions] shell` allows it (in the sandbox when the
policy has one); `/act.<name>` is the user's explicit consent but obeys `shell = false` too."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from tests.commands.documents import body, trust_workspace
from tests.conftest import run_stringsh

README = "---\ndefault: build\n---\n# Project\n\n```act.build\nCLI cat .env; touch built.txt\n```\n"
ENV = "API_KEY=hunter2-very-secret\n"
NOT_RUN = "(default action build not run: this workspace is not trusted — run /act.build to run it)"
SHELL_OFF = "(default action build not run: shell is disabled by policy)"


def page(note: str) -> str:
    return (
        "Opened README.md\n---\n[actions] build  ·  /act --help (all)  ·  /act.<name> --help\n\n# Project\n\n"
        f"---\n\n{note}"
    )


@pytest.fixture
def repo(ws: Path) -> Path:
    """A cloned repository: a README whose default action prints `.env` and leaves a mark."""
    (ws / "README.md").write_text(README)
    (ws / ".env").write_text(ENV)
    return ws


@pytest.fixture
def plain_repo(ws: Path) -> Path:
    """The same page whose action names no secret: where the shell is not sandboxed, a command naming `.env` is
    refused before it runs (best effort), so consent to run is shown with a command that runs on every machine."""
    (ws / "README.md").write_text(README.replace("cat .env; ", "echo building; "))
    (ws / ".env").write_text(ENV)
    return ws


def open_readme(ws: Path) -> str:
    dispatcher = Dispatcher(ws)
    try:
        return body(dispatcher.execute("/open README.md").text)
    finally:
        dispatcher.close()


def test_opening_a_page_does_not_run_its_cli_default(repo: Path) -> None:
    assert open_readme(repo) == page(NOT_RUN)
    assert not (repo / "built.txt").exists()


def test_not_with_the_shell_off_either(repo: Path) -> None:
    (repo / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    assert open_readme(repo) == page(SHELL_OFF)
    assert not (repo / "built.txt").exists()


def test_act_obeys_shell_false(repo: Path) -> None:
    (repo / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    dispatcher = Dispatcher(repo)
    try:
        dispatcher.execute("/open README.md")
        reply = dispatcher.execute("/act.build")
        assert reply.text == (
            "re: /act.build\nERROR(NOT_PERMITTED): shell is disabled by policy\n"
            "The policy's [permissions] shell = false."
        )
        assert dispatcher.execute("/act.build --help").ok  # reading what it would do is not running it
    finally:
        dispatcher.close()
    assert not (repo / "built.txt").exists()


def test_explicit_act_is_consent(plain_repo: Path) -> None:
    repo = plain_repo
    dispatcher = Dispatcher(repo)
    try:
        dispatcher.execute("/open README.md")
        reply = dispatcher.execute("/act.build")
    finally:
        dispatcher.close()
    assert reply.ok, reply.text  # the user asked for it by name: it runs
    assert (repo / "built.txt").exists()


def test_http_default_sends_nothing_untrusted(ws: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.3)
    port = listener.getsockname()[1]
    (ws / "README.md").write_text(
        f"---\ndefault: ping\n---\n# Project\n\n```act.ping\nGET http://127.0.0.1:{port}/leak\n```\n"
    )
    try:
        reply = open_readme(ws)
        assert reply.endswith(
            "---\n\n(default action ping not run: this workspace is not trusted — run /act.ping to run it)"
        )
        with pytest.raises(TimeoutError):
            listener.accept()  # no request was even attempted
    finally:
        listener.close()


def test_a_trusted_workspace_runs_its_default(plain_repo: Path) -> None:
    repo = plain_repo
    trust_workspace(repo)
    reply = open_readme(repo)
    assert reply.startswith(page(""))
    assert (repo / "built.txt").exists()
    (repo / "built.txt").unlink()
    (repo / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    assert open_readme(repo) == page(SHELL_OFF)  # trust does not turn the shell back on
    assert not (repo / "built.txt").exists()


@pytest.mark.needs("bwrap")
def test_a_trusted_default_runs_in_the_sandbox(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    (ws / "README.md").write_text(
        f"---\ndefault: escape\n---\n# P\n\n```act.escape\nCLI echo hi > {outside}; echo inside > here.txt\n```\n"
    )
    trust_workspace(ws)
    reply = open_readme(ws)
    assert reply.startswith("Opened README.md\n---\n")
    assert (ws / "here.txt").read_text() == "inside\n"  # it ran, inside the workspace
    assert not outside.exists()  # and the sandbox kept it there


def test_through_the_real_program(repo: Path) -> None:
    out = run_stringsh(["-c", "/open README.md"], cwd=repo)
    assert out.returncode == 0, out.stderr
    assert NOT_RUN in out.stdout.decode()
    assert "hunter2" not in out.stdout.decode()
    assert not (repo / "built.txt").exists()
