"""/act on a real workspace: CLI actions in a real bash, HTTP actions against a real loopback server."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.actions.loopback import PNG, serve
from tests.commands.documents import body, trust_workspace

PAGE = """---
title: Ops
---
# Ops

```act.echo
CLI printf '[%s]\\n' {msg} {extra}
  "Print a message"
  msg, -m: string (required) "what to print"
  extra: string = "end"
```

```act.fail
CLI echo going down; exit 3
```

```act.items
GET {base}/items
```

```act.items.response
{count} = {Response.body.total}
# Items ({count})
for: item in Response.body.items
- {item.name} ({item.size})
end:
status {Response.status}
```

```act.text
GET {base}/text
```

```act.text.response
First: {Response.body}
```

```act.raw
GET {base}/echo
  q: string "query"
```

```act.page
GET {base}/page
```

```act.missing
GET {base}/missing
```

```act.boom
GET {base}/boom
```

```act.slow
GET {base}/slow?s=2
```

```act.loop
GET {base}/loop
```

```act.secret
GET {base}/echo/$STRINGSH_TEST_TOKEN -H "Authorization: Bearer $STRINGSH_TEST_TOKEN"
```

```act.secret.response
{auth} = {Response.body.headers.authorization}
{Response.body.headers.authorization} at {Response.body.path}
```

```act.create
POST {base}/echo -H "X-Key: {key}"
  title: string (required)
  count: number = "2"
  body:
    {"title": "{title}", "count": {count}}
```

```act.create.response
{Response.body.method} {Response.body.body} {Response.body.headers.x-key}
```

```act.image
GET {base}/image
  name: string (required)
```

