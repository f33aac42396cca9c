"""The reference filesystem server's tools on `stringsh mcp` (real stdio, the SDK's client): each one's success
and its refusals as `isError` tool results, the bytes of CRLF, BOM and UTF-16 files kept by edit_file, every
change undoable through the journal, and the audit records naming the front end and the client."""

from __future__ import annotations

import base64
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import STRINGSH, Client, server_env, stdio_session

CLIENT = "files-test-client"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpfiles") / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name=CLIENT, env=env) as session:
        yield session


def stringsh(root: Path, env: dict[str, str], *args: str) -> str:
    """The CLI on the same workspace and user folders as the module's server (journal, audit log)."""
    done = subprocess.run([*STRINGSH, "--root", str(root), *args], env=server_env(env), capture_output=True,
                          text=True, timeout=60)
    return done.stdout


# -- edit_file: the bytes are kept ------------------------------------------------------------------------------


def test_edit_file_keeps_crlf_and_bom(client: Client, root: Path) -> None:
    path = root / "bom_crlf.txt"
    path.write_bytes(b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\n")
    edits = [{"oldText": "beta\n", "newText": "BETA\nb2\n"}]
    reply = client.text("edit_file", {"path": "bom_crlf.txt", "edits": edits})
    assert path.read_bytes() == b"\xef\xbb\xbfalpha\r\nBETA\r\nb2\r\ngamma\r\n"
    assert reply.startswith("```diff\nIndex: bom_crlf.txt\n" + "=" * 67 + "\n--- bom_crlf.txt\toriginal\n"
                            "+++ bom_crlf.txt\tmodified\n@@ -1,3 +1,4 @@\n alpha\n-beta\n+BETA\n+b2\n gamma\n```\n\n")
    assert re.fullmatch(r"[\s\S]*```\n\nChange \d+, undoable\.", reply)


def test_edit_file_keeps_mixed_endings_and_a_missing_final_newline(client: Client, root: Path) -> None:
    path = root / "mixed.txt"
    path.write_bytes(b"one\r\ntwo\nthree")
    client.text("edit_file", {"path": str(path), "edits": [{"oldText": "three", "newText": "3"}]})
    assert path.read_bytes() == b"one\r\ntwo\n3"


def test_edit_file_keeps_utf16_and_latin1(client: Client, root: Path) -> None:
    path = root / "wide.txt"
    path.write_bytes(b"\xff\xfe" + "x = 1\r\ny = 2\r\n".encode("utf-16-le"))
    client.text("edit_file", {"path": "wide.txt", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]})
    assert path.read_bytes() == b"\xff\xfe" + "x = 1\r\ny = 3\r\n".encode("utf-16-le")
    latin = root / "latin.txt"
    latin.write_bytes(b"# caf\xe9\nx = 1\n")
    client.text("edit_file", {"path": "latin.txt", "edits": [{"oldText": "x = 1", "newText": "x = \u00e9"}]})
    assert latin.read_bytes() == b"# caf\xe9\nx = \xe9\n"  # Latin-1 kept, never converted to UTF-8
    assert client.error("edit_file", {"path": "latin.txt", "edits": [{"oldText": "x", "newText": "\u20ac"}]}
                        ).startswith("ERROR(ENCODING): Text for latin.txt has a character LATIN-1 cannot hold")
    assert latin.read_bytes() == b"# caf\xe9\nx = \xe9\n"


def test_edit_file_dry_run_writes_nothing(client: Client, root: Path) -> None:
    path = root / "dry.txt"
    path.write_text("a\nb\n")
    reply = client.text("edit_file", {"path": "dry.txt", "edits": [{"oldText": "b", "newText": "c"}], "dryRun": True})
    assert reply == ("```diff\nIndex: dry.txt\n" + "=" * 67 + "\n--- dry.txt\toriginal\n+++ dry.txt\tmodified\n"
                     "@@ -1,2 +1,2 @@\n a\n-b\n+c\n```\n\n")
    assert path.read_text() == "a\nb\n"


