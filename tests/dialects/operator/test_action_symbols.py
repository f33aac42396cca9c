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
                                          "(function), not main (function).",
                             'To add a definition use fs.editSymbol {"path": "app.py", "symbol": "main", "position": '
                             '"after"} (or before); to write it anyway: fs.editSymbol {"path": "app.py", "symbol": '
                             '"main", "force": true}. Nothing was written.')
    assert run(workspace, "fs.editSymbol", Recorder("no"), path="app.py", symbol="main",
               body_b64="def main():\n    return 0").ok is False
    assert snapshot(ws) == before
    confirm = Recorder()
    assert run(workspace, "fs.editSymbol", confirm, path="app.py", symbol="main",
               body_b64="def main():\n    return 0") == Result("c1", True, "Edited symbol", change_id=1)
    assert confirm.requests[0].summary == "replace app.py#main"
    assert "-    pass\n+    return 0" in confirm.requests[0].diff
    assert run(workspace, "fs.editSymbol", path="app.py", symbol="main", position="before",
               body_b64="def first():\n    return 1") == Result("c1", True, "Inserted symbol", change_id=2)
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
               body_b64="    def b(self):\n        return 1") == Result("c1", True, "Edited symbol",
                                                                            change_id=2)
    assert (ws / "box.py").read_text() == (
        "class Box:\n    def a(self):\n        return 'other'\n\n    def b(self):\n        return 1\n")
    same = OtherClientMeanwhile(ws, "return 1", "return 'theirs'")  # method b itself
    refused = run(workspace, "fs.editSymbol", same, path="box.py", symbol="Box.b",
                  body_b64="    def b(self):\n        return 2")
    assert (refused.ok, refused.summary) == (
        False, "CONFLICT: Refusing to edit box.py#Box.b: the block changed since this topic read it; nothing was "
               "written.")
    assert (ws / "box.py").read_text().endswith("    def b(self):\n        return 'theirs'\n")


class CartChangedMeanwhile(Recorder):
    """A confirmer during whose question another client adds a line to shop/cart.py."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.other = Workspace(root)

    def __call__(self, request: ConfirmRequest) -> str | None:
        self.other.append_text("shop/cart.py", "EMPTY = Cart()\n", topic="other")
        return super().__call__(request)


def test_rename_symbol_is_confirmed_with_every_files_diff_and_is_one_change(ws: Path) -> None:
    from tests.commands.refs_projects import PYTHON, write

    write(ws, PYTHON)
    workspace = Workspace(ws)
    before = snapshot(ws)
    preview = run(workspace, "fs.renameSymbol", path="shop/pricing.py", symbol="total", new_name="grand_total",
                  dry_run="true")
    assert preview.ok and preview.summary == (
        "Would rename symbol (6 sites in 3 files (shop/pricing.py 2, cli.py 1, shop/cart.py 3))")
    assert preview.details.startswith("--- a/shop/pricing.py\n+++ b/shop/pricing.py\n@@ -1,6 +1,6 @@\n"
                                      "-def total(items):\n+def grand_total(items):\n")
    assert "+from .pricing import grand_total\n" in preview.details
    assert snapshot(ws) == before
    refused = run(workspace, "fs.renameSymbol", path="shop/cart.py", symbol="Cart.total", new_name="amount")
    assert refused == Result("c1", False, "AMBIGUOUS_REFERENCE: Refusing to rename shop/cart.py#Cart.total: 1 site "
                                          "may or may not refer to it, and syntax cannot tell; nothing was written.")
    assert run(workspace, "fs.renameSymbol", Recorder("no"), path="shop/pricing.py", symbol="total",
               new_name="grand_total").ok is False
    assert run(workspace, "fs.renameSymbol", path="shop/pricing.py", symbol="total", new_name="1x").summary == (
        "INVALID_PAYLOAD: Not a python identifier: '1x'; nothing was written.")
    assert snapshot(ws) == before
    meanwhile = CartChangedMeanwhile(ws)
    assert run(workspace, "fs.renameSymbol", meanwhile, path="shop/pricing.py", symbol="total",
               new_name="grand_total").summary == (
        "CONFLICT: shop/cart.py changed since it was read; nothing was written.")
    assert meanwhile.requests[0].summary == "rename shop/pricing.py#total to grand_total"
    assert snapshot(ws) == {**before, "shop/cart.py": before["shop/cart.py"] + b"EMPTY = Cart()\n"}
    confirm = Recorder()
    done = run(workspace, "fs.renameSymbol", confirm, path="shop/pricing.py", symbol="total", new_name="grand_total")
    assert done.summary == "Renamed symbol (6 sites in 3 files (shop/pricing.py 2, cli.py 1, shop/cart.py 3))"
    assert ("-    return total(items) * (1 + rate)\n+    return grand_total(items) * (1 + rate)"
            in confirm.requests[0].diff)
    assert (ws / "shop" / "cart.py").read_text().startswith("from .pricing import grand_total\n")
    assert [f.rel for f in workspace.undo("main").files] == ["shop/pricing.py", "cli.py", "shop/cart.py"]
    assert snapshot(ws) == {**before, "shop/cart.py": before["shop/cart.py"] + b"EMPTY = Cart()\n"}


def test_find_definition_jumps_from_a_use_like_symbols_def(ws: Path) -> None:
    from tests.commands.refs_projects import PYTHON, write

    write(ws, PYTHON)
    workspace = Workspace(ws)
    assert run(workspace, "fs.findDefinition", path="cli.py", line="10", column="35") == Result(
        "c1", True, "Found 1 definition",
        "# definition of total at cli.py:10:35\n# found: through the import of shop.pricing\n# definitions: 1\n\n"
        "shop/pricing.py:1:5: function #total")
    assert run(workspace, "fs.findDefinition", path="cli.py", line="99", column="1") == Result(
        "c1", False, "NOT_FOUND: No identifier at cli.py:99:1")
    assert run(workspace, "fs.findDefinition", path="cli.py", line="10", column="x") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_INVALID_POSITION): line and column must be whole numbers from 1.")


def test_read_symbol_plain_gives_the_lines_edit_symbol_takes_back(ws: Path) -> None:
    (ws / "app.py").write_bytes(APP.encode())
    workspace = Workspace(ws)
    assert run(workspace, "fs.readSymbol", path="app.py", symbol="Parser.parse", plain="true") == Result(
        "c1", True, "Read symbol (2-3)",
        "# app.py#Parser.parse\n# method, lines 2-3\n\n    def parse(self, text):\n        return text.split()")
    assert run(workspace, "fs.readSymbol", path="app.py", symbol="Parser.parse", plain="yes") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_INVALID_FLAG): plain must be true or false.")
