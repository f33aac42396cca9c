"""/exec: one stateless bash -c in the topic's folder (String's rule), exact replies, for both shell providers."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.userdirs import user_policy_file


@pytest.fixture(params=["false", "true"], ids=["local", "bubblewrap"])
def exec_ws(request: pytest.FixtureRequest, ws: Path, dispatcher):  # type: ignore[no-untyped-def]
    """The sandbox is on by default: the local case turns it off in the user's own policy."""
    if request.param == "false":
        user_policy_file().parent.mkdir(parents=True, exist_ok=True)
        user_policy_file().write_text("[shell]\nsandbox = false\n")
    (ws / "stringsh.toml").write_text(f"[shell]\ntimeout = 20.0\nsandbox = {request.param}\n")
    return dispatcher, ws


def test_reply_and_exit_codes(exec_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = exec_ws
    assert d.execute("/exec echo hi").text == f"re: /exec echo hi\nexit: 0 | cwd: {ws}\n---\nhi"
    failed = d.execute("/exec echo bad >&2; exit 3")
    assert (failed.ok, failed.code) == (False, "EXIT_3")
    assert failed.text == f"re: /exec echo bad >&2; exit 3\nexit: 3 | cwd: {ws}\n---\nbad"
    assert d.execute("/exec true").text == f"re: /exec true\nexit: 0 | cwd: {ws}\n---\n(no output)"


def test_stateless(exec_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = exec_ws
    d.execute("/exec cd / && export X=1")
    assert d.execute('/exec pwd; echo "${X-unset}"').text.endswith(f"\n---\n{ws}\nunset")


def test_runs_in_the_open_documents_folder(exec_ws) -> None:  # type: ignore[no-untyped-def]
    """String's rule: the folder `/open <folder>` entered, else the open document's, else the root."""
    d, ws = exec_ws
    (ws / "sub" / "deep").mkdir(parents=True)
    (ws / "sub" / "deep" / "a.md").write_text("# A\n")
    d.execute("/open sub/deep/a.md")
    deep = ws / "sub" / "deep"
    assert d.execute("/exec pwd; ls").text == f"re: /exec pwd; ls\nexit: 0 | cwd: {deep}\n---\n{deep}\na.md"
    d.execute("/open sub")
    assert d.execute("/exec pwd").text == f"re: /exec pwd\nexit: 0 | cwd: {ws}/sub\n---\n{ws}/sub"
    d.execute("/close")
    assert d.execute("/exec pwd").text == f"re: /exec pwd\nexit: 0 | cwd: {ws}\n---\n{ws}"


def test_variables_and_body(exec_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = exec_ws
    d.execute('/set {n} = "3"')
    reply = d.execute("/exec printf '{n} '\nfor i in $(seq 1 $n); do printf \"$i\"; done\necho ' {n}'")
    assert reply.text == f"re: /exec printf '{{n}} '\nexit: 0 | cwd: {ws}\n---\n3 123 {{n}}"  # the body stays as sent


def test_timeout_flag(exec_ws) -> None:  # type: ignore[no-untyped-def]
    d, ws = exec_ws
    reply = d.execute("/exec --timeout=1 echo part; sleep 10")
    assert (reply.ok, reply.code) == (False, "TIMEOUT")
    assert reply.text == (
        f"re: /exec --timeout=1 echo part; sleep 10\nexit: 124 | cwd: {ws}\n---\n"
        "part\n[timed out after 1 s; the command was stopped]"
    )


def test_bad_inputs(dispatcher) -> None:  # type: ignore[no-untyped-def]
    assert dispatcher.execute("/exec").text == (
        "re: /exec\nERROR(INVALID_PAYLOAD): Nothing to run.\nUsage: /exec <command>, e.g. /exec ls -la"
    )
    assert dispatcher.execute("/exec --timeout=soon ls").text == (
        "re: /exec --timeout=soon ls\nERROR(INVALID_PAYLOAD): --timeout must be a positive number of seconds, got: soon"
    )
    assert dispatcher.execute("/exec --timeout=0 ls").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/exec 'unclosed").code == "EXIT_2"
