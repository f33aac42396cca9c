"""/rename path#Symbol NEW: the definition and its references by scope, across files, as one change set, on real
projects (a Python package, JavaScript modules, a Go module): the exact reply, every file's bytes after the rename
and after one /undo, and each refusal with its code and hint, nothing written."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body
from tests.commands.refs_projects import GO, JAVASCRIPT, PYTHON, snapshot, write

LEFT = "Identifiers only: strings and comments that spell {} (docs, __all__, getattr) are left as they are."


def test_python_package_renamed_across_imports_and_undone_at_once(ws: Path, dispatcher) -> None:
    write(ws, PYTHON)
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename shop/pricing.py#total grand_total").text) == (
        "Renamed shop/pricing.py#total to grand_total: 6 sites in 3 files (shop/pricing.py 2, cli.py 1, "
        f"shop/cart.py 3)\n---\n{LEFT.format('total')}\nUse /undo to take the whole rename back."
    )
    after = snapshot(ws)
    assert after["shop/pricing.py"] == (
        b"def grand_total(items):\n    return sum(item.price for item in items)\n\n\n"
        b"def with_tax(items, rate):\n    return grand_total(items) * (1 + rate)\n"
    )
    assert after["shop/cart.py"] == (  # the method, self.total(), the local `total` and the f-string's are not it
        b"from .pricing import grand_total\nfrom . import pricing\n\n\nclass Cart:\n    def __init__(self):\n"
        b"        self.items = []\n\n    def total(self):\n        return grand_total(self.items)\n\n"
        b"    def summary(self):\n        total = self.total()\n"
        b'        return f"{total} ({pricing.grand_total(self.items)})"\n'
    )
    assert after["cli.py"] == (  # json.dumps, cart.total() and the comment are left alone
        b"import json\n\nimport shop.pricing\nfrom shop.cart import Cart\n\n\ndef main(path):\n    cart = Cart()\n"
        b"    # total is printed twice\n    print(json.dumps(shop.pricing.grand_total(cart.items)), cart.total())\n"
    )
    assert {rel: data for rel, data in after.items() if rel not in ("shop/pricing.py", "shop/cart.py", "cli.py")} \
        == {rel: data for rel, data in before.items() if rel not in ("shop/pricing.py", "shop/cart.py", "cli.py")}
    assert body(dispatcher.execute("/undo").text) == (
        "Undo: reverted shop/pricing.py (6 lines); reverted cli.py (10 lines); reverted shop/cart.py (14 lines)"
    )
    assert snapshot(ws) == before


def test_dry_run_shows_every_files_diff_and_writes_nothing(ws: Path, dispatcher) -> None:
    write(ws, JAVASCRIPT)
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename lib/format.js#pad padLeft --dry-run").text) == (
        "Would rename lib/format.js#pad to padLeft: 6 sites in 3 files (lib/format.js 3, app.mjs 1, lib/table.js 2); "
        "nothing was written\n---\n"
        "[lib/format.js]\n"
        "1   - function pad(text, width) {\n"
        "  1 + function padLeft(text, width) {\n"
        "2 2 |   return text.padStart(width);\n"
        "3 3 | }\n"
        "4 4 | \n"
        "5 5 | function row(cells) {\n"
        '6   -   return cells.map((c) => pad(c, 8)).join("|");\n'
        '  6 +   return cells.map((c) => padLeft(c, 8)).join("|");\n'
        "7 7 | }\n"
        "8 8 | \n"
        "9   - module.exports = { pad, row };\n"
        "  9 + module.exports = { padLeft, row };\n"
        "[app.mjs]\n"
        '1   - import { pad as padText } from "./lib/format.js";\n'
        '  1 + import { padLeft as padText } from "./lib/format.js";\n'
        "2 2 | \n"
        "3 3 | export const title = (t) => padText(t, 20);\n"
        "[lib/table.js]\n"
        ' 1    - const { pad } = require("./format");\n'
        '    1 + const { padLeft } = require("./format");\n'
        ' 2  2 | const format = require("./format");\n'
        " 3  3 | \n"
        " 4  4 | class Table {\n"
        " 5  5 |   pad(width) {\n"
        " 6    -     return this.rows.map((r) => pad(r, width));\n"
        "    6 +     return this.rows.map((r) => padLeft(r, width));\n"
        " 7  7 |   }\n"
        " 8  8 | \n"
        " 9  9 |   render() {\n\n"
        f"{LEFT.format('pad')}\nApply it: /rename lib/format.js#pad padLeft"
    )
    assert snapshot(ws) == before


def test_javascript_modules_renamed_through_require_and_import(ws: Path, dispatcher) -> None:
    write(ws, JAVASCRIPT)
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename lib/format.js#pad padLeft").text).startswith(
        "Renamed lib/format.js#pad to padLeft: 6 sites in 3 files (lib/format.js 3, app.mjs 1, lib/table.js 2)\n"
    )
    after = snapshot(ws)
    assert after["lib/table.js"] == (  # the method pad and this.pad(4) are the class's own
        b'const { padLeft } = require("./format");\nconst format = require("./format");\n\nclass Table {\n'
        b"  pad(width) {\n    return this.rows.map((r) => padLeft(r, width));\n  }\n\n  render() {\n"
        b"    return format.row(this.pad(4));\n  }\n}\n\nmodule.exports = Table;\n"
    )
    assert after["app.mjs"] == (
        b'import { padLeft as padText } from "./lib/format.js";\n\nexport const title = (t) => padText(t, 20);\n'
    )
    dispatcher.execute("/undo")
    assert snapshot(ws) == before


def test_go_package_renamed_in_its_folder_and_where_it_is_imported(ws: Path, dispatcher) -> None:
    write(ws, GO)
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename money/money.go#Format Render").text).startswith(
        "Renamed money/money.go#Format to Render: 3 sites in 3 files (money/money.go 1, main.go 1, money/sum.go 1)\n"
    )
    after = snapshot(ws)
    assert after["money/sum.go"] == before["money/sum.go"].replace(b"return Format(", b"return Render(")
    assert after["main.go"] == before["main.go"].replace(b"money.Format(", b"money.Render(")
    assert after["money/money.go"] == before["money/money.go"].replace(b"func Format(", b"func Render(")
    assert body(dispatcher.execute("/undo").text).startswith("Undo: reverted money/money.go")
    assert snapshot(ws) == before
    assert body(dispatcher.execute("/rename money/money.go#Format render").text) == (
        "ERROR(INVALID_PAYLOAD): render would not be exported, and main.go uses Format from another package; nothing "
        "was written.\nKeep a capital first letter: Render"
    )
    assert snapshot(ws) == before


def test_an_ambiguous_site_is_listed_and_nothing_is_written(ws: Path, dispatcher) -> None:
    write(ws, PYTHON)
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename shop/cart.py#Cart.total amount").text) == (
        "ERROR(AMBIGUOUS_REFERENCE): Refusing to rename shop/cart.py#Cart.total: 1 site may or may not refer to it, "
        "and syntax cannot tell; nothing was written.\n"
        "cli.py:10:60: a member of cart, whose type syntax does not tell: "
        "print(json.dumps(shop.pricing.total(cart.items)), cart.total())\n"
        "Change those by hand (/edit), then rename; /symbols --refs shop/cart.py#Cart.total lists every site."
    )
    assert snapshot(ws) == before


def test_bad_names_and_targets_are_refused_with_a_hint(ws: Path, dispatcher) -> None:
    write(ws, PYTHON)
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "tool.py").write_text("def total():\n    return 1\n")
    before = snapshot(ws)
    replies = {line: body(dispatcher.execute(line).text) for line in (
        "/rename shop/pricing.py#nope x", "/rename shop/pricing.py#total grand-total",
        "/rename shop/pricing.py#total class", "/rename shop/pricing.py#total total",
        "/rename shop/pricing.py#total with_tax", "/rename shop/pricing.py#total rate",
        "/rename .ssh/tool.py#total amount", "/rename shop/pricing.py#total", "/rename shop/pricing.py amount")}
    assert replies == {
        "/rename shop/pricing.py#nope x": "ERROR(BLOCK_NOT_FOUND): Block not found: #nope in shop/pricing.py\n"
                                          "Available blocks: total, with_tax",
        "/rename shop/pricing.py#total grand-total": "ERROR(INVALID_PAYLOAD): Not a python identifier: 'grand-total'; "
                                                     "nothing was written.\nGive NEW as a plain name of the language "
                                                     "(letters, digits and _, not a keyword).",
        "/rename shop/pricing.py#total class": "ERROR(INVALID_PAYLOAD): Not a python identifier: 'class'; nothing was "
                                               "written.\nGive NEW as a plain name of the language (letters, digits "
                                               "and _, not a keyword).",
        "/rename shop/pricing.py#total total": "ERROR(INVALID_PAYLOAD): The symbol is already named total; nothing was "
                                               "written.\nGive a different NEW name.",
        "/rename shop/pricing.py#total with_tax": "ERROR(NAME_TAKEN): with_tax is already defined beside the "
                                                  "definition (shop/pricing.py); nothing was written.\nChoose another "
                                                  "name, or rename that one first: /symbols --refs with_tax",
        "/rename shop/pricing.py#total rate": "ERROR(NAME_TAKEN): rate is already defined as a parameter of "
                                              "#with_tax, where a renamed use would see it (shop/pricing.py:5:21); "
                                              "nothing was written.\nChoose another name, or rename that one first: "
                                              "/symbols --refs rate",
        "/rename .ssh/tool.py#total amount": "ERROR(SECRET_DENIED): Access to a secret file is denied: .ssh/tool.py\n"
                                             "The policy's secret deny list covers this path.",
        "/rename shop/pricing.py#total": "ERROR(INVALID_PAYLOAD): Usage: /rename path#Symbol NEW [--dry-run]\n"
                                         "Example: /rename src/util.py#parse split_words --dry-run",
        "/rename shop/pricing.py amount": "ERROR(INVALID_TARGET): Not a path#Symbol: shop/pricing.py\nName the "
                                          "definition to rename, e.g. src/app.py#Parser.parse (/symbols * src/app.py "
                                          "lists the ids).",
    }
    assert snapshot(ws) == before


def test_a_file_changed_since_the_preview_is_a_conflict(ws: Path, dispatcher) -> None:
    write(ws, PYTHON)
    assert body(dispatcher.execute("/rename shop/pricing.py#total grand_total --dry-run").text).startswith(
        "Would rename shop/pricing.py#total to grand_total: 6 sites in 3 files")
    cart = ws / "shop" / "cart.py"
    cart.write_text(cart.read_text() + "\n\nEMPTY = Cart()\n")  # another client, between the preview and the rename
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename shop/pricing.py#total grand_total").text) == (
        "ERROR(CONFLICT): shop/cart.py changed since it was read; nothing was written.\n"
        "Read shop/cart.py again and redo the change."
    )
    assert snapshot(ws) == before
    assert body(dispatcher.execute("/rename shop/pricing.py#total grand_total --dry-run").text).startswith(
        "Would rename shop/pricing.py#total to grand_total: 6 sites in 3 files")  # read again: it goes through
    assert body(dispatcher.execute("/rename shop/pricing.py#total grand_total").text).startswith("Renamed ")
    assert cart.read_text().endswith("EMPTY = Cart()\n")


def test_a_method_a_subclass_overrides_is_ambiguous_and_another_class_is_not(ws: Path, dispatcher) -> None:
    (ws / "steps.py").write_text(
        "class Base:\n    def run(self):\n        return self.step()\n\n    def step(self):\n        return 1\n\n\n"
        "class Child(Base):\n    def step(self):\n        return 2\n\n\n"
        "class Other:\n    def step(self):\n        return 3\n")
    before = snapshot(ws)
    assert body(dispatcher.execute("/rename steps.py#Base.step advance").text) == (
        "ERROR(AMBIGUOUS_REFERENCE): Refusing to rename steps.py#Base.step: 1 site may or may not refer to it, and "
        "syntax cannot tell; nothing was written.\n"
        "steps.py:10:9: Child.step overrides it (Child names Base among its bases): def step(self):\n"
        "Change those by hand (/edit), then rename; /symbols --refs steps.py#Base.step lists every site."
    )
    assert snapshot(ws) == before
    assert body(dispatcher.execute("/rename steps.py#Other.step advance").text).startswith(
        "Renamed steps.py#Other.step to advance: 1 site in 1 file (steps.py 1)\n")
    assert (ws / "steps.py").read_text().endswith("class Other:\n    def advance(self):\n        return 3\n")
