"""The JSON tools `symbols`, `read_symbol` and `edit_symbol` through one real `stringsh tools` run: exact replies,
exact bytes, and the String Commands' refusals (the same engine operations)."""

from __future__ import annotations

from pathlib import Path

from tests.dialects.tools.client import steady, tools

APP = ("class Parser:\r\n    def parse(self, text):\r\n        return text.split()\r\n\r\n\r\n"
       "def main():\r\n    pass\r\n")


def test_symbol_tools_find_read_edit_insert_and_refuse(ws: Path) -> None:
    (ws / "app.py").write_bytes(APP.encode())
    (ws / ".env").write_text("TOKEN=x\n")
    replies = [steady(r) for r in tools(
        ws,
        {"id": 1, "tool": "symbols", "args": {"query": "parse"}},
        {"id": 2, "tool": "read_symbol", "args": {"file_path": "/workspace/app.py", "symbol": "Parser.parse"}},
        {"id": 3, "tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "Parser.parse",
                                                  "new_body": "def parse(self, text):\n    return [text]\n"}},
        {"id": 4, "tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main", "position": "after",
                                                  "new_body": "def extra():\n    return 1"}},
        {"id": 5, "tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main",
                                                  "new_body": "def other():\n    pass"}},
        {"id": 6, "tool": "symbols", "args": {"query": "text", "path": "app.py", "refs": True}},
        {"id": 7, "tool": "read_symbol", "args": {"file_path": ".env", "symbol": "x"}},
    )]
    assert replies[0] == {"id": 1, "ok": True, "result": {"symbols": [
        {"file_path": "app.py", "id": "Parser.parse", "name": "parse", "kind": "method", "start_line": 2,
         "end_line": 3},
        {"file_path": "app.py", "id": "Parser", "name": "Parser", "kind": "class", "start_line": 1, "end_line": 3}]}}
    assert replies[1] == {"id": 2, "ok": True, "result": {
        "file_path": "app.py", "id": "Parser.parse", "kind": "method", "start_line": 2, "end_line": 3,
        "content": "    def parse(self, text):\n        return text.split()"}}
    assert replies[2] == {"id": 3, "ok": True, "result": {"success": True, "file_path": "app.py", "start_line": 2,
                                                          "lines_replaced": 2, "lines_written": 2, "total_lines": 7,
                                                          "change_id": 1}}
    assert replies[3] == {"id": 4, "ok": True, "result": {"success": True, "file_path": "app.py", "start_line": 10,
                                                          "lines_replaced": 0, "lines_written": 2, "total_lines": 11,
                                                          "change_id": 2}}
    assert replies[4] == {
        "id": 5, "ok": False, "code": "INVALID_PAYLOAD",
        "error": "Refusing to edit app.py#main: the body defines other (function), not main (function).",
        "hint": 'To add a definition use edit_symbol {"file_path": "app.py", "symbol": "main", "position": "after"} '
                '(or before); to write it anyway: edit_symbol {"file_path": "app.py", "symbol": "main", "force": '
                'true}. Nothing was written.'}
    assert replies[5] == {"id": 6, "ok": True, "result": {"references": [
        {"file_path": "app.py", "line_number": 2, "column": 21, "line": "    def parse(self, text):",
         "role": "parameter", "container": "Parser.parse"},
        {"file_path": "app.py", "line_number": 3, "column": 17, "line": "        return [text]",
         "role": "parameter", "container": "Parser.parse"}]}}
    assert replies[6]["ok"] is False and replies[6]["code"] == "SECRET_DENIED"
    assert (ws / "app.py").read_bytes() == APP.replace("text.split()", "[text]").encode() + (
        b"\r\n\r\ndef extra():\r\n    return 1\r\n")


