"""The symbol tools on `stringsh mcp` (real stdio, the SDK's client): each is one String Command, so its reply is
`/symbols`', `/open`'s or `/edit`'s exactly, with the same refusals and nothing written on a refusal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.changeline import changed
from tests.dialects.mcp.client import Client, stdio_session

APP = ("class Parser:\r\n    def parse(self, text):\r\n        return text.split()\r\n\r\n\r\n"
       "def main():\r\n    pass\r\n")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpsymbols").resolve() / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="symbols-client", env=env) as session:
        yield session


def test_the_symbol_tools_run_their_string_commands(client: Client, root: Path) -> None:
    (root / "app.py").write_bytes(APP.encode())
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert {name: tools[name].annotations.read_only_hint for name in (  # type: ignore[union-attr]
        "symbols_overview", "find_symbol", "view_symbol", "replace_symbol", "insert_symbol", "find_references")} == {
        "symbols_overview": True, "find_symbol": True, "view_symbol": True, "replace_symbol": False,
        "insert_symbol": False, "find_references": True}
    assert client.text("symbols_overview", {"path": "app.py"}) == (
        're: /symbols -- \'*\' app.py\nSymbols "*" in app.py: 3 definitions in 1 file\n---\n'
        "@s1 app.py:L1-L3  class     #Parser\n@s2 app.py:L2-L3  method    #Parser.parse\n"
        "@s3 app.py:L6-L7  function  #main\n\nOpen one: /open @s1 (or /open app.py#Parser)\n"
        "3 definitions in 1 file; 1 source file indexed; scanned 1 file (1 entry)")
    assert client.text("view_symbol", {"target": "app.py#Parser.parse"}) == (
        "re: /open -- app.py#Parser.parse\nOpened app.py#Parser.parse\n---\n"
        "2 |     def parse(self, text):\n3 |         return text.split()\n\n(method Parser.parse, lines 2-3 of 7)")
    assert changed(client.text("replace_symbol", {"target": "app.py#Parser.parse",
                                                  "body": "def parse(self, text):\n    return text.split(',')\n"})) == (
        "re: /edit -- app.py#Parser.parse\nEdited app.py#Parser.parse (7 lines): 2 lines replaced by 2 lines")
    assert changed(client.text("insert_symbol", {"target": "app.py#main", "body": "def helper():\n    return 1",
                                                 "position": "before"})) == (
        "re: /edit --before -- app.py#main\nInserted 2 lines before app.py#main (11 lines), from line 6")
    assert (root / "app.py").read_bytes() == APP.replace("split()", "split(',')").replace(
        "def main", "def helper():\r\n    return 1\r\n\r\n\r\ndef main").encode()
    assert client.text("find_references", {"name": "parse", "path": "app.py"}).startswith(
        're: /symbols --refs -- parse app.py\nReferences to "parse" in app.py: 1 occurrence in 1 file\n---\n'
        "app.py:2:9: definition in #Parser: def parse(self, text):\n")
    assert client.text("find_symbol", {"query": "help"}).startswith(
        're: /symbols -- help\nSymbols "help" in ./: 1 definition in 1 file\n---\n@s1 app.py:L6-L7  function  #helper')


def test_view_symbol_plain_gives_the_whole_body_replace_symbol_takes_back(client: Client, root: Path) -> None:
    long = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(900)) + "    return x0\n"
    (root / "big.py").write_text("import os\n\n\n" + long + "\n\nKEY = 'AKIA" + "Q7W3E5R7T9Y1U3I5'\n")
    plain = client.text("view_symbol", {"target": "big.py#long", "plain": True})
    assert plain == long.rstrip("\n")  # every line, no numbers, no cut (a numbered view stops at its limit)
    assert "[cut]" in client.text("view_symbol", {"target": "big.py#long"})
    assert changed(client.text("replace_symbol", {"target": "big.py#long", "body": plain.replace("x0", "x1")})) == (
        "re: /edit -- big.py#long\nEdited big.py#long (908 lines): 902 lines replaced by 902 lines")
    assert client.error("view_symbol", {"target": "big.py#long", "plain": True, "fromLine": 5}) == (
        "ERROR(INVALID_PAYLOAD): plain gives the whole definition: fromLine and toLine do not go with it\n"
        "Drop fromLine and toLine, or plain.")
    assert client.error("view_symbol", {"target": "big.py#nope", "plain": True}).startswith(
        "ERROR(BLOCK_NOT_FOUND): Block not found: #nope in big.py\n")
    assert client.error("view_symbol", {"target": "big.py", "plain": True}) == (
        "ERROR(INVALID_TARGET): Not a path#Symbol: big.py\n"
        "Name the file and the symbol: src/app.py#Parser.parse (symbols_overview lists them).")


def test_refusals_write_nothing(client: Client, root: Path) -> None:
    (root / "app.py").write_bytes(APP.encode())
    assert client.text("view_symbol", {"target": "app.py#main"}).startswith("re: /open -- app.py#main\nOpened")
    assert client.error("replace_symbol", {"target": "app.py", "body": "x"}) == (
        "ERROR(INVALID_TARGET): Not a path#Symbol: app.py\n"
        "Name the file and the symbol: src/app.py#Parser.parse (symbols_overview lists them).")
    assert client.error("replace_symbol", {"target": "app.py#main", "body": "def main(:\n    pass"}) == (
        "re: /edit -- app.py#main\nERROR(INVALID_PAYLOAD): Refusing to edit app.py#main: with this body the python "
        "parser finds an error at line 6, column 10 (body line 1), and the file had none.\n"
        'Fix the body, or write it anyway: replace_symbol {"target": "app.py#main", "force": true}. Nothing was '
        "written.")
    assert client.error("view_symbol", {"target": "app.py#nope"}) == (
        "re: /open -- app.py#nope\nERROR(BLOCK_NOT_FOUND): Block not found: #nope in app.py\n"
        "Available blocks: Parser, Parser.parse, main")
    assert (root / "app.py").read_bytes() == APP.encode()


def test_rename_symbol_and_find_definition_run_rename_and_symbols_def(client: Client, root: Path) -> None:
    from tests.commands.refs_projects import PYTHON, snapshot, write

    write(root / "proj", PYTHON)
    before = snapshot(root / "proj")
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert {name: tools[name].annotations.read_only_hint for name in (  # type: ignore[union-attr]
        "find_definition", "rename_symbol")} == {"find_definition": True, "rename_symbol": False}
    assert client.text("find_definition", {"position": "proj/shop/cart.py:10:16"}) == (
        "re: /symbols --def -- proj/shop/cart.py:10:16\nDefinition of \"total\" at proj/shop/cart.py:10:16: 1 "
        "definition, imported from .pricing\n---\nproj/shop/pricing.py:1:5: function #total\n\n"
        "Open it: /open proj/shop/pricing.py#total")
    assert client.text("find_references", {"name": "proj/shop/pricing.py#total"}).startswith(
        "re: /symbols --refs -- proj/shop/pricing.py#total\nReferences to proj/shop/pricing.py#total in ./: 6 sites in "
        "3 files\n---\nproj/shop/pricing.py:1:5: definition at top level: def total(items):\n")
    assert client.text("rename_symbol", {"target": "proj/shop/pricing.py#total", "newName": "grand_total",
                                         "dryRun": True}).startswith(
        "re: /rename --dry-run -- proj/shop/pricing.py#total grand_total\nWould rename proj/shop/pricing.py#total to "
        "grand_total: 6 sites in 3 files (proj/shop/pricing.py 2, proj/cli.py 1, proj/shop/cart.py 3); nothing was "
        "written\n---\n[proj/shop/pricing.py]\n")
    assert client.error("rename_symbol", {"target": "proj/shop/pricing.py#total", "newName": "grand total"}) == (
        "re: /rename -- proj/shop/pricing.py#total 'grand total'\nERROR(INVALID_PAYLOAD): Not a python identifier: "
        "'grand total'; nothing was written.\n"
        "Give NEW as a plain name of the language (letters, digits and _, not a keyword).")
    assert snapshot(root / "proj") == before
    assert changed(client.text("rename_symbol", {"target": "proj/shop/pricing.py#total",
                                                 "newName": "grand_total"})) == (
        "re: /rename -- proj/shop/pricing.py#total grand_total\nRenamed proj/shop/pricing.py#total to grand_total: "
        "6 sites in 3 files (proj/shop/pricing.py 2, proj/cli.py 1, proj/shop/cart.py 3)\n---\n"
        "Identifiers only: strings and comments that spell total (docs, __all__, getattr) are left as they are.\n"
        "Use /undo to take the whole rename back.")
    assert (root / "proj" / "shop" / "cart.py").read_text().startswith("from .pricing import grand_total\n")
    assert client.text("undo").startswith("re: /undo\nUndo: reverted proj/shop/pricing.py (6 lines); ")
    assert snapshot(root / "proj") == before
