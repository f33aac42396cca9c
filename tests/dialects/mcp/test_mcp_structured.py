"""`outputSchema` and `structuredContent` on `stringsh mcp` (real stdio, the SDK's client, as users start it): every
tool declares a schema, every successful call carries structured content valid against it whose `content` is the
text block's text exactly, an error carries none, and names that are not UTF-8, secrets and controls are shown in
it as in the text."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema.validators import validator_for

from tests.dialects.mcp.client import Client, stdio_session

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
APP = 'def hello(name):\n    return "hi " + name\n\n\nclass Greeter:\n    def greet(self):\n        return hello("x")\n'
LATIN = os.fsdecode(b"caf\xe9.txt")  # a name that is not UTF-8
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpstructured").resolve() / "ws"
    (folder / "src").mkdir(parents=True)
    (folder / "sub" / "deep").mkdir(parents=True)
    (folder / "src" / "app.py").write_text(APP)
    (folder / "src" / "use.py").write_text("from app import hello\nhello('a')\n")
    (folder / "notes.txt").write_text("hello world\nbye\n")
    (folder / "sub" / "deep" / "leaf.md").write_text("# Leaf\n\nhello leaf\n")
    (folder / "token.txt").write_text(f"key = {TOKEN}\n")
    (folder / "tok").mkdir()
    (folder / "tok" / f"{TOKEN}.md").write_text("named after a token\n")
    (folder / "tok" / "plain.md").write_text("plain\n")
    (folder / "pic.png").write_bytes(PNG)
    (folder / LATIN).write_bytes(b"hello latin\n")
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="structured-client", env=env) as session:
        yield session


def schemas(client: Client) -> dict[str, dict[str, Any] | None]:
    return {tool.name: tool.output_schema for tool in client.portal.call(client.session.list_tools).tools}


def structured(client: Client, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A successful call's structured content, checked against the tool's declared schema (the SDK's client
    checks it too) and holding the text block's text as `content`."""
    result = client.call(name, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None, name
    schema = schemas(client)[name]
    assert schema is not None, name
    validator = validator_for(schema)
    validator.check_schema(schema)
    errors = [error.message for error in validator(schema).iter_errors(data)]
    assert errors == [], (name, errors)
    assert [block.type for block in result.content] == ["text"] and data["content"] == result.content[0].text
    return data


def test_a_refusal_carries_no_structured_content(client: Client) -> None:
    for name, arguments in [("read_text_file", {"path": "missing.txt"}), ("list_directory", {"path": "nowhere"}),
                            ("bash", {"command": "false"}), ("grep", {"pattern": "x", "path": "nowhere"}),
                            ("edit_file", {"path": "notes.txt", "edits": [{"oldText": "absent", "newText": "y"}]})]:
        result = client.call(name, arguments)
        assert result.is_error and result.structured_content is None, name


def test_listings_trees_and_file_info(client: Client, root: Path) -> None:
    shown = '"caf\\xe9.txt"'
    listed = structured(client, "list_directory", {"path": "sub"})
    assert listed == {"content": "[DIR] deep", "entries": [{"name": "deep", "type": "directory"}]}
    everything = structured(client, "list_directory", {"path": "."})["entries"]
    assert {"name": shown, "type": "file"} in everything and {"name": "src", "type": "directory"} in everything
    sized = structured(client, "list_directory_with_sizes", {"path": "src"})
    assert {key: value for key, value in sized.items() if key != "content"} == {
        "entries": [{"name": "app.py", "type": "file", "size": len(APP)},
                    {"name": "use.py", "type": "file", "size": 33}],
        "totalFiles": 2, "totalDirectories": 0, "combinedSize": len(APP) + 33}
    latin = [entry for entry in structured(client, "list_directory_with_sizes", {"path": "."})["entries"]
             if entry["name"] == shown]
    assert latin == [{"name": shown, "type": "file", "size": None}]
    assert structured(client, "directory_tree", {"path": "sub"})["tree"] == [
        {"name": "deep", "type": "directory", "children": [{"name": "leaf.md", "type": "file"}]}]
    assert {"name": shown, "type": "file"} in structured(client, "directory_tree", {"path": "."})["tree"]
    info = structured(client, "get_file_info", {"path": "src/app.py"})
    assert {key: info[key] for key in ("size", "isDirectory", "isFile", "permissions")} == {
        "size": len(APP), "isDirectory": False, "isFile": True, "permissions": "644"}
    assert info["modified"].endswith("+00:00") and info["content"].startswith(f"size: {len(APP)}\n")
    assert structured(client, "list_allowed_directories")["directories"] == [str(root)]
    found = structured(client, "search_files", {"path": ".", "pattern": "*.txt"})
    assert found["matches"] == sorted([f'"{root}/caf\\xe9.txt"', f"{root}/notes.txt", f"{root}/token.txt"])
    assert found["truncated"] is False and found["notShown"] == 0


def test_grep_and_symbols_hits(client: Client) -> None:
    hits = structured(client, "grep", {"pattern": "hello", "path": "src", "context": 1})
    assert hits["lines"] == [
        {"path": "src/app.py", "line": 1, "text": "def hello(name):", "match": True},
        {"path": "src/app.py", "line": 2, "text": '    return "hi " + name', "match": False},
        {"path": "src/app.py", "line": 6, "text": "    def greet(self):", "match": False},
        {"path": "src/app.py", "line": 7, "text": '        return hello("x")', "match": True},
        {"path": "src/use.py", "line": 1, "text": "from app import hello", "match": True},
        {"path": "src/use.py", "line": 2, "text": "hello('a')", "match": True},
    ]
    assert hits["matches"] == 4
    latin = structured(client, "grep", {"pattern": "latin"})
    assert latin["lines"] == [{"path": '"caf\\xe9.txt"', "line": 1, "text": "hello latin", "match": True}]
    assert structured(client, "symbols_overview", {"path": "src/app.py"})["symbols"] == [
        {"handle": "@s1", "path": "src/app.py", "startLine": 1, "endLine": 2, "kind": "function", "id": "hello",
         "target": "src/app.py#hello"},
        {"handle": "@s2", "path": "src/app.py", "startLine": 5, "endLine": 7, "kind": "class", "id": "Greeter",
         "target": "src/app.py#Greeter"},
        {"handle": "@s3", "path": "src/app.py", "startLine": 6, "endLine": 7, "kind": "method",
         "id": "Greeter.greet", "target": "src/app.py#Greeter.greet"},
    ]
    assert structured(client, "find_references", {"name": "hello", "path": "src"})["references"] == [
        {"path": "src/app.py", "line": 1, "column": 5, "role": "definition", "container": None,
         "text": "def hello(name):"},
        {"path": "src/app.py", "line": 7, "column": 16, "role": "use", "container": "Greeter.greet",
         "text": 'return hello("x")'},
        {"path": "src/use.py", "line": 1, "column": 17, "role": "import", "container": None,
         "text": "from app import hello"},
        {"path": "src/use.py", "line": 2, "column": 1, "role": "use", "container": None, "text": "hello('a')"},
    ]
    assert structured(client, "find_definition", {"position": "src/use.py:2:1"})["definitions"] == [
        {"path": "src/app.py", "line": 1, "column": 5, "kind": "function", "id": "hello",
         "target": "src/app.py#hello"}]
    assert {key: value for key, value in structured(client, "view_symbol", {"target": "src/app.py#hello"}).items()
            if key != "content"} == {"path": "src/app.py", "block": "hello"}
    assert structured(client, "view_symbol", {"target": "src/app.py#hello", "plain": True}) == {
        "content": 'def hello(name):\n    return "hi " + name', "path": "src/app.py", "block": "hello"}


def test_bash_edits_and_the_journal(client: Client, root: Path) -> None:
    ran = structured(client, "bash", {"command": "cd sub && printf 'a\\nb\\n'"})
    back = structured(client, "bash", {"command": "cd .. && true"})
    assert {key: value for key, value in ran.items() if key != "content"} == {
        "exitCode": 0, "cwd": f"{root}/sub", "output": "a\nb"}
    assert back == {"content": f"re: !cd .. && true\nexit: 0 | cwd: {root}\n---\n(no output)", "exitCode": 0,
                    "cwd": str(root), "output": ""}
    written = structured(client, "write_file", {"path": "journal.txt", "content": "x\n"})
    change = written["changeId"]
    assert isinstance(change, int) and written == {
        "content": f"Successfully wrote to journal.txt (change {change}, undoable)", "path": "journal.txt",
        "changeId": change}
    edited = structured(client, "edit_file", {"path": "journal.txt", "edits": [{"oldText": "x", "newText": "y"}],
                                              "dryRun": True})
    assert edited["changeId"] is None and edited["dryRun"] is True and "-x\n+y\n" in edited["diff"]
    replaced = structured(client, "replace", {"target": "journal.txt", "body": "x\n---\nz\n"})
    assert replaced["changeId"] == change + 1 and replaced["content"].endswith(f"Change {change + 1}, undoable.")
    rows = structured(client, "changes", {"n": 2})["changes"]
    assert [(row["id"], row["summary"].split()[0]) for row in rows] == [(change + 1, "replace"),
                                                                       (change, "write_file")]
    assert all(row["topic"].startswith("mcp-structured-client-") for row in rows)
    assert "changes" not in structured(client, "changes", {"id": change})
    undone = structured(client, "undo")
    assert undone["content"].startswith("re: /undo\n") and (root / "journal.txt").read_text() == "x\n"
    assert structured(client, "open", {"target": "journal.txt"})["path"] == "journal.txt"


def test_secrets_are_masked_in_structured_content_as_in_the_text(client: Client) -> None:
    read = structured(client, "read_text_file", {"path": "token.txt"})
    assert TOKEN not in repr(read) and read["content"] == "key = ***REDACTED***\n"
    many = structured(client, "read_multiple_files", {"paths": ["token.txt"]})
    assert many["files"] == [{"path": "token.txt", "content": "key = ***REDACTED***\n"}]
    hits = structured(client, "grep", {"pattern": "key", "path": "token.txt"})
    assert TOKEN not in repr(hits) and hits["lines"][0]["text"] == "key = ***REDACTED***"
    ran = structured(client, "bash", {"command": "cat token.txt"})
    assert TOKEN not in repr(ran) and ran["output"] == "key = ***REDACTED***"
    listed = structured(client, "list_directory", {"path": "tok"})  # names that need no quoting, one masked
    assert listed == {"content": "[FILE] ***REDACTED***.md\n[FILE] plain.md",
                      "entries": [{"name": "***REDACTED***.md", "type": "file"}, {"name": "plain.md", "type": "file"}]}


#: One call of every tool, in an order that leaves each later call something to work on.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_allowed_directories", {}),
    ("read_text_file", {"path": "notes.txt"}),
    ("read_multiple_files", {"paths": ["notes.txt", "missing.txt"]}),
    ("list_directory", {"path": "."}),
    ("list_directory_with_sizes", {"path": ".", "sortBy": "size"}),
    ("directory_tree", {"path": "."}),
    ("search_files", {"path": ".", "pattern": "**/*.txt"}),
    ("get_file_info", {"path": "notes.txt"}),
    ("string", {"request": "/ls"}),
    ("grep", {"pattern": "hello", "context": 1}),
    ("open", {"target": "sub/deep/leaf.md"}),
    ("symbols_overview", {"path": "src/app.py"}),
    ("find_symbol", {"query": "hel*"}),
    ("view_symbol", {"target": "src/app.py#Greeter.greet"}),
    ("find_references", {"name": "hello"}),
    ("find_definition", {"position": "src/use.py:2:1"}),
    ("repo_map", {}),
    ("bash", {"command": "echo out; ls"}),
    ("write_file", {"path": "made.txt", "content": "one\ntwo\n"}),
    ("edit_file", {"path": "made.txt", "edits": [{"oldText": "two", "newText": "three"}]}),
    ("create_directory", {"path": "newdir/inner"}),
    ("move_file", {"source": "made.txt", "destination": "newdir/made.txt"}),
    ("edit_block", {"target": "sub/deep/leaf.md#leaf", "body": "hello again\n"}),
    ("replace", {"target": "notes.txt", "body": "bye\n---\nsee you\n"}),
    ("patch", {"diff": "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello there\n see you\n"}),
    ("apply_patch", {"input": "*** Begin Patch\n*** Add File: added.txt\n+added\n*** End Patch\n"}),
    ("replace_symbol", {"target": "src/app.py#Greeter.greet",
                        "body": "def greet(self):\n    return hello(\"y\")\n"}),
    ("insert_symbol", {"target": "src/app.py#hello", "body": "def bye():\n    return 0\n"}),
    ("rename_symbol", {"target": "src/app.py#bye", "newName": "farewell"}),
    ("changes", {}),
    ("revert", {}),
    ("undo", {}),
    ("read_media_file", {"path": "pic.png"}),
]


def test_every_tool_declares_a_schema_and_every_success_carries_valid_structured_content(
        client: Client, root: Path) -> None:
    declared = schemas(client)
    assert sorted(name for name, schema in declared.items() if schema is not None) == sorted(declared)
    assert sorted(name for name, _ in CALLS) == sorted(declared)
    last = 0
    for name, arguments in CALLS:
        if name == "read_media_file":  # image content, and structure as the reference server gives it
            result = client.call(name, arguments)
            assert not result.is_error, result.content
            assert result.structured_content == {"content": [result.content[0].model_dump(
                mode="json", by_alias=True, exclude_none=True)]}
            assert result.structured_content["content"][0]["mimeType"] == "image/png"
            continue
        if name == "revert":  # the last change made: the rename
            arguments = {"id": last}
        data = structured(client, name, arguments)
        last = data.get("changeId") or last
    assert (root / "newdir" / "made.txt").read_text() == "one\nthree\n"
    assert "def farewell" in (root / "src" / "app.py").read_text()  # renamed, reverted, and the revert undone