def test_rename_previews_writes_as_one_change_and_lists_ambiguous_sites(ws: Path) -> None:
    from tests.commands.refs_projects import PYTHON, snapshot, write

    write(ws, PYTHON)
    before = snapshot(ws)
    rename = {"file_path": "shop/pricing.py", "symbol": "total", "new_name": "grand_total"}
    files = [{"file_path": "shop/pricing.py", "sites": 2}, {"file_path": "cli.py", "sites": 1},
             {"file_path": "shop/cart.py", "sites": 3}]
    replies = tools(
        ws,
        {"id": 1, "tool": "symbols", "args": {"query": "shop/cart.py#Cart.total", "refs": True}},
        {"id": 2, "tool": "rename", "args": {**rename, "dry_run": True}},
        {"id": 3, "tool": "rename", "args": {"file_path": "shop/cart.py", "symbol": "Cart.total", "new_name": "x"}},
        {"id": 4, "tool": "rename", "args": {**rename, "new_name": "with_tax"}},
        {"id": 5, "tool": "rename", "args": rename},
    )
    assert replies[0] == {"id": 1, "ok": True, "result": {
        "definition": {"file_path": "shop/cart.py", "id": "Cart.total"},
        "references": [
            {"file_path": "shop/cart.py", "line_number": 9, "column": 9, "line": "    def total(self):",
             "role": "definition", "container": "Cart"},
            {"file_path": "shop/cart.py", "line_number": 13, "column": 22, "line": "        total = self.total()",
             "role": "member", "container": "Cart.summary", "via": "self"}],
        "ambiguous": [
            {"file_path": "cli.py", "line_number": 10, "column": 60,
             "line": "    print(json.dumps(shop.pricing.total(cart.items)), cart.total())", "role": "member",
             "container": "main", "via": "cart", "why": "a member of cart, whose type syntax does not tell"}]}}
    assert replies[1]["ok"] and replies[1]["result"]["files"] == files and replies[1]["result"]["dry_run"] is True
    assert replies[1]["result"]["diff"].startswith(
        "[shop/pricing.py]\n1   - def total(items):\n  1 + def grand_total(items):\n")
    assert {key: replies[2][key] for key in ("ok", "code")} == {"ok": False, "code": "AMBIGUOUS_REFERENCE"}
    assert replies[2]["hint"].startswith("cli.py:10:60: a member of cart, whose type syntax does not tell: ")
    assert {key: replies[3][key] for key in ("ok", "code")} == {"ok": False, "code": "NAME_TAKEN"}
    assert replies[4] == {"id": 5, "ok": True, "result": {"success": True, "sites": 6, "files": files,
                                                          "change_id": replies[4]["result"]["change_id"]}}
    after = snapshot(ws)
    assert after["shop/cart.py"].startswith(b"from .pricing import grand_total\n")
    assert after["cli.py"].endswith(b"shop.pricing.grand_total(cart.items)), cart.total())\n")
    assert tools(ws, {"id": 6, "tool": "undo", "args": {}})[0]["ok"] is True  # one undo takes every file back
    assert snapshot(ws) == before


def test_definition_jumps_from_a_use_like_symbols_def_and_refuses_a_position_without_a_name(ws: Path) -> None:
    from tests.commands.refs_projects import PYTHON, write

    write(ws, PYTHON)
    replies = [steady(r) for r in tools(
        ws,
        {"id": 1, "tool": "definition", "args": {"file_path": "cli.py", "line": 10, "column": 35}},
        {"id": 2, "tool": "definition", "args": {"file_path": "shop/cart.py", "line": 14, "column": 19}},
        {"id": 3, "tool": "definition", "args": {"file_path": "cli.py", "line": 99, "column": 1}},
        {"id": 4, "tool": "definition", "args": {"file_path": "cli.py", "line": 0, "column": 1}},
    )]
    assert replies[0] == {"id": 1, "ok": True, "result": {
        "name": "total", "how": "through the import of shop.pricing", "definitions": [
            {"file_path": "shop/pricing.py", "line_number": 1, "column": 5, "kind": "function", "id": "total"}]}}
    assert replies[1] == {"id": 2, "ok": True, "result": {
        "name": "total", "how": "a local binding of #Cart.summary", "definitions": [
            {"file_path": "shop/cart.py", "line_number": 13, "column": 9, "kind": "local binding", "id": ""}]}}
    assert replies[2] == {"id": 3, "ok": False, "code": "NOT_FOUND", "error": "No identifier at cli.py:99:1",
                          "hint": "Give the line and column of a name, as /symbols --refs NAME cli.py lists them."}
    assert replies[3]["ok"] is False and replies[3]["code"] == "INVALID_ARGS"
