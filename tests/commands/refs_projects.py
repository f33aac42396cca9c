"""Small multi-file projects in each language's own idioms, for references by scope and /rename (a Python package
with relative and absolute imports and a local shadowing a name, JavaScript modules with require and import, a Go
module whose package is used from main)."""

from __future__ import annotations

from pathlib import Path

PYTHON = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def total(items):\n"
        "    return sum(item.price for item in items)\n"
        "\n"
        "\n"
        "def with_tax(items, rate):\n"
        "    return total(items) * (1 + rate)\n"
    ),
    "shop/cart.py": (
        "from .pricing import total\n"
        "from . import pricing\n"
        "\n"
        "\n"
        "class Cart:\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "\n"
        "    def total(self):\n"
        "        return total(self.items)\n"
        "\n"
        "    def summary(self):\n"
        "        total = self.total()\n"
        '        return f"{total} ({pricing.total(self.items)})"\n'
    ),
    "cli.py": (
        "import json\n"
        "\n"
        "import shop.pricing\n"
        "from shop.cart import Cart\n"
        "\n"
        "\n"
        "def main(path):\n"
        "    cart = Cart()\n"
        "    # total is printed twice\n"
        "    print(json.dumps(shop.pricing.total(cart.items)), cart.total())\n"
    ),
}

JAVASCRIPT = {
    "lib/format.js": (
        "function pad(text, width) {\n"
        "  return text.padStart(width);\n"
        "}\n"
        "\n"
        "function row(cells) {\n"
        '  return cells.map((c) => pad(c, 8)).join("|");\n'
        "}\n"
        "\n"
        "module.exports = { pad, row };\n"
    ),
    "lib/table.js": (
        'const { pad } = require("./format");\n'
        'const format = require("./format");\n'
        "\n"
        "class Table {\n"
        "  pad(width) {\n"
        "    return this.rows.map((r) => pad(r, width));\n"
        "  }\n"
        "\n"
        "  render() {\n"
        "    return format.row(this.pad(4));\n"
        "  }\n"
        "}\n"
        "\n"
        "module.exports = Table;\n"
    ),
    "app.mjs": (
        'import { pad as padText } from "./lib/format.js";\n'
        "\n"
        "export const title = (t) => padText(t, 20);\n"
    ),
}

GO = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "money/money.go": (
        "package money\n"
        "\n"
        'import "fmt"\n'
        "\n"
        "// Cents is an amount of money.\n"
        "type Cents int64\n"
        "\n"
        "func Format(c Cents) string {\n"
        '\treturn fmt.Sprintf("%d.%02d", c/100, c%100)\n'
        "}\n"
    ),
    "money/sum.go": (
        "package money\n"
        "\n"
        "func Sum(xs []Cents) (total Cents) {\n"
        "\tfor _, x := range xs {\n"
        "\t\ttotal += x\n"
        "\t}\n"
        "\treturn\n"
        "}\n"
        "\n"
        "func Describe(xs []Cents) string { return Format(Sum(xs)) }\n"
    ),
    "main.go": (
        "package main\n"
        "\n"
        "import (\n"
        '\t"fmt"\n'
        "\n"
        '\t"example.com/shop/money"\n'
        ")\n"
        "\n"
        "func main() {\n"
        "\tfmt.Println(money.Format(money.Sum(nil)))\n"
        "}\n"
    ),
}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root but stringsh's own folder, by path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.relative_to(root).parts}