def test_edit_file_refusals_change_nothing(client: Client, root: Path) -> None:
    path = root / "foo.txt"
    path.write_text("foo\nfoo\nfoo\nbar\n")
    before = path.read_bytes()
    assert client.error("edit_file", {"path": "foo.txt", "edits": [{"oldText": "foo\nfoo\n", "newText": "x"}]}) == (
        "ERROR(PATCH_FAILED): Edit 1: oldText matches more than one place in foo.txt; nothing was written\n"
        "Add surrounding lines to oldText so it matches one place.")
    assert client.error("edit_file", {"path": "foo.txt", "edits": [
        {"oldText": "bar", "newText": "BAR"}, {"oldText": "missing", "newText": "x"}]}) == (
        "ERROR(PATCH_FAILED): Edit 2: oldText not found in foo.txt; nothing was written\n"
        "Read the file again (read_text_file) and copy oldText from it exactly.")
    assert client.error("edit_file", {"path": "foo.txt", "edits": [{"oldText": "bar", "newText": "bar"}]}) == (
        "ERROR(INVALID_PAYLOAD): Edit 1: oldText and newText are the same\nGive the changed text as newText.")
    assert client.error("edit_file", {"path": "foo.txt", "edits": [{"oldText": "", "newText": "x"}]}).startswith(
        "ERROR(INVALID_PAYLOAD): Edit 1: oldText is empty\n")
    assert client.error("edit_file", {"path": "foo.txt", "edits": []}).startswith("ERROR(INVALID_PAYLOAD): No edits")
    assert client.error("edit_file", {"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]}
                        ).startswith("ERROR(NOT_FOUND): ")
    assert path.read_bytes() == before


def test_edit_file_new_text_dollar_patterns_are_literal(client: Client, root: Path) -> None:
    path = root / "dollar.txt"
    path.write_text("price\n")
    client.text("edit_file", {"path": "dollar.txt", "edits": [{"oldText": "price", "newText": "$& $1 $$ $'"}]})
    assert path.read_text() == "$& $1 $$ $'\n"


# -- reads ------------------------------------------------------------------------------------------------------


def test_read_text_file_refusals(client: Client, root: Path) -> None:
    (root / "two.txt").write_text("1\n2\n")
    assert client.error("read_text_file", {"path": "two.txt", "head": 1, "tail": 1}) == (
        "ERROR(INVALID_PAYLOAD): Cannot specify both head and tail parameters simultaneously\n"
        "Give head or tail, not both.")
    assert client.error("read_text_file", {"path": "absent.txt"}).startswith("ERROR(NOT_FOUND): ")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    assert client.error("read_text_file", {"path": "blob.bin"}).startswith("ERROR(BINARY_FILE): ")
    assert client.text("read_text_file", {"path": "two.txt", "tail": 0}) == ""


def test_read_multiple_files_reports_each_failure_in_place(client: Client, root: Path) -> None:
    (root / "m1.txt").write_text("one\n")
    (root / "m2.txt").write_text("two\n")
    reply = client.text("read_multiple_files", {"paths": ["m1.txt", "gone.txt", str(root / "m2.txt")]})
    parts = reply.split("\n---\n")
    assert parts[0] == "m1.txt:\none\n\n"
    assert parts[1].startswith("gone.txt: ERROR(NOT_FOUND): ")
    assert parts[2] == f"{root / 'm2.txt'}:\ntwo\n\n"


def test_read_media_file(client: Client, root: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
    (root / "pic.png").write_bytes(png)
    result = client.call("read_media_file", {"path": "pic.png"})
    assert not result.is_error
    block = result.content[0]
    assert (block.type, block.mime_type, base64.b64decode(block.data)) == ("image", "image/png", png)  # type: ignore[union-attr]
    (root / "sound.wav").write_bytes(b"RIFF0000WAVE")
    block = client.call("read_media_file", {"path": "sound.wav"}).content[0]
    assert (block.type, block.mime_type) == ("audio", "audio/x-wav")  # type: ignore[union-attr]
    (root / "data.bin").write_bytes(b"\x00\xff")
    block = client.call("read_media_file", {"path": "data.bin"}).content[0]
    assert block.type == "resource"
    assert base64.b64decode(block.resource.blob) == b"\x00\xff"  # type: ignore[union-attr]
    assert client.error("read_media_file", {"path": "none.png"}).startswith("ERROR(NOT_FOUND): ")


# -- writes, folders, moves -------------------------------------------------------------------------------------


def test_write_file_creates_overwrites_keeps_crlf_and_is_undoable(client: Client, root: Path,
                                                                  env: dict[str, str]) -> None:
    path = root / "w" / "new.txt"
    assert client.text("write_file", {"path": "w/new.txt", "content": "a\nb\n"}).startswith(
        "Successfully wrote to w/new.txt (change ")
    assert path.read_bytes() == b"a\nb\n"
    crlf = root / "w" / "crlf.txt"
    crlf.write_bytes(b"old\r\n")
    reply = client.text("write_file", {"path": str(crlf), "content": "new\nlines\n"})
    assert crlf.read_bytes() == b"new\r\nlines\r\n"
    change = re.search(r"\(change (\d+), undoable\)$", reply)
    assert change is not None
    assert "ERROR" not in stringsh(root, env, "-c", f"/revert {change.group(1)}")
    assert crlf.read_bytes() == b"old\r\n"


def test_create_list_and_sizes(client: Client, root: Path) -> None:
    assert re.fullmatch(r"Successfully created directory d/e/f \(change \d+, undoable\)",
                        client.text("create_directory", {"path": "d/e/f"}))
    assert client.text("create_directory", {"path": "d/e/f"}) == "Successfully created directory d/e/f"
    (root / "d" / "big.txt").write_bytes(b"x" * 2048)
    (root / "d" / "a.txt").write_bytes(b"xy")
    (root / "d" / ".env").write_text("KEY=1\n")
    assert client.text("list_directory", {"path": "d"}) == "[FILE] a.txt\n[FILE] big.txt\n[DIR] e"
    assert client.text("list_directory_with_sizes", {"path": "d", "sortBy": "size"}).splitlines() == [
        "[FILE] big.txt" + " " * 24 + "   2.00 KB",
        "[FILE] a.txt" + " " * 26 + "       2 B",
        "[DIR] e" + " " * 30,
        "",
        "Total: 2 files, 1 directories",
        "Combined size: 2.00 KB",
    ]
    assert client.error("list_directory", {"path": "d/a.txt"}).startswith("ERROR(INVALID_TARGET): Not a directory")
    assert client.error("list_directory_with_sizes", {"path": "d", "sortBy": "date"}).startswith(
        "ERROR(INVALID_PAYLOAD): list_directory_with_sizes: sortBy: ")


def test_directory_tree_excludes_depth_and_secrets(client: Client, root: Path) -> None:
    for rel in ("t/src/m.py", "t/src/deep/x.py", "t/node_modules/p/i.js", "t/.env"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    tree = json.loads(client.text("directory_tree", {"path": "t", "excludePatterns": ["node_modules"]}))
    assert tree == [{"name": "src", "type": "directory", "children": [
        {"name": "deep", "type": "directory", "children": [{"name": "x.py", "type": "file"}]},
        {"name": "m.py", "type": "file"}]}]
    shallow = json.loads(client.text("directory_tree", {"path": "t", "maxDepth": 1, "excludePatterns": []}))
    assert [(n["name"], n["children"]) for n in shallow] == [("node_modules", []), ("src", [])]


def test_directory_tree_links_secrets_engine_files_and_depth(client: Client, root: Path) -> None:
    """The engine's list_tree gives the tree directory_tree always gave: links listed, never entered (a link to a
    folder inside the root is a directory without children, any other a file), secrets and stringsh's temp files
    left out, `.gitignore`d files kept (a listing, not a search)."""
    import os

    base = root / "t2"
    for rel in ("a/b/c/deep.txt", "a/one.md", "a/.env.local", "keys/.env", "ignored.log", ".gitignore"):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text("*.log\n" if rel == ".gitignore" else "x\n")
    (base / ".~stringsh-tmp").write_text("x\n")
    os.symlink("a", base / "to-folder")
    os.symlink("a/one.md", base / "to-file")
    os.symlink("/", base / "outside")
    tree = json.loads(client.text("directory_tree", {"path": "t2", "excludePatterns": []}))
    a = {"name": "a", "type": "directory", "children": [
        {"name": "b", "type": "directory", "children": [
            {"name": "c", "type": "directory", "children": [{"name": "deep.txt", "type": "file"}]}]},
        {"name": "one.md", "type": "file"}]}
    assert tree == [{"name": ".gitignore", "type": "file"}, a, {"name": "ignored.log", "type": "file"},
                    {"name": "keys", "type": "directory", "children": []}, {"name": "outside", "type": "file"},
                    {"name": "to-file", "type": "file"}, {"name": "to-folder", "type": "directory", "children": []}]
    two = json.loads(client.text("directory_tree", {"path": str(base / "a"), "maxDepth": 2, "excludePatterns": []}))
    assert two == [{"name": "b", "type": "directory", "children": [{"name": "c", "type": "directory",
                                                                    "children": []}]},
                   {"name": "one.md", "type": "file"}]
    excluded = json.loads(client.text("directory_tree", {"path": "t2/a", "excludePatterns": ["b/c", "*.md"]}))
    assert excluded == [{"name": "b", "type": "directory", "children": []}]
    assert client.error("directory_tree", {"path": "t2/keys/.env", "excludePatterns": []}).startswith(
        "ERROR(SECRET_DENIED): ")
    assert client.error("directory_tree", {"path": "t2/a/one.md", "excludePatterns": []}) == (
        "ERROR(INVALID_TARGET): Not a directory\nt2/a/one.md is a file; use /open t2/a/one.md")

def test_move_file(client: Client, root: Path) -> None:
    (root / "mv").mkdir()
    (root / "mv" / "a.txt").write_text("a\n")
    (root / "mv" / "b.txt").write_text("b\n")
    assert client.error("move_file", {"source": "mv/a.txt", "destination": "mv/b.txt"}) == (
        "ERROR(CONFLICT): Destination already exists: mv/b.txt\n"
        "Name a destination that does not exist yet (move_file never overwrites).")
    assert re.fullmatch(re.escape(f"Successfully moved mv/a.txt to {root / 'mv' / 'c.txt'}") + r" \(change \d+, "
                        r"undoable\)", client.text("move_file", {"source": "mv/a.txt",
                                                                  "destination": str(root / "mv" / "c.txt")}))
    assert (root / "mv" / "c.txt").read_text() == "a\n" and not (root / "mv" / "a.txt").exists()
    assert client.error("move_file", {"source": "mv/zzz", "destination": "mv/y"}).startswith("ERROR(NOT_FOUND): ")


def test_search_files_and_file_info(client: Client, root: Path) -> None:
    for rel in ("s/a.py", "s/sub/b.py", "s/sub/c.txt", "s/.env.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    real = root.resolve()
    assert client.text("search_files", {"path": "s", "pattern": "**/*.py"}).splitlines() == [
        str(real / "s/a.py"), str(real / "s/sub/b.py")]
    assert client.text("search_files", {"path": "s", "pattern": "**/*.py", "excludePatterns": ["sub"]}) == str(
        real / "s/a.py")
    assert client.text("search_files", {"path": "s", "pattern": "*.rs"}) == "No matches found"
    info = dict(line.split(": ", 1) for line in client.text("get_file_info", {"path": "s/a.py"}).splitlines())
    assert (info["size"], info["isDirectory"], info["isFile"]) == ("2", "false", "true")
    assert set(info) == {"size", "created", "modified", "accessed", "isDirectory", "isFile", "permissions"}
    assert client.error("get_file_info", {"path": "s/none"}).startswith("ERROR(NOT_FOUND): ")
    assert client.text("list_allowed_directories") == f"Allowed directories:\n{real}"


# -- bad input --------------------------------------------------------------------------------------------------


def test_unknown_tool_and_wrong_types_are_tool_errors(client: Client) -> None:
    assert client.error("no_such_tool", {"x": 1}) == (
        "ERROR(COMMAND_UNSUPPORTED): Unknown tool: no_such_tool\nList the tools (tools/list) and call one of them.")
    assert client.error("read_text_file", {"path": 5}) == (
        "ERROR(INVALID_PAYLOAD): read_text_file: path: Input should be a valid string\n"
        "Give the arguments the tool's input schema asks for (tools/list).")
    assert client.error("edit_file", {"path": "a", "edits": [{"old": "x"}]}).startswith(
        "ERROR(INVALID_PAYLOAD): edit_file: edits.0.oldText: Field required; edits.0.newText: Field required\n")
    assert client.error("read_text_file", {}).startswith("ERROR(INVALID_PAYLOAD): read_text_file: path: ")


def test_huge_arguments_are_refused_or_served_and_the_server_goes_on(client: Client, root: Path) -> None:
    huge = "x" * (8 * 1024 * 1024)
    result = client.call("read_text_file", {"path": huge})
    assert result.is_error and result.content[0].text.startswith("ERROR(")  # type: ignore[union-attr]
    assert huge not in result.content[0].text  # type: ignore[union-attr]
    result = client.call("write_file", {"path": "huge.txt", "content": huge})
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("ERROR(TOO_LARGE): ") if result.is_error else (root / "huge.txt").stat().st_size == len(huge)
    assert client.text("list_allowed_directories").startswith("Allowed directories:\n")


def test_audit_records_carry_mcp_and_the_client_name(client: Client, root: Path, env: dict[str, str]) -> None:
    (root / "audited.txt").write_text("a\n")
    client.text("read_text_file", {"path": "audited.txt"})
    client.text("edit_file", {"path": "audited.txt", "edits": [{"oldText": "a", "newText": "b"}]})
    records = [json.loads(line) for line in stringsh(root, env, "audit", "tail", "--json", "-n", "2").splitlines()]
    assert [(r["op"], r["ops"], r["frontend"], r["agent"], r["paths"]) for r in records] == [
        ("mcp.read_text_file", ["read"], "mcp", CLIENT, ["audited.txt"]),
        ("mcp.edit_file", ["read", "apply"], "mcp", CLIENT, ["audited.txt"])]
