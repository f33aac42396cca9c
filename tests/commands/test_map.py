"""/map: the repository map of a real multi-file Python package, where one core module (store.py) is used by almost
every other: it ranks first, the budget is met exactly by the documented estimate (4 characters a token), focus
paths change the ranking, secrets are masked and ranked by the mask alone, bad input is refused with a hint. In
process on real files (the dispatcher), as /symbols' tests are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stringsh.documents.repomap import repo_map
from stringsh.render.code.maprank import layout, rank_definitions, tokens
from stringsh.render.code.tags import file_tags
from tests.commands.documents import body

TOKEN = "ghp_" + "Zq8Lr3Vx7Tn2Wm5Kp9Hd4Jf6Bc1Ys0Ga3Ue8"

PACKAGE = {
    "inventory/__init__.py": '"""Inventory: items kept in stores."""\n',
    "inventory/store.py": (
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass Item:\n    sku: str\n    name: str\n    cents: int\n\n\n"
        'class Store:\n    """Items by SKU."""\n\n'
        "    def __init__(self, name: str) -> None:\n        self.name = name\n"
        "        self.items: dict[str, Item] = {}\n\n"
        "    def add(self, item: Item) -> None:\n        self.items[item.sku] = item\n\n"
        "    def find(self, sku: str) -> Item | None:\n        return self.items.get(sku)\n\n\n"
        "def open_store(name: str) -> Store:\n    return Store(name)\n"
    ),
    "inventory/money.py": (
        "class Money:\n    def __init__(self, cents: int) -> None:\n        self.cents = cents\n\n"
        '    def __str__(self) -> str:\n        return f"{self.cents // 100}.{self.cents % 100:02d}"\n\n\n'
        "def round_cents(value: float) -> int:\n    return int(round(value))\n"
    ),
    "inventory/pricing.py": (
        "from inventory.money import Money, round_cents\nfrom inventory.store import Item\n\n\n"
        "def price_of(item: Item, discount: float = 0.0) -> Money:\n"
        "    return Money(round_cents(item.cents * (1 - discount)))\n\n\n"
        "def total(items: list[Item]) -> Money:\n    return Money(sum(price_of(item).cents for item in items))\n"
    ),
    "inventory/report.py": (
        "from inventory.pricing import price_of, total\nfrom inventory.store import Item, Store\n\n\n"
        'def line(item: Item) -> str:\n    return f"{item.sku}  {item.name}  {price_of(item)}"\n\n\n'
        "def report(store: Store) -> str:\n    rows = [line(item) for item in store.items.values()]\n"
        '    return "\\n".join([*rows, f"total {total(list(store.items.values()))}"])\n'
    ),
    "inventory/importer.py": (
        "import csv\n\nfrom inventory.store import Item, Store, open_store\nfrom inventory.util import slugify\n\n\n"
        "def load(path: str, name: str) -> Store:\n    store = open_store(slugify(name))\n"
        "    with open(path) as rows:\n        for sku, title, cents in csv.reader(rows):\n"
        "            store.add(Item(sku, title, int(cents)))\n    return store\n"
    ),
    "inventory/util.py": 'def slugify(text: str) -> str:\n    return "-".join(text.lower().split())\n',
    "inventory/cli.py": (
        "import sys\n\nfrom inventory.importer import load\nfrom inventory.report import report\n"
        "from inventory.store import Store\n\n\n"
        "def main(argv: list[str]) -> int:\n    store: Store = load(argv[1], argv[2])\n    print(report(store))\n"
        "    found = store.find(argv[3]) if len(argv) > 3 else None\n"
        "    return 0 if found is None or found.cents else 1\n\n\n"
        'if __name__ == "__main__":\n    sys.exit(main(sys.argv))\n'
    ),
    "README.md": "# Inventory\n\nItems kept in stores.\n",
}


def make_package(ws: Path) -> None:
    for rel, text in PACKAGE.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "gen.py").write_text("class Store:\n    pass\n")  # ignored: never read, never ranked
    (ws / ".env").write_text("def Store(): pass\n")  # a secret: never read


def parts(reply: str) -> tuple[str, str, str]:
    """(headline, the map's lines, what follows them) of a /map reply."""
    headline, rest = body(reply).split("\n---\n", 1)
    if "\n\nOpen one: " not in rest:
        return headline, "", rest
    lines, tail = rest.split("\n\n", 1)
    return headline, lines, tail


def test_the_core_module_ranks_first(ws: Path, dispatcher) -> None:
    make_package(ws)
    assert body(dispatcher.execute("/map").text) == (
        "Map of ./: 17 symbols from 7 files, ~217 tokens (budget 1024)\n---\n"
        "inventory/store.py:\n"
        "  L5 class Item:\n"
        "  L11 class Store:\n"
        "  L14 def __init__(self, name: str) -> None:  #Store.__init__\n"
        "  L18 def add(self, item: Item) -> None:  #Store.add\n"
        "  L21 def find(self, sku: str) -> Item | None:  #Store.find\n"
        "  L25 def open_store(name: str) -> Store:\n"
        "inventory/money.py:\n"
        "  L1 class Money:\n"
        "  L2 def __init__(self, cents: int) -> None:  #Money.__init__\n"
        "  L5 def __str__(self) -> str:  #Money.__str__\n"
        "  L9 def round_cents(value: float) -> int:\n"
        "inventory/importer.py:\n"
        "  L7 def load(path: str, name: str) -> Store:\n"
        "inventory/report.py:\n"
        "  L5 def line(item: Item) -> str:\n"
        "  L9 def report(store: Store) -> str:\n"
        "inventory/pricing.py:\n"
        "  L5 def price_of(item: Item, discount: float = 0.0) -> Money:\n"
        "  L9 def total(items: list[Item]) -> Money:\n"
        "inventory/util.py:\n"
        "  L1 def slugify(text: str) -> str:\n"
        "inventory/cli.py:\n"
        "  L8 def main(argv: list[str]) -> int:\n\n"
        "Open one: /open inventory/store.py#Item\n"
        "17 definitions in 8 source files ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 10 files (12 entries)"
    )
    assert body(dispatcher.execute("/open inventory/store.py#Item").text).startswith(
        "Opened inventory/store.py#Item\n---\n4 | @dataclass\n5 | class Item:\n")


def test_the_budget_is_met_exactly_by_the_documented_estimate(ws: Path, dispatcher) -> None:
    make_package(ws)
    assert body(dispatcher.execute("/map --budget 64").text) == (
        "Map of ./: 5 symbols from 3 files, ~52 tokens (budget 64)\n---\n"
        "inventory/store.py:\n  L5 class Item:\n  L11 class Store:\n"
        "inventory/money.py:\n  L1 class Money:\n  L9 def round_cents(value: float) -> int:\n"
        "inventory/importer.py:\n  L7 def load(path: str, name: str) -> Store:\n\n"
        "Open one: /open inventory/store.py#Item\n"
        "17 definitions in 8 source files ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 10 files (12 entries)"
    )
    ranked = repo_map(dispatcher.workspace, ".", []).ranked
    counts = set()
    for budget in range(64, 260, 3):
        headline, lines, _ = parts(dispatcher.execute(f"/map --budget {budget}").text)
        shown = int(re.match(r"Map of \./: (\d+) symbols? from", headline).group(1))  # type: ignore[union-attr]
        estimate = -(-len(lines) // 4)  # characters / 4, rounded up: line breaks counted, the blank line after not
        assert estimate == tokens(lines) <= budget
        assert headline.endswith(f", ~{estimate} tokens (budget {budget})")
        assert lines == layout(ranked[:shown], budget).text  # the best `shown` definitions of the ranking …
        assert shown == len(ranked) or layout(ranked[: shown + 1], 10**6).tokens > budget  # … and not one more
        counts.add(shown)
    assert len(counts) > 5  # the budgets tried gave maps of many sizes


def test_focus_paths_change_the_ranking(ws: Path, dispatcher) -> None:
    make_package(ws)
    assert parts(dispatcher.execute("/map inventory/pricing.py --budget 64").text)[:2] == (
        "Map of ./ (focus: inventory/pricing.py): 5 symbols from 3 files, ~62 tokens (budget 64)",
        "inventory/pricing.py:\n"
        "  L5 def price_of(item: Item, discount: float = 0.0) -> Money:\n"
        "  L9 def total(items: list[Item]) -> Money:\n"
        "inventory/money.py:\n  L1 class Money:\n  L9 def round_cents(value: float) -> int:\n"
        "inventory/store.py:\n  L5 class Item:",
    )
    # util.py is used once, by the importer: last but one without a focus, first with it
    assert parts(dispatcher.execute("/map inventory/util.py --budget 64").text)[1].startswith(
        "inventory/util.py:\n  L1 def slugify(text: str) -> str:\ninventory/store.py:\n")
    # a focus holding every source file is no focus
    everything = parts(dispatcher.execute("/map inventory").text)
    assert everything[0] == "Map of ./ (focus: inventory): 17 symbols from 7 files, ~217 tokens (budget 1024)"
    assert everything[1:] == parts(dispatcher.execute("/map").text)[1:]


def test_after_open_folder_the_map_covers_that_folder(ws: Path, dispatcher) -> None:
    make_package(ws)
    (ws / "tools").mkdir()
    (ws / "tools" / "lint.py").write_text("def lint():\n    pass\n")
    dispatcher.execute("/open tools")
    assert body(dispatcher.execute("/map").text) == (
        "Map of tools/: 1 symbol from 1 file, ~8 tokens (budget 1024)\n---\n"
        "tools/lint.py:\n  L1 def lint():\n\n"
        "Open one: /open tools/lint.py#lint\n"
        "1 definition in 1 source file ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 1 file (1 entry)"
    )


@pytest.mark.parametrize("letters", [TOKEN, TOKEN.replace("Zq8", "Ab1")])
def test_secrets_are_masked_and_ranked_by_the_mask_alone(ws: Path, dispatcher, letters: str) -> None:
    make_package(ws)
    (ws / "inventory" / "auth.py").write_text(f'def {letters}():\n    return 1\n\n\ndef connect(key="{letters}"):\n'
                                              f"    return {letters}()\n")
    (ws / "inventory" / "cli.py").write_text(PACKAGE["inventory/cli.py"] + f"\n\nfrom inventory.auth import "
                                             f"{letters}\n\n{letters}()\n")
    reply = body(dispatcher.execute("/map inventory/auth.py --budget 64").text)
    assert reply == (  # the same for both tokens: nothing is ranked or cut by a secret's own letters
        "Map of ./ (focus: inventory/auth.py): 6 symbols from 3 files, ~56 tokens (budget 64)\n---\n"
        "inventory/auth.py:\n  L1 def ***REDACTED***():\n"
        '  L5 def connect(key="***REDACTED***"):\n'
        "inventory/store.py:\n  L5 class Item:\n  L11 class Store:\n"
        "inventory/money.py:\n  L1 class Money:\n  L9 def round_cents(value: float) -> int:\n\n"
        "Open one: /open inventory/auth.py#***REDACTED***\n"
        "19 definitions in 9 source files ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 11 files (13 entries)"
    )


def test_bad_input_is_refused_with_a_hint(ws: Path, dispatcher) -> None:
    make_package(ws)
    (ws.parent / "canary.py").write_text("def canary(): pass\n")
    for budget in ("many", "63", "-5", "1000001"):
        assert body(dispatcher.execute(f"/map --budget {budget}").text) == (
            f"ERROR(INVALID_PAYLOAD): --budget needs a whole number from 64 to 1000000, got: {budget}\n"
            "For example --budget 64."
        )
    assert body(dispatcher.execute("/map --budget").text) == (
        "ERROR(INVALID_PAYLOAD): --budget needs a value.\nUsage: see /help map.")
    assert body(dispatcher.execute("/map ../canary.py").text) == (
        "ERROR(INVALID_PATH): Path escapes the workspace root: ../canary.py\nUse a path inside the workspace.")
    assert body(dispatcher.execute("/map .env").text).startswith("ERROR(SECRET_DENIED): ")
    assert body(dispatcher.execute("/map nowhere.py").text).startswith("ERROR(NOT_FOUND): ")
    assert body(dispatcher.execute("/map --depth 2").text).startswith("ERROR(INVALID_PAYLOAD): ")
    assert "\n" in body(dispatcher.execute("/map .env").text)  # each refusal has its hint line


def test_a_workspace_without_source_files(ws: Path, dispatcher) -> None:
    (ws / "notes.md").write_text("# Notes\n")
    assert body(dispatcher.execute("/map").text) == (
        "Map of ./: 0 symbols from 0 files, ~0 tokens (budget 1024)\n---\n"
        "0 definitions in 0 source files ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 1 file (1 entry)"
    )


def test_methods_are_reached_by_member_uses_locals_by_none_overloads_once() -> None:
    """The graph's rules on real parses (render/code/tags.py and maprank.py, pure): a bare `size` (a variable) is
    no use of the method `Box.size`, a function nested in another is local, a function's overloads are one entry."""
    lib = ("from typing import overload\n\n\nclass Box:\n    def size(self):\n        return 1\n\n\n"
           "def helper():\n    def size():\n        return 2\n    return size()\n\n\n"
           "@overload\ndef parse(x: int) -> int: ...\n@overload\ndef parse(x: str) -> str: ...\n"
           "def parse(x):\n    return x\n")
    member = "from lib import Box, parse\n\nparse(Box().size())\n"
    bare = member + "size = 3\nprint(size, size, size)\n"

    def scores(use: str) -> dict[str, float]:
        files = [file_tags("lib.py", lib, "python"), file_tags("use.py", use, "python")]
        return {r.definition.id: r.score for r in rank_definitions(files) if r.path == "lib.py"}

    found = scores(member)
    assert list(found) == ["Box", "parse-0", "Box.size", "helper.size", "helper"]  # parse-1, parse-2: one entry
    assert found["Box.size"] > 0 and found["helper.size"] == 0
    assert scores(bare) == found  # the bare `size`s reach neither the method nor the local function
