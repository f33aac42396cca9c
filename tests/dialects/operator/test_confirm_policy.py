"""Confirmation of OPERATOR_CMD changes: `[operator] confirm` ("prompt" | "allow" | "deny", default prompt), its
range check, its layering (an untrusted workspace narrows, never widens), and allowed / declined / unavailable
at the run_action level (nothing written unless allowed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dialects.operator.actions import run_action
from stringsh.dialects.operator.confirm import DECLINED, DENIED, NO_TERMINAL, policy_confirmer
from stringsh.errors import StringError
from stringsh.protocol.operator_model import ConfirmRequest, Result
from stringsh.userdirs import user_policy_file
from stringsh.workspace import Workspace, load_policy
from stringsh.workspace.layers import startup_line
from tests.dialects.operator.actions_support import command, snapshot

WRITE = command("fs.write", path="n.txt", content="hi")


def write_user_policy(text: str) -> None:
    user = user_policy_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(text)


def test_default_is_prompt(ws: Path) -> None:
    assert load_policy(ws).operator.confirm == "prompt"


def test_no_way_to_ask_refuses_by_default(ws: Path) -> None:
    workspace = Workspace.load(ws)
    result = run_action(workspace, WRITE, policy_confirmer(workspace.policy, None), topic="main")
    assert result == Result("c1", False, NO_TERMINAL)
    assert NO_TERMINAL == ('not confirmed: no terminal to ask on; set [operator] confirm = "allow" in your own '
                           "policy (<config>/policy.toml or --policy FILE) to let changes run unattended")
    assert snapshot(ws) == {} and workspace.history() == []


def test_prompt_asks_and_yes_writes(ws: Path) -> None:
    workspace = Workspace.load(ws)
    asked: list[ConfirmRequest] = []
    result = run_action(workspace, WRITE, policy_confirmer(workspace.policy, lambda r: asked.append(r) or True),
                        topic="main")
    assert result == Result("c1", True, "Wrote file", change_id=1) and (ws / "n.txt").read_text() == "hi"
    assert asked == [ConfirmRequest("fs.write", "n.txt", "create n.txt (1 lines)",
                                    "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi")]


def test_prompt_declined_writes_nothing(ws: Path) -> None:
    workspace = Workspace.load(ws)
    result = run_action(workspace, WRITE, policy_confirmer(workspace.policy, lambda r: False), topic="main")
    assert result == Result("c1", False, "not confirmed: declined by the user; nothing was written")
    assert result.summary == DECLINED and snapshot(ws) == {} and workspace.history() == []


def test_an_asker_that_fails_is_a_no(ws: Path) -> None:
    def broken(_: ConfirmRequest) -> bool:
        raise EOFError
    workspace = Workspace.load(ws)
    assert run_action(workspace, WRITE, policy_confirmer(workspace.policy, broken), topic="main").summary == DECLINED
    assert snapshot(ws) == {}


def test_user_policy_allow_runs_unattended(ws: Path) -> None:
    write_user_policy('[operator]\nconfirm = "allow"\n')
    workspace = Workspace.load(ws)
    assert workspace.policy.operator.confirm == "allow"
    assert run_action(workspace, WRITE, policy_confirmer(workspace.policy, None), topic="main").ok
    assert (ws / "n.txt").read_text() == "hi"
    # under allow nobody is asked, whatever confirmer a front end passes, so no diff is made for anyone
    asked: list[ConfirmRequest] = []
    edit = command("fs.write", path="n.txt", content="ho")
    assert run_action(workspace, edit, lambda r: str(asked.append(r)), topic="main").ok
    assert asked == [] and (ws / "n.txt").read_text() == "ho"


def test_deny_refuses_without_asking(ws: Path) -> None:
    write_user_policy('[operator]\nconfirm = "deny"\n')
    workspace = Workspace.load(ws)
    asked: list[ConfirmRequest] = []
    result = run_action(workspace, WRITE, policy_confirmer(workspace.policy, lambda r: asked.append(r) or True),
                        topic="main")
    assert result == Result("c1", False, 'not confirmed: the policy denies changes ([operator] confirm = "deny")')
    assert result.summary == DENIED and asked == [] and snapshot(ws) == {}


def test_reads_need_no_confirmation_even_when_denied(ws: Path) -> None:
    (ws / "r.txt").write_text("r\n")
    write_user_policy('[operator]\nconfirm = "deny"\n')
    workspace = Workspace.load(ws)
    result = run_action(workspace, command("fs.read", path="r.txt"), policy_confirmer(workspace.policy, None),
                        topic="main")
    assert result == Result("c1", True, "Read file", "r\n")


def test_untrusted_workspace_may_narrow_to_deny(ws: Path) -> None:
    (ws / "stringsh.toml").write_text('[operator]\nconfirm = "deny"\n')
    policy = load_policy(ws)
    assert policy.operator.confirm == "deny" and policy.ignored == () and not policy.trusted


def test_untrusted_workspace_cannot_widen_to_allow(ws: Path) -> None:
    (ws / "stringsh.toml").write_text('[operator]\nconfirm = "allow"\n')
    policy = load_policy(ws)
    assert policy.operator.confirm == "prompt" and policy.ignored == ("operator.confirm",)
    assert startup_line(policy) == (
        "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 1 widening setting ignored: "
        "operator.confirm; run 'stringsh trust' to allow it)")
    workspace = Workspace.load(ws)
    assert run_action(workspace, WRITE, policy_confirmer(workspace.policy, None), topic="main").summary == NO_TERMINAL


def test_untrusted_workspace_cannot_undo_a_user_deny(ws: Path) -> None:
    write_user_policy('[operator]\nconfirm = "deny"\n')
    (ws / "stringsh.toml").write_text('[operator]\nconfirm = "prompt"\n')
    policy = load_policy(ws)
    assert policy.operator.confirm == "deny" and policy.ignored == ("operator.confirm",)


def test_user_allow_narrowed_by_workspace_prompt(ws: Path) -> None:
    write_user_policy('[operator]\nconfirm = "allow"\n')
    (ws / "stringsh.toml").write_text('[operator]\nconfirm = "prompt"\n')
    policy = load_policy(ws)
    assert policy.operator.confirm == "prompt" and policy.ignored == ()


def test_policy_option_is_trusted(ws: Path, tmp_path: Path) -> None:
    given = tmp_path / "given.toml"
    given.write_text('[operator]\nconfirm = "allow"\n')
    assert load_policy(ws, given).operator.confirm == "allow"


@pytest.mark.parametrize(("text", "problem"), [
    ('[operator]\nconfirm = "yes"\n', "operator.confirm = 'yes' is not one of prompt, allow, deny"),
    ('[operator]\nconfirm = "Allow"\n', "operator.confirm = 'Allow' is not one of prompt, allow, deny"),
    ("[operator]\nconfirm = true\n", "operator.confirm has the wrong type (bool)"),
    ('[operator]\nask = "prompt"\n', "unknown key 'ask' in [operator] (known: confirm)"),
    ('operator = "allow"\n', "[operator] must be a table"),
])
def test_bad_values_refused(ws: Path, text: str, problem: str) -> None:
    (ws / "stringsh.toml").write_text(text)
    with pytest.raises(StringError) as caught:
        load_policy(ws)
    assert caught.value.code == "INVALID_PAYLOAD"
    assert caught.value.message == f"Bad policy file {ws / 'stringsh.toml'}: {problem}"


@pytest.mark.parametrize(("permissions", "action", "fields", "summary"), [
    ("delete = false", "fs.delete", {"path": "r.txt"}, "NOT_PERMITTED: delete is disabled by policy"),
    ("write = false", "fs.write", {"path": "r.txt", "content": "x"}, "NOT_PERMITTED: write is disabled by policy"),
    ("edit = false", "fs.applyEdits", {"path": "r.txt", "edits_b64": '{"version":1,"edits":[]}'},
     "NOT_PERMITTED: edit is disabled by policy"),
    ("patch = false", "fs.patch", {"path": "r.txt", "patch_b64": "@@ -1 +1 @@\n-r\n+s\n"},
     "NOT_PERMITTED: patch is disabled by policy"),
    ("move = false", "fs.move", {"path": "r.txt", "path_to": "s.txt"}, "NOT_PERMITTED: move is disabled by policy"),
])
def test_no_one_is_asked_to_approve_what_the_policy_refuses(ws: Path, permissions: str, action: str,
                                                            fields: dict[str, str], summary: str) -> None:
    (ws / "r.txt").write_text("r\n")
    (ws / "stringsh.toml").write_text(f"[permissions]\n{permissions}\n")
    workspace = Workspace.load(ws)
    asked: list[ConfirmRequest] = []
    result = run_action(workspace, command(action, **fields), policy_confirmer(workspace.policy,
                        lambda r: asked.append(r) or True), topic="main")
    assert result == Result("c1", False, summary) and asked == []
    assert (ws / "r.txt").read_text() == "r\n"