```act.image.response
{mime} = {Response.body.data.mime}
save: data.b64
decode: base64
to: out/{name}.png
Saved out/{name}.png ({mime})
```
"""


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(directory))
    monkeypatch.delenv("STRINGSH_TEST_TOKEN", raising=False)
    return directory


@pytest.fixture(scope="module")
def base():
    with serve() as url:
        yield url


@pytest.fixture
def ops(ws: Path, base: str, dispatcher):
    (ws / "ops").mkdir()
    (ws / "ops" / "ops.md").write_text(PAGE.replace("{base}", base))
    (ws / "ops" / "victim").write_text("keep")
    assert dispatcher.execute("/open ops/ops.md").ok
    return dispatcher


def text(dispatcher, request: str) -> str:
    return dispatcher.execute(request).text


def test_act_without_a_document(dispatcher) -> None:
    assert text(dispatcher, "/act") == "re: /act\nERROR(INVALID_TARGET): No document open. Use /open <uri> first."
    assert text(dispatcher, "/act.x --a 1") == (
        "re: /act.x --a 1\nERROR(INVALID_TARGET): No document open. Use /open <uri> first."
    )


def test_listing_and_schemas(ops) -> None:
    listing = text(ops, "/act")
    assert listing.startswith(
        "re: /act\nActions\n---\n/act.echo\n   Print a message\n   -m, --msg <string> (required) — what to print\n"
        "   --extra <string> (optional, default end)\n\n/act.fail\n   (no flags)\n\n"
    )
    assert text(ops, "/act --help") == listing.replace("re: /act\n", "re: /act --help\n")
    assert text(ops, "/act -h").endswith(listing.split("\n", 1)[1])
    schema = (
        "Action: echo\n---\n/act.echo\n   Print a message\n   -m, --msg <string> (required) — what to print\n"
        "   --extra <string> (optional, default end)"
    )
    assert text(ops, "/act.echo --help") == f"re: /act.echo --help\n{schema}"
    assert text(ops, "/act.echo") == f"re: /act.echo\n{schema}"
    assert text(ops, "/act echo -m x -h") == f"re: /act echo -m x -h\n{schema}"


def test_unknown_action(ops, ws: Path) -> None:
    assert text(ops, "/act.nope") == (
        're: /act.nope\nERROR(NOT_FOUND): Action not found: "nope"\nAvailable: echo, fail, items, text, raw, page, '
        "missing, boom, slow, loop, secret, create, image\nUse /act.<name> --help to inspect an action."
    )
    (ws / "plain.md").write_text("# Plain\n")
    ops.execute("/open plain.md")
    assert text(ops, "/act") == "re: /act\nActions\n---\nNo actions defined on this page."
    assert text(ops, "/act.x") == (
        're: /act.x\nERROR(NOT_FOUND): Action not found: "x"\nAvailable: none\nNo actions defined on current document.'
    )


def test_cli_forms_and_reply(ops, ws: Path) -> None:
    cwd = ws / "ops"
    assert text(ops, "/act.echo --msg hi") == f"re: /act.echo --msg hi\nexit: 0 | cwd: {cwd}\n---\n[hi]\n[end]"
    assert text(ops, "/act.echo -m 'a b' --extra=x").endswith("---\n[a b]\n[x]")
    assert text(ops, "/act.echo one two").endswith("---\n[one]\n[two]")
    reply = ops.execute("/act.fail")
    assert (reply.ok, reply.code) == (False, "EXIT_3")
    assert reply.text == f"re: /act.fail\nexit: 3 | cwd: {cwd}\n---\ngoing down"


@pytest.mark.parametrize(
    "value",
    ["; rm -rf victim", "$(rm -rf victim)", "`rm -rf victim`", 'it\'s "quoted" \\ back', "x' ; rm -rf victim ; '"],
)
def test_cli_hostile_flag_values(ops, ws: Path, value: str) -> None:
    quoted = "'" + value.replace("'", "'\"'\"'") + "'"
    reply = ops.execute(f"/act.echo --msg {quoted}")
    assert reply.ok, reply.text
    assert reply.text.endswith(f"---\n[{value}]\n[end]")
    assert (ws / "ops" / "victim").read_text() == "keep"


def test_cli_newline_value_through_a_session_variable(ops, ws: Path) -> None:
    ops.execute("/set <<EOF\n```{evil}\nline one\nrm -rf victim; echo pwned\n```\nEOF")
    reply = ops.execute("/act.echo --msg {evil}")
    assert reply.text.endswith("---\n[line one\nrm -rf victim; echo pwned]\n[end]")
    assert (ws / "ops" / "victim").read_text() == "keep"


def test_flag_errors(ops) -> None:
    assert text(ops, "/act.echo --msg $HOME") == (
        "re: /act.echo --msg $HOME\nERROR(INVALID_PAYLOAD): $var cannot be used in command arguments. "
        "Use {var} for session variables, $var in action definitions."
    )
    assert text(ops, "/act.echo --msg") == (
        "re: /act.echo --msg\nERROR(INVALID_PAYLOAD): Flag --msg requires a value (declared type: string).\n"
        "Usage: /act.echo --msg <string>"
    )
    assert text(ops, "/act.echo --extra x") == (
        "re: /act.echo --extra x\nERROR(INVALID_PAYLOAD): Missing required flags: msg\n\nUsage:\n"
        "  --msg <string> (required)\n  --extra <string>"
    )
    assert text(ops, "/act.echo a b c").startswith(
        "re: /act.echo a b c\nERROR(INVALID_PAYLOAD): Too many positional arguments for /act.echo."
    )
    assert text(ops, "/act.echo --msg @nowhere") == (
        "re: /act.echo --msg @nowhere\nERROR(NOT_FOUND): Unknown shortcut: @nowhere\n(no shortcuts on this page)"
    )


def test_json_template_with_loop_and_assignment(ops) -> None:
    assert text(ops, "/act.items") == "re: /act.items\n# Items (2)\n- alpha (1)\n- beta (2)\nstatus 200"
    assert ops.session().variables["count"] == "2"
    assert ops.session().document.path.endswith("ops/ops.md")


def test_non_json_template(ops) -> None:
    assert text(ops, "/act.text") == "re: /act.text\nFirst: plain words, not JSON\nsecond line"


def test_doc_response_opens_and_back_returns(ops, base: str) -> None:
    reply = text(ops, "/act.raw --q 'a b'")
    assert reply.startswith(f're: /act.raw --q \'a b\'\nOpened {base}/echo\n---\n```json\n{{\n  "method": "GET",')
    assert '"q": "a b"' in reply
    assert ops.session().document.path == f"{base}/echo"
    assert text(ops, "/back").startswith("re: /back\nBack to ops/ops.md\n---\n")
    assert text(ops, "/act.page") == (
        f"re: /act.page\nOpened {base}/page\n---\n# Status page\n\nAll **green**, see [docs](/docs).\n\n- one\n- two"
    )
    assert len(ops.session().history) == 1
    assert text(ops, "/info").count(f"url:       {base}/page") == 1


def test_http_errors(ops, base: str) -> None:
    assert text(ops, "/act.missing") == (
        f"re: /act.missing\nERROR(NOT_FOUND): HTTP 404 Not Found: GET {base}/missing\nno such thing here"
    )
    assert text(ops, "/act.boom") == (
        f"re: /act.boom\nERROR(LOAD_ERROR): HTTP 500 Internal Server Error: GET {base}/boom\n"
        '{"error": "database on fire"}'
    )
    assert text(ops, "/act.loop") == (
        f"re: /act.loop\nERROR(LOAD_ERROR): Too many redirects (more than 5): GET {base}/loop"
    )
    ops.execute("/set {_http_timeout} = 0.3")
    assert text(ops, "/act.slow") == (
        f"re: /act.slow\nERROR(TIMEOUT): No answer within 0.3s: GET {base}/slow?s=2\n"
        "Try again later, or check the server."
    )
    assert ops.session().document.path.endswith("ops/ops.md")


def test_unresolved_var_then_set_and_masked(ops, base: str) -> None:
    assert text(ops, "/act.secret") == (
        "re: /act.secret\nERROR(INVALID_PAYLOAD): Unresolved environment variable:\n  $STRINGSH_TEST_TOKEN\n\n"
        'Set it:\n  /set $STRINGSH_TEST_TOKEN = "..."'
    )
    assert text(ops, '/set $STRINGSH_TEST_TOKEN = "tok-12345"') == (
        're: /set $STRINGSH_TEST_TOKEN = ••••••\n$STRINGSH_TEST_TOKEN = "••••••" (global)'
    )
    reply = text(ops, "/act.secret")
    assert reply == "re: /act.secret\nBearer •••••• at /echo/••••••"
    assert ops.session().variables["auth"] == "Bearer ••••••"
    assert "tok-12345" not in text(ops, "/set") + text(ops, "/info")


def test_post_body_template_json_escaped(ops) -> None:
    ops.execute('/set {key} = "k1"')
    reply = text(ops, "/act.create --title 'say \"hi\"\\n'")
    assert reply == 're: /act.create --title \'say "hi"\\n\'\nPOST {"title": "say \\"hi\\"\\\\n", "count": 2} k1'
    assert text(ops, "/act.create --title x --count many").startswith(
        "re: /act.create --title x --count many\nERROR(INVALID_PAYLOAD): Flag --count expects a number"
    )


def test_template_saves_a_base64_file_through_the_journal(ops, ws: Path) -> None:
    assert text(ops, "/act.image --name pic") == "re: /act.image --name pic\nSaved out/pic.png (image/png)"
    assert (ws / "out" / "pic.png").read_bytes() == PNG
    assert base64.b64encode(PNG)
    assert text(ops, "/undo") == (  # the folder the save created goes with it
        "re: /undo\nUndo: deleted out/pic.png (was newly created), removed its new empty folder out"
    )
    assert not (ws / "out").exists()
    reply = text(ops, "/act.image --name ../../escape")
    assert reply.startswith("re: /act.image --name ../../escape\nto: write failed: ")
    assert not (ws.parent / "escape.png").exists()


def test_front_matter_default_and_requires(ws: Path, dispatcher, base: str) -> None:
    trust_workspace(ws)  # a default action runs only in a workspace the user trusts (finding 8)
    (ws / "home.md").write_text(
        f"---\ndefault: items\nrequires: [STRINGSH_TEST_TOKEN]\n---\n# Home\n\n"
        f"```act.items\nGET {base}/items\n```\n\n```act.items.response\n{{Response.body.total}} items\n```\n"
    )
    reply = text(dispatcher, "/open home.md")
    assert reply == (
        "re: /open home.md\nOpened home.md\n---\n"
        "[actions] items  ·  /act --help (all)  ·  /act.<name> --help\n"
        "[!] Missing required env: $STRINGSH_TEST_TOKEN\n"
        '    Set: /set $STRINGSH_TEST_TOKEN="..."\n\n# Home\n\n---\n\n2 items'
    )
    dispatcher.execute("/set $STRINGSH_TEST_TOKEN = x1234")
    assert "Missing required env" not in text(dispatcher, "/refresh")
    assert text(dispatcher, "/refresh").endswith("---\n\n2 items")


def test_a_returned_document_cannot_bring_cli_actions(ops, ws: Path) -> None:
    from stringsh.actions.remote import RemoteView
    from stringsh.documents.actions import page_actions
    from stringsh.render.document import Document

    text = "---\ndefault: wipe\n---\n```act.wipe\nCLI rm -rf victim\n```\n```act.get\nGET http://127.0.0.1:9/x\n```\n"
    view = RemoteView("http://127.0.0.1:9/doc", "markdown", Document.parse(text))
    assert [a.id for a in page_actions(view)] == ["get"]
    ops.session().document = view
    assert ops.execute("/act.wipe").code == "NOT_PERMITTED"
    assert (ws / "ops" / "victim").read_text() == "keep"


def test_a_remote_page_runs_http_actions_against_its_own_url_and_no_cli(ws: Path, dispatcher, base: str) -> None:
    assert dispatcher.execute(f"/open {base}/site/acts").ok
    reply = dispatcher.execute("/act.ping")
    assert reply.text.startswith(f"re: /act.ping\nOpened {base}/echo/rel\n---\n")
    assert '"path": "/echo/rel"' in reply.text
    assert text(dispatcher, "/back").startswith(f"re: /back\nBack to {base}/site/acts\n")
    assert text(dispatcher, "/act.run") == (
        "re: /act.run\nERROR(NOT_PERMITTED): Remote SFMD can only run HTTP actions: /act.run is a CLI action.\n"
        "A page a server returned never runs commands here; copy the action into a workspace document to run it."
    )
    assert not (ws / "ran").exists()


def test_template_links_become_shortcuts(ws: Path, dispatcher, base: str) -> None:
    (ws / "links.md").write_text(
        f"```act.items\nGET {base}/items\n```\n\n```act.items.response\n"
        "for: item in Response.body.items\n- [{item.name}](https://example.org/{item.name})\nend:\n```\n"
    )
    dispatcher.execute("/open links.md")
    assert text(dispatcher, "/act.items") == "re: /act.items\n- [alpha][@alpha]\n- [beta][@beta]"
    assert text(dispatcher, "/info @beta") == "re: /info @beta\n@beta → https://example.org/beta"


WORKFLOW = "/open README.md\n/nav main\n/open @main.ops\n/act.status --service 'web; rm -rf /'\n/act.items\n"


def workflow_site(ws: Path, base: str) -> None:
    (ws / "nav").mkdir()
    (ws / "ops").mkdir()
    (ws / "README.md").write_text("# Project\n\n[!nav:main](nav/main.md)\n\nStart at the ops page.\n")
    (ws / "nav" / "main.md").write_text("[@ops Operations](../ops/ops.md)\n")
    (ws / "ops" / "ops.md").write_text(
        "# Operations\n\n```act.status\nCLI printf 'checking %s\\n' {service}\n  service: string (required)\n```\n\n"
        f"```act.items\nGET {base}/items\n```\n\n```act.items.response\n"
        "Items: {Response.body.total}\nfor: i in Response.body.items\n- {i.name}\nend:\n```\n"
    )


def test_documented_workflow_in_run_and_daemon(tmp_path: Path, ws: Path, base: str) -> None:
    from tests.conftest import run_stringsh

    workflow_site(ws, base)
    (tmp_path / "flow.str").write_text(WORKFLOW)
    env = {"STRINGSH_CONFIG_DIR": str(tmp_path / "cfg")}
    run = run_stringsh(["run", str(tmp_path / "flow.str")], cwd=ws, env=env)
    out = run.stdout.decode()
    assert run.returncode == 0, out + run.stderr.decode()
    expected = [
        "re: /nav main\nMenu: main\n---\n[Operations][@main.ops]\n",
        "re: /open @main.ops\nOpened ops/ops.md\n---\n[actions] status, items",
        f"re: /act.status --service 'web; rm -rf /'\nexit: 0 | cwd: {ws / 'ops'}\n---\nchecking web; rm -rf /\n",
        "re: /act.items\nItems: 2\n- alpha\n- beta\n",
    ]
    for piece in expected:
        assert piece in out
    daemon = run_stringsh(["daemon"], cwd=ws, env=env, stdin=WORKFLOW)
    framed = daemon.stdout.decode()
    assert framed.count("<𝒞=string:main>") == 5 and framed.count("</𝒞>") == 5
    for piece in expected:
        assert piece in framed


def test_returned_page_refresh_back_and_blocks(ws: Path, dispatcher, base: str) -> None:
    (ws / "a.md").write_text(
        f"# A\n\n```act.md\nGET {base}/markdown\n```\n\n```act.post\nPOST {base}/echo\n  x: string\n```\n"
    )
    dispatcher.execute("/open a.md")
    assert text(dispatcher, "/act.md") == f"re: /act.md\nOpened {base}/markdown\n---\n# Remote\n\nFrom the server."
    assert text(dispatcher, "/refresh") == f"re: /refresh\nRefreshed {base}/markdown\n---\n# Remote\n\nFrom the server."
    assert text(dispatcher, "/open").startswith(f"re: /open\nOpened {base}/markdown\n---\n# Remote")
    assert text(dispatcher, "/open #remote") == (
        f"re: /open #remote\nOpened {base}/markdown#remote\n---\n# Remote\n\nFrom the server."
    )
    assert text(dispatcher, "/back").startswith("re: /back\nBack to a.md\n---\n")
    assert text(dispatcher, "/act.post --x 1").startswith(f"re: /act.post --x 1\nOpened {base}/echo\n---\n```json")
    assert text(dispatcher, "/refresh") == (
        f"re: /refresh\nERROR(INVALID_TARGET): {base}/echo was the answer to a request that changes things; "
        "it is not sent again.\nRun the action again to get a fresh answer."
    )


def test_secret_in_an_error_url_is_named_never_shown(ws: Path, dispatcher, base: str) -> None:
    """The URL as sent, with the variable named where its value went (what left is never hidden)."""
    (ws / "k.md").write_text(f"```act.k\nGET {base}/missing?key=$STRINGSH_TEST_TOKEN\n```\n")
    dispatcher.execute("/set $STRINGSH_TEST_TOKEN = hush-hush-42")
    dispatcher.execute("/open k.md")
    assert text(dispatcher, "/act.k") == (
        f"re: /act.k\nERROR(NOT_FOUND): HTTP 404 Not Found: GET {base}/missing?key=$STRINGSH_TEST_TOKEN\n"
        "no such thing here"
    )


def test_a_returned_document_cannot_spend_secrets_or_read_local_files(ws: Path, dispatcher, base: str) -> None:
    from stringsh.actions.remote import RemoteView
    from stringsh.render.document import Document

    (ws / "notes.md").write_text("<!-- #private -->\nlocal notes\n<!-- /private -->\n")
    dispatcher.execute("/set $STRINGSH_TEST_TOKEN = hush-hush-42")
    page = (
        f"# Evil\n\n```act.steal\nGET {base}/echo/$STRINGSH_TEST_TOKEN\n```\n\n"
        f"```act.home\nGET {base}/echo/x\n  who: string = \"$HOME\"\n```\n\n"
        "[!include:private](notes.md)\n"
    )
    dispatcher.session().document = RemoteView(f"{base}/evil", "markdown", Document.parse(page), refetch=lambda: page)
    refused = (
        "ERROR(NOT_PERMITTED): /act.{0}: a page a server returned cannot use $NAME values ({1}).\n"
        "Only documents of this workspace can; copy the action into one if you trust it."
    )
    assert body(text(dispatcher, "/act.steal")) == refused.format("steal", "$STRINGSH_TEST_TOKEN")
    assert body(text(dispatcher, "/act.home")) == refused.format("home", "$HOME")
    hint = "[actions] steal, home  ·  /act --help (all)  ·  /act.<name> --help"
    assert body(text(dispatcher, "/open")) == f"Opened {base}/evil\n---\n{hint}\n\n# Evil"


def test_an_action_shown_as_example_code_is_not_an_action(ws: Path, dispatcher) -> None:
    (ws / "victim").write_text("keep")
    (ws / "howto.md").write_text(
        "# How to write actions\n\n    ```act.wipe\n    CLI rm -rf victim\n    ```\n\n"
        "````markdown\n```act.boom\nCLI rm -rf victim\n```\n````\n\n"
        "- a real one in a list:\n\n  ```act.hello\n  CLI echo hello\n  ```\n"
    )
    dispatcher.execute("/open howto.md")
    assert body(text(dispatcher, "/act")) == "Actions\n---\n/act.hello\n   (no flags)"
    assert dispatcher.execute("/act.wipe").code == "NOT_FOUND"
    assert (ws / "victim").read_text() == "keep"
    assert body(text(dispatcher, "/act.hello")).endswith("---\nhello")


def test_returned_pages_keep_the_history_bounded(ws: Path, dispatcher, base: str) -> None:
    from stringsh.documents.service import HISTORY_LIMIT

    for i in range(HISTORY_LIMIT):
        (ws / f"d{i}.md").write_text(f"# D{i}\n")
        dispatcher.execute(f"/open d{i}.md")
    (ws / "a.md").write_text(f"# A\n\n```act.md\nGET {base}/markdown\n```\n")
    dispatcher.execute("/open a.md")
    assert len(dispatcher.session().history) == HISTORY_LIMIT
    assert dispatcher.execute("/act.md").ok
    history = dispatcher.session().history
    assert (len(history), history[0].path, history[-1].path) == (HISTORY_LIMIT, "d1.md", "a.md")


def test_source_of_a_returned_page(ws: Path, dispatcher, base: str) -> None:
    (ws / "a.md").write_text(f"# A\n\n```act.md\nGET {base}/markdown\n```\n")
    dispatcher.execute("/open a.md")
    dispatcher.execute("/act.md")
    assert body(text(dispatcher, "/source")) == f"[source: {base}/markdown]\n---\n# Remote\n\nFrom the server."


def test_every_action_run_is_audited(ops, ws: Path, base: str) -> None:
    """CLI runs and HTTP requests leave an audit line like `!cmd` does: ran, failed, or refused by the policy."""
    import json

    from stringsh.workspace.state import AUDIT_FILE, state_folder

    assert ops.execute("/act.echo --msg audit").ok
    assert ops.execute("/act.fail").code == "EXIT_3"
    assert ops.execute("/act.items").ok
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    other = type(ops)(ws)
    try:
        assert other.execute("/open ops/ops.md").ok
        assert other.execute("/act.echo --msg audit").code == "NOT_PERMITTED"
    finally:
        other.close()
    log = (state_folder(ws) / AUDIT_FILE).read_text()
    records = [json.loads(line) for line in log.splitlines()]
    actions = [(r["op"], r["ops"], r["outcome"], r["paths"]) for r in records if r["op"] == "/act"]
    assert actions == [  # one record per request: the engine's operation `action` inside it
        ("/act", ["action"], "ok", ["ops/ops.md"]),
        ("/act", ["action"], "EXIT_3", ["ops/ops.md"]),
        ("/act", ["action"], "ok", ["ops/ops.md"]),
        ("/act", ["action"], "NOT_PERMITTED", ["ops/ops.md"]),
    ]
    assert "audit" not in json.dumps(actions)  # flag values and output stay out of the paths
    # The command line run (an HTTP action: method and host only), never the output
    assert [r["command"] for r in records if r["op"] == "/act"] == [
        "act.echo: printf '[%s]\\n' audit end",
        "act.fail: echo going down; exit 3",
        f"act.items: GET {base}",
        "act.echo: printf '[%s]\\n' audit end",
    ]
    assert "[audit]" not in log and "Items (" not in log


def test_an_action_command_line_is_audited_with_secret_values_masked(ws: Path, dispatcher) -> None:
    """A `$NAME` field default is resolved into the command line: the log keeps the line with the value masked."""
    import json

    from stringsh.workspace.state import AUDIT_FILE, state_folder

    (ws / "k.md").write_text('```act.k\nCLI echo {key} >/dev/null\n  key: string = "$STRINGSH_TEST_TOKEN"\n```\n')
    dispatcher.execute("/set $STRINGSH_TEST_TOKEN = hush-hush-42")
    dispatcher.execute("/open k.md")
    assert dispatcher.execute("/act.k").ok
    log = (state_folder(ws) / AUDIT_FILE).read_text()
    assert [json.loads(line)["command"] for line in log.splitlines() if '"/act"' in line] == [
        "act.k: echo •••••• >/dev/null"
    ]
    assert "hush-hush-42" not in log
