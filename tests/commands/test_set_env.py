"""/set $NAME: persistent per scope in the config directory, masked everywhere, shared between processes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.conftest import run_stringsh

MASK = "••••••"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(directory))
    return directory


def test_set_echo_listing_and_file(config: Path, ws: Path, dispatcher) -> None:
    assert dispatcher.execute('/set $API_TOKEN = "s3cret-token"').text == (
        f're: /set $API_TOKEN = {MASK}\n$API_TOKEN = "{MASK}" (global)'
    )
    assert dispatcher.execute("/set\n$B_KEY = two words\n{plain} = 1").text == (
        f're: /set\n$B_KEY = "{MASK}" (global)\n{{plain}} = "1"'
    )
    assert dispatcher.execute("/set").text == (
        f're: /set\nVariables\n---\n{{plain}} = "1"\n$API_TOKEN = "{MASK}" (global)\n$B_KEY = "{MASK}" (global)'
    )
    data = json.loads((config / "env.json").read_text())
    assert data == {"env": {"API_TOKEN": "s3cret-token", "B_KEY": "two words"}}
    assert stat.S_IMODE((config / "env.json").stat().st_mode) == 0o600
    assert [p.name for p in ws.iterdir() if p.name != ".stringsh"] == []
    assert "s3cret" not in dispatcher.execute("/info").text


def test_persistent_listing_alone_and_multiline(config: Path, dispatcher) -> None:
    assert dispatcher.execute("/set").text == "re: /set\nNo variables set."
    reply = dispatcher.execute("/set <<EOF\n```$CERT\nline 1\nline 2\n```\nEOF")
    assert reply.text == f're: /set\n$CERT = "{MASK}" (global)'
    assert dispatcher.execute("/set").text == f're: /set\nVariables\n---\n$CERT = "{MASK}" (global)'
    dispatcher.execute("/set {s} = 1")
    dispatcher.session().close()  # what /close clears: session variables, not persistent ones
    assert dispatcher.execute("/set").text == f're: /set\nVariables\n---\n$CERT = "{MASK}" (global)'


def test_config_dir_inside_the_workspace_is_refused(ws: Path, monkeypatch: pytest.MonkeyPatch, dispatcher) -> None:
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(ws / "cfg"))
    reply = dispatcher.execute("/set $X = y")
    assert (reply.ok, reply.code) == (False, "NOT_PERMITTED")
    assert not (ws / "cfg").exists()


def test_bad_names(config: Path, dispatcher) -> None:
    reply = dispatcher.execute("/set $lower = x")
    assert (reply.ok, reply.code) == (False, "INVALID_PAYLOAD")


def test_persistence_across_two_processes(tmp_path: Path, ws: Path) -> None:
    env = {"STRINGSH_CONFIG_DIR": str(tmp_path / "shared-config")}
    first = run_stringsh(["-c", '/set $DEPLOY_KEY = "k-998877"'], cwd=ws, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.decode() == f're: /set $DEPLOY_KEY = {MASK}\n$DEPLOY_KEY = "{MASK}" (global)\n'
    second = run_stringsh(["run", "-"], cwd=ws, env=env, stdin="/set\n")
    assert second.returncode == 0, second.stderr
    assert second.stdout.decode() == f're: /set\nVariables\n---\n$DEPLOY_KEY = "{MASK}" (global)\n'
    other = run_stringsh(["run", "-"], cwd=ws, env={"STRINGSH_CONFIG_DIR": str(tmp_path / "other")}, stdin="/set\n")
    assert other.stdout.decode() == "re: /set\nNo variables set.\n"
    assert b"k-998877" not in first.stdout + second.stdout + first.stderr + second.stderr


def test_second_process_uses_the_value_in_an_action(tmp_path: Path, ws: Path) -> None:
    from tests.actions.loopback import serve

    env = {"STRINGSH_CONFIG_DIR": str(tmp_path / "cfg")}
    with serve() as base:
        (ws / "api.md").write_text(
            f'```act.who\nGET {base}/echo -H "X-Token: $SVC_TOKEN"\n```\n\n'
            "```act.who.response\ntoken={Response.body.headers.x-token}\n```\n"
        )
        assert run_stringsh(["-c", "/set $SVC_TOKEN = abc-123-xyz"], cwd=ws, env=env).returncode == 0
        result = run_stringsh(["daemon"], cwd=ws, env=env, stdin="/open api.md\n/act.who\n")
    out = result.stdout.decode()
    assert f"re: /act.who\ntoken={MASK}\n" in out
    assert "abc-123-xyz" not in out
