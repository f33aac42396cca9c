"""fs.symbols, fs.readSymbol and fs.editSymbol on a real workspace: exact summaries and payloads, the confirmer
shown the diff, the String Commands' refusals (the same engine operations), nothing written on a refusal."""

from __future__ import annotations

from pathlib import Path

from stringsh.protocol.operator_model import ConfirmRequest, Result
from stringsh.workspace import Workspace
from tests.dialects.operator.actions_support import Recorder, run, snapshot

APP = ("class Parser:\r\n    def parse(self, text):\r\n        return text.split()\r\n\r\n\r\n"
       "def main():\r\n    pass\r\n")


def test_symbol_actions_find_read_edit_and_refuse(ws: Path) -> None:
    (ws / "app.py").write_bytes(APP.encode())
    workspace = Workspace(ws)
    assert run(workspace, "fs.symbols", path=".", query="parse") == Result(
        "c1", True, "Found 2 symbols",
        "# symbols in .\n# query: parse\n# matches: 2\n\napp.py:L2-L3 method #Parser.parse\napp.py:L1-L3 class #Parser")
    assert run(workspace, "fs.symbols", path="app.py", query="text", refs="true") == Result(
        "c1", True, "Found 2 references (syntactic)",
        "# symbols in app.py\n# query: text\n# matches: 2\n\n"
        "app.py:2:21: parameter in #Parser.parse: def parse(self, text):\n"
        "app.py:3:16: parameter in #Parser.parse: return text.split()")
    assert run(workspace, "fs.readSymbol", path="app.py", symbol="Parser.parse") == Result(
        "c1", True, "Read symbol (2-3)",
        "# app.py#Parser.parse\n# method, lines 2-3\n\n     2:     def parse(self, text):\n"
        "     3:         return text.split()")
    before = snapshot(ws)
    refused = run(workspace, "fs.editSymbol", path="app.py", symbol="main", body_b64="def other():\n    pass")
    assert refused == Result("c1", False, "INVALID_PAYLOAD: Refusing to edit app.py#main: the body defines other "
                                          "(function), not main (function).")
    assert run(workspace, "fs.editSymbol", Recorder("no"), path="app.py", symbol="main",
               body_b64="def main():\n    return 0").ok is False
    assert snapshot(ws) == before
    confirm = Recorder()
    assert run(workspace, "fs.editSymbol", confirm, path="app.py", symbol="main",
               body_b64="def main():\n    return 0") == Result("c1", True, "Edited symbol")
    assert confirm.requests[0].summary == "replace app.py#main"
    assert "-    pass\n+    return 0" in confirm.requests[0].diff
    assert run(workspace, "fs.editSymbol", path="app.py", symbol="main", position="before",
               body_b64="def first():\n    return 1") == Result("c1", True, "Inserted symbol")
    assert (ws / "app.py").read_bytes() == APP.replace("def main():\r\n    pass", "def first():\r\n    return 1"
                                                       "\r\n\r\n\r\ndef main():\r\n    return 0").encode()


class OtherClientMeanwhile(Recorder):
    """A confirmer during whose question another client writes the file (a second engine on the same folder)."""

    def __init__(self, root: Path, old: str, new: str) -> None:
        super().__init__()
        self.other, self.old, self.new = Workspace(root), old, new

    def __call__(self, request: ConfirmRequest) -> str | None:
        text = self.other.read_text("box.py").text
        self.other.write_text("box.py", text.replace(self.old, self.new), topic="other")
        return super().__call__(request)


def test_edit_symbol_is_held_against_the_symbol_not_the_file(ws: Path) -> None:
    (ws / "box.py").write_text("class Box:\n    def a(self):\n        return 0\n\n    def b(self):\n        return 0\n")
    workspace = Workspace(ws)
    elsewhere = OtherClientMeanwhile(ws, "return 0\n\n", "return 'other'\n\n")  # method a, while b is edited
    assert run(workspace, "fs.editSymbol", elsewhere, path="box.py", symbol="Box.b",
               body_b64="    def b(self):\n        return 1") == Result("c1", True, "Edited symbol")
    assert (ws / "box.py").read_text() == (
        "class Box:\n    def a(self):\n        return 'other'\n\n    def b(self):\n        return 1\n")
    same = OtherClientMeanwhile(ws, "return 1", "return 'theirs'")  # method b itself
    refused = run(workspace, "fs.editSymbol", same, path="box.py", symbol="Box.b",
                  body_b64="    def b(self):\n        return 2")
    assert (refused.ok, refused.summary) == (
        False, "CONFLICT: Refusing to edit box.py#Box.b: the block changed since this topic read it; nothing was "
               "written.")
    assert (ws / "box.py").read_text().endswith("    def b(self):\n        return 'theirs'\n")
