"""Finding 4: secrets are masked wherever file or shell text leaves stringsh, and a masked view is never written
back over the secret it hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.actions.loopback import serve
from tests.commands.documents import body, trust_workspace
from tests.conftest import SHELL_ENV_INFO, info_setup, run_stringsh

MASK = "***REDACTED***"
TOKEN = "ghp_" + "Q7" * 18
KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ys\n-----END RSA PRIVATE KEY-----"
PAGE = f"# Deploy\n\nToken: {TOKEN}\n\n## Key\n\n{KEY}\n\n## Notes\n\nNothing secret here.\n"


@pytest.fixture
def secret_page(ws: Path) -> Path:
    (ws / "deploy.md").write_text(PAGE)
    return ws / "deploy.md"


def assert_clean(reply: str) -> None:
    assert TOKEN not in reply
    assert "MIIEpAIBAAKCAQEA" not in reply


@pytest.fixture(scope="module")
def base():
    with serve() as url:
        yield url


def test_open_back_refresh_and_includes_mask_secrets(ws: Path, dispatcher, secret_page: Path) -> None:
    reply = dispatcher.execute("/open deploy.md").text
    assert_clean(reply)
    assert f"Token: {MASK}" in reply
    assert "\n".join([MASK] * 3) in reply  # the key block, line for line
    assert "Nothing secret here." in reply
    assert_clean(dispatcher.execute("/refresh").text)
    assert_clean(dispatcher.execute("/open #key").text)
    (ws / "other.md").write_text("# Other\n\n[!include:key](./deploy.md)\n")
    included = dispatcher.execute("/open other.md").text
    assert_clean(included)
    assert "\n".join([MASK] * 3) in included
    assert_clean(dispatcher.execute("/back").text)
    assert secret_page.read_text() == PAGE  # masking is for what is shown: the file is untouched


def test_a_budget_cut_never_splits_a_key_open(ws: Path, dispatcher) -> None:
    (ws / "key.txt").write_text("head\n" + KEY + "\ntail\n")
    dispatcher.execute('/set {_max_lines} = "2"')
    for command in ("/open key.txt", "/open key.txt --from 3", "/source key.txt --from 3", "/edit key.txt --from 3"):
        assert_clean(dispatcher.execute(command).text)
    assert body(dispatcher.execute("/open key.txt --from 3").text).startswith(f"Opened key.txt\n---\n{MASK}\n{MASK}")


def test_source_edit_view_and_verify_mask_secrets(ws: Path, dispatcher, secret_page: Path) -> None:
    source = dispatcher.execute("/source deploy.md").text
    assert_clean(source)
    assert f"Token: {MASK}" in source
    view = dispatcher.execute("/edit deploy.md").text
    assert_clean(view)
    assert f" 3 | Token: {MASK}\n" in view
    assert f" 7 | {MASK}\n 8 | {MASK}\n 9 | {MASK}\n10 | \n" in view  # line numbers stay the file's
    assert view.endswith(
        f"(13 lines)\n[masked] Secrets are shown as {MASK}. A body that keeps {MASK} in their place is refused: "
        "rewrite those lines in full."
    )
    block = dispatcher.execute("/edit deploy.md#key").text
    assert_clean(block)
    assert f"\n7 | {MASK}\n8 | {MASK}\n9 | {MASK}\n" in block  # the file's line numbers, as its whole view
    verified = dispatcher.execute("/verify deploy.md#key").text
    assert_clean(verified)
    assert verified.startswith("re: /verify deploy.md#key\nVerified deploy.md#key (5 lines, ")


def test_views_of_ordinary_files_are_unchanged(ws: Path, dispatcher) -> None:
    (ws / "plain.md").write_text("# Plain\n\nsha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n")
    assert dispatcher.execute("/edit plain.md").text.endswith("\n\n(3 lines)")
    assert MASK not in dispatcher.execute("/open plain.md").text


def test_policy_patterns_and_replacement(ws: Path, dispatcher) -> None:
    (ws / "stringsh.toml").write_text('[secrets]\nredact_regexes = ["corp-[0-9]{6}"]\nreplacement = "<hidden>"\n')
    trust_workspace(ws)  # another mask text is the user's choice: an untrusted workspace cannot change it
    (ws / "notes.txt").write_text(f"id corp-123456 and {TOKEN}\n")
    assert body(dispatcher.execute("/open notes.txt").text) == "Opened notes.txt\n---\nid <hidden> and <hidden>"


def test_shell_output_is_masked(ws: Path, dispatcher, secret_page: Path) -> None:
    bang = dispatcher.execute("!cat deploy.md")
    assert_clean(bang.text)
    assert f"Token: {MASK}" in bang.text
    assert_clean(dispatcher.execute("/exec cat deploy.md").text)
    assert_clean(dispatcher.execute("!printf 'Authorization: Bearer abc123def456\\n'").text)
    assert "Authorization: Bearer " + MASK in dispatcher.execute("/exec echo 'Authorization: Bearer abc123def'").text


def test_bash_topic_output_is_masked(ws: Path, secret_page: Path) -> None:
    from stringsh.dispatcher import Dispatcher

    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/bash").ok
        reply = dispatcher.execute("cat deploy.md")
        assert_clean(reply.text)
        assert f"Token: {MASK}" in reply.text
    finally:
        dispatcher.close()


def test_action_responses_are_masked(ws: Path, dispatcher, base: str) -> None:
    (ws / "ops.md").write_text(
        f"# Ops\n\n```act.show\nCLI cat token.txt\n```\n\n```act.echo\nGET {base}/echo?q={TOKEN}\n```\n\n"
        "```act.tpl\nCLI cat token.txt\n```\n\n```act.tpl.response\nq = {Response.body}\n```\n"
    )
    (ws / "token.txt").write_text(f"{TOKEN}\n")
    dispatcher.execute("/open ops.md")
    cli = dispatcher.execute("/act.show").text
    assert cli.endswith(f"---\n{MASK}")
    assert_clean(dispatcher.execute("/act.tpl").text)
    assert dispatcher.execute("/act.tpl").text.endswith(f"q = {MASK}")
    doc = dispatcher.execute("/act.echo").text  # a doc response: shown as a page, opened
    assert_clean(doc)
    assert doc.startswith(f"re: /act.echo\nOpened {base}/echo?q={MASK}\n---\n")
    assert_clean(dispatcher.execute("/refresh").text)


def test_through_the_real_program(ws: Path, secret_page: Path) -> None:
    for command in ("/open deploy.md", "/source deploy.md", "/edit deploy.md", "!cat deploy.md"):
        out = run_stringsh(["-c", command], cwd=ws)
        assert out.returncode == 0, out.stderr
        assert_clean(out.stdout.decode())
        assert MASK in out.stdout.decode()


# -- a masked view is never written back --------------------------------------------------------------------------


def test_whole_edit_that_keeps_the_mask_is_refused(ws: Path, dispatcher, secret_page: Path) -> None:
    view = dispatcher.execute("/edit deploy.md").text
    shown = [line.split(" | ", 1)[1] for line in body(view).split("\n---\n", 1)[1].split("\n") if " | " in line]
    copied = "\n".join(shown).replace("Nothing secret here.", "Changed.") + "\n"
    for command in ("/edit deploy.md", "/edit --force deploy.md"):
        reply = dispatcher.execute(f"{command}\n{copied}")
        assert reply.code == "INVALID_PAYLOAD"
        assert body(reply.text) == (
            f"ERROR(INVALID_PAYLOAD): Refusing to write deploy.md: the body contains {MASK} where the file holds a "
            "secret; nothing was written.\nstringsh shows secrets masked. Rewrite those lines in full with their "
            "real text, or edit that part outside stringsh."
        )
    assert secret_page.read_text() == PAGE
    rewritten = PAGE.replace("Nothing secret here.", "Changed.")
    assert dispatcher.execute(f"/edit deploy.md\n{rewritten}").ok  # every line in full: written
    assert secret_page.read_text() == rewritten


def test_write_over_a_secret_with_the_mask_is_refused(ws: Path, dispatcher, secret_page: Path) -> None:
    dispatcher.execute("/open deploy.md")
    reply = dispatcher.execute(f"/write --force deploy.md\nToken: {MASK}\n")
    assert reply.code == "INVALID_PAYLOAD"
    assert secret_page.read_text() == PAGE
    assert dispatcher.execute(f"/write fresh.md\nToken: {MASK}\n").ok  # a new file hides no secret
    assert (ws / "fresh.md").read_text() == f"Token: {MASK}\n"


def test_block_edits_keep_the_secrets_they_do_not_touch(ws: Path, dispatcher, secret_page: Path) -> None:
    dispatcher.execute("/open deploy.md")
    reply = dispatcher.execute("/edit deploy.md#notes\nRotated on Monday.\n")
    assert reply.ok, reply.text
    assert secret_page.read_text() == PAGE.replace("Nothing secret here.", "Rotated on Monday.")
    refused = dispatcher.execute(f"/edit deploy.md#key\n{MASK}\n{MASK}\n{MASK}\n")
    assert refused.code == "INVALID_PAYLOAD"
    assert KEY in secret_page.read_text()
    new_key = "(rotated: the key lives in the vault now)\n"
    assert dispatcher.execute(f"/edit deploy.md#key\n{new_key}").ok
    assert KEY not in secret_page.read_text()


def test_links_in_nav_and_info_are_masked(ws: Path, dispatcher) -> None:
    (ws / "links.md").write_text(f"# Links\n\n[@ci The CI](https://ci.example/hook?token={TOKEN})\n")
    assert dispatcher.execute("/open links.md").ok
    assert dispatcher.execute("/info @ci").text == f"re: /info @ci\n@ci → https://ci.example/hook?token={MASK}"
    page = dispatcher.execute("/nav page").text
    assert_clean(page)
    assert f"@ci → https://ci.example/hook?token={MASK}" in page


def test_info_and_the_variable_listing_mask_secrets(ws: Path, dispatcher) -> None:
    """A front-matter title or a session variable can hold a key: /info and /set show it masked."""
    (ws / "d.md").write_text(f"---\ntitle: t {TOKEN}\n---\n# D\n")
    assert dispatcher.execute("/open d.md").ok
    dispatcher.execute(f"/set {{tok}} = {TOKEN}")
    info = dispatcher.execute("/info").text
    listing = dispatcher.execute("/set").text
    assert TOKEN not in info
    assert f"\ntitle:     t {MASK}\n" in info
    assert info.endswith(f'\nvars:      {{tok}}="{MASK}"\n{SHELL_ENV_INFO}\n{info_setup(ws)}')
    assert listing == f're: /set\nVariables\n---\n{{tok}} = "{MASK}"'
