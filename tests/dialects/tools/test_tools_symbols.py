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
                                                          "lines_replaced": 2, "lines_written": 2, "total_lines": 7}}
    assert replies[3] == {"id": 4, "ok": True, "result": {"success": True, "file_path": "app.py", "start_line": 10,
                                                          "lines_replaced": 0, "lines_written": 2, "total_lines": 11}}
    assert replies[4] == {
        "id": 5, "ok": False, "code": "INVALID_PAYLOAD",
        "error": "Refusing to edit app.py#main: the body defines other (function), not main (function).",
        "hint": "To add a definition use --after or --before; to write it anyway: /edit --force app.py#main. "
                "Nothing was written."}
    assert replies[5] == {"id": 6, "ok": True, "result": {"references": [
        {"file_path": "app.py", "line_number": 2, "column": 21, "line": "    def parse(self, text):",
         "role": "parameter", "container": "Parser.parse"},
        {"file_path": "app.py", "line_number": 3, "column": 17, "line": "        return [text]",
         "role": "parameter", "container": "Parser.parse"}]}}
    assert replies[6]["ok"] is False and replies[6]["code"] == "SECRET_DENIED"
    assert (ws / "app.py").read_bytes() == APP.replace("text.split()", "[text]").encode() + (
        b"\r\n\r\ndef extra():\r\n    return 1\r\n")
