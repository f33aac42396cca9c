"""Planted secrets (a GitHub token, an OpenSSH private key, an `Authorization: Bearer` value) never leave through
any dialect: reads, media reads, searches, edits that break a secret's pattern (`ghp_` to `ghq_`, `BEGIN OPENSSH`
to `BEGIN X`), patches, undo, revert, `/changes ID`, `{_diff}`, the audit tail and error replies. Each output is
searched for what a leak would show: the token's tail, a key body line, the bearer value.

Once an edit has broken a token, the file itself holds plain text (`ghq_…` matches no pattern), and reading it
shows that text: only what shows the edit (diffs, `/changes`, undo) is checked after it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from stringsh.dialects.operator.results import format_result, parse_results
from stringsh.documents.diffreply import format_diff
from stringsh.workspace import Workspace
from stringsh.workspace.redact import Redactor
from stringsh.workspace.textdiff import Pieces, shown_pair, unified
from stringsh.workspace.textio import split_lines
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.actions_support import Recorder, run
from tests.dialects.operator.operator_support import allow_changes, b64, block, operator
from tests.dialects.tools.client import tools

MASK = "***REDACTED***"
TOKEN = "ghp_" + "Zq7Wm2Xr9Tk4Lp8Vn3Bd6Hs1Jf5Gc0Ya2Ue4"
KEY_LINES = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
             "QyNTUxOQAAACBvX3Rlc3Rfa2V5X2JvZHlfdGhhdF9tdXN0X25ldmVyX2xlYWsAAAAg"]
KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(KEY_LINES) + "\n-----END OPENSSH PRIVATE KEY-----\n"
BEARER = "Qm9keVNlY3JldFZhbHVlMTIzNDU2Nzg5"
CONFIG = f"name = demo\ntoken = {TOKEN}\nAuthorization: Bearer {BEARER}\nend = yes\n"
#: What a leak would show: the token past its first characters, each key body line, the bearer value.
LEAKS = [TOKEN[6:], TOKEN[-12:], *(line[8:40] for line in KEY_LINES), BEARER[4:]]


def assert_clean(text: str) -> None:
    for leak in LEAKS:
        assert leak not in text, f"{leak!r} leaked in:\n{text}"


@pytest.fixture
def planted(ws: Path) -> Path:
    (ws / "config.txt").write_text(CONFIG)
    (ws / "id_test").write_text("# a key\n" + KEY + "after\n")
    (ws / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00tEXtComment\x00" + TOKEN.encode() + b"\x00IEND")
    return ws


# the diff itself


def test_a_diff_of_an_edit_that_breaks_a_secret_shows_none_of_it() -> None:
    redactor = Redactor([], MASK)
    broken_token = CONFIG.replace("ghp_", "ghq_")
    shown = format_diff(CONFIG, broken_token, redactor=redactor)
    assert shown == f"1 1 | name = demo\n2   - token = {MASK}\n  2 + token = ghq{MASK}\n3 3 | Authorization: " \
                    f"Bearer {MASK}\n4 4 | end = yes"
    document = "# a key\n" + KEY + "after\n"
    broken_key = document.replace("BEGIN OPENSSH PRIVATE KEY", "BEGIN X")
    shown = format_diff(document, broken_key, redactor=redactor)
    assert_clean(shown)
    assert shown.splitlines()[1:3] == [f"2   - {MASK}", f"  2 + {MASK}X-----"]  # line numbers stay the file's
    old, new = shown_pair(document, broken_key, redactor, split_lines)
    assert_clean("\n".join(unified(old, new, lineterm="")))


def test_a_change_inside_a_secret_is_still_shown_as_a_change() -> None:
    changed = CONFIG.replace(TOKEN, TOKEN[:-1] + "X")
    assert format_diff(CONFIG, changed, redactor=Redactor([], MASK)).splitlines()[1:3] == [
        f"2   - token = {MASK}", f"  2 + token = {MASK}"]


def test_masking_is_idempotent() -> None:
    redactor = Redactor([], MASK)
    for text in (CONFIG, KEY, "# a key\n" + KEY[:60]):
        once = redactor(text, keep_lines=True)
        assert redactor(once, keep_lines=True) == once
        assert redactor(once) == once
    pieces = Pieces(redactor.secrets(CONFIG + KEY), MASK)
    line = f"token ghq_{TOKEN[4:]}"  # what is left of the token after an edit broke its prefix
    assert pieces.mask(pieces.mask(line)) == pieces.mask(line) == f"token ghq{MASK}"


# String Commands


def test_string_commands_never_show_a_planted_secret(planted: Path, dispatcher) -> None:
    outputs = [dispatcher.execute(request).text for request in (
        "/open config.txt", "/open id_test", "/edit id_test", "/open id_test --from 3", "/grep demo",
        "/grep Bearer", f"/grep {TOKEN}", "!cat config.txt id_test", "/set {_diff} = on",
        "/replace config.txt <<EOF\nghp_\n---\nghq_\nEOF",
        "/replace id_test <<EOF\nBEGIN OPENSSH PRIVATE KEY\n---\nBEGIN X\nEOF",
        "/changes", "/changes 1", "/changes 2", "/undo", "/revert 1",
        "/patch <<EOF\n--- a/id_test\n+++ b/id_test\n@@ -3,1 +3,1 @@\n-nothing like it\n+x\nEOF",
        f"/open {TOKEN}.md", "/changes 3",
    )]
    assert outputs[15].startswith("re: /revert 1\nReverted change 1"), outputs[14]
    for text in outputs:
        assert_clean(text)
    assert f"token = ghq{MASK}" in outputs[9]  # the {_diff} of the broken token
    assert f"re: /grep {MASK}" in outputs[6]
    assert "ERROR(PATCH_FAILED)" in outputs[16] and f"the file holds '{MASK}'" in outputs[16]
    assert (planted / "config.txt").read_text() == CONFIG  # /revert 1 put the token back
    audit = run_stringsh(["audit", "tail", "-n", "50"], cwd=planted)
    assert audit.returncode == 0
    assert_clean(audit.stdout.decode() + audit.stderr.decode())


def test_stringsh_c_output_is_masked(planted: Path) -> None:
    done = run_stringsh(["-c", "/open id_test"], cwd=planted)
    assert_clean(done.stdout.decode())
    assert f"{MASK}\n{MASK}\n{MASK}\n{MASK}" in done.stdout.decode()


# OPERATOR_CMD


def test_operator_results_never_show_a_planted_secret(planted: Path) -> None:
    allow_changes()
    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": "ghp_", "text": "ghq_"}]})
    stdin = "".join([
        block("version: 1", "id: r", "action: fs.read", "path: config.txt"),
        block("version: 1", "id: s", "action: fs.readSlice", "path: id_test"),
        block("version: 1", "id: q", "action: fs.search", "path: id_test", "query: AAAA"),
        block("version: 1", "id: t", "action: fs.search", "path: config.txt", "query: ghp_Zq"),
        block("version: 1", "id: e", "action: fs.applyEdits", "path: config.txt", f"edits_b64: {b64(edits)}"),
        block("version: 1", "id: p", "action: fs.patch", "path: id_test",
              "patch_b64: " + b64("@@ -3,1 +3,1 @@\n-nothing\n+x\n")),
        block("version: 1", "id: m", "action: fs.read", f"path: {TOKEN}.txt"),
    ])
    out, _ = operator(planted, stdin)
    results = parse_results(out)
    assert [r.id for r in results] == ["r", "s", "q", "t", "e", "p", "m"]
    for result in results:
        assert_clean(result.summary + (result.details or ""))
    assert results[3].details is not None and "# matches: 0" in results[3].details  # not found by its own text
    assert (planted / "config.txt").read_text() == CONFIG.replace("ghp_", "ghq_")


def test_the_operator_confirmation_diff_of_a_broken_key_shows_none_of_it(planted: Path) -> None:
    workspace = Workspace(planted)
    asked = Recorder(refusal="no")
    edits = json.dumps({"version": 1, "edits": [
        {"op": "replaceFirst", "find": "BEGIN OPENSSH PRIVATE KEY", "text": "BEGIN X"}]})
    result = run(workspace, "fs.applyEdits", asked, path="id_test", edits_b64=edits)
    assert not result.ok
    (request,) = asked.requests
    assert_clean(request.diff)
    assert f"+{MASK}X-----" in request.diff.splitlines()
    assert_clean(format_result(result, workspace.redact_lines))


# JSON tools


def test_json_tools_never_show_a_planted_secret(planted: Path) -> None:
    replies = tools(
        planted,
        {"id": 1, "tool": "read", "args": {"file_path": "config.txt"}},
        {"id": 2, "tool": "read", "args": {"file_path": "id_test"}},
        {"id": 3, "tool": "grep", "args": {"pattern": "Bearer"}},
        {"id": 4, "tool": "bash", "args": {"command": "cat config.txt id_test; echo " + TOKEN + " >&2"}},
        {"id": 5, "tool": "edit", "args": {"file_path": "config.txt", "old_string": "ghp_", "new_string": "ghq_"}},
        {"id": 6, "tool": "read", "args": {"file_path": f"{TOKEN}.txt"}},
    )
    assert [reply["id"] for reply in replies] == [1, 2, 3, 4, 5, 6]
    for reply in replies:
        assert_clean(json.dumps(reply))
    assert replies[5]["ok"] is False


# MCP


def test_mcp_never_shows_a_planted_secret(planted: Path) -> None:
    with stdio_session(planted, name="masking-client") as client:
        texts = [
            client.text("read_text_file", {"path": "config.txt"}),
            client.text("read_text_file", {"path": "id_test", "head": 3}),
            client.text("read_multiple_files", {"paths": ["config.txt", "id_test"]}),
            client.text("edit_file", {"path": "config.txt", "dryRun": True,
                                      "edits": [{"oldText": "ghp_", "newText": "ghq_"}]}),
            client.text("edit_file", {"path": "id_test", "dryRun": True,
                                      "edits": [{"oldText": "BEGIN OPENSSH PRIVATE KEY", "newText": "BEGIN X"}]}),
            client.text("grep", {"pattern": "Bearer"}),
            client.text("open", {"target": "id_test"}),
            client.text("bash", {"command": "cat config.txt"}),
            client.text("edit_file", {"path": "config.txt", "edits": [{"oldText": "ghp_", "newText": "ghq_"}]}),
            client.text("changes", {}),
            client.error("read_text_file", {"path": f"{TOKEN}.txt"}),
            client.error("read_media_file", {"path": "photo.png"}),
        ]
        undone = client.call("undo", {})
    for text in texts:
        assert_clean(text)
    assert_clean(json.dumps(undone.model_dump(mode="json")))
    assert "Index: config.txt" in texts[3] and f"+token = ghq{MASK}" in texts[3]
    assert texts[-1] == ("ERROR(SECRET_DENIED): The file's bytes hold a secret (a token or a private key); its "
                         "content is not sent\nread_text_file shows a text file with its secrets masked.")
    assert (planted / "config.txt").read_text() == CONFIG  # the undo put the token back


def test_mcp_media_without_a_secret_is_sent_as_it_is(planted: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR plain image bytes"
    (planted / "plain.png").write_bytes(data)
    with stdio_session(planted, name="masking-client") as client:
        result = client.call("read_media_file", {"path": "plain.png"})
    assert not result.is_error
    assert base64.b64decode(result.content[0].data) == data  # type: ignore[union-attr]
