"""/symbols: definitions by name across the workspace and `--refs` identifiers, on /grep's confined walk
(secrets, .gitignore, paths outside the root), with `@sN` shortcuts /open takes; in-process, on real files."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body

APP = ("class Parser:\n    def parse(self, text):\n        return text.split()\n\n\n"
       "def main():\n    Parser().parse('a')\n")


def make_tree(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text(APP)
    (ws / "src" / "lib.js").write_text("export function parseAll(xs) {\n  return xs.map(parse);\n}\n")
    (ws / "src" / "notes.txt").write_text("def parse(): pass\n")
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "gen.py").write_text("def parse(): pass\n")
    (ws / ".env").write_text("def parse(): pass\n")


def test_definitions_rank_exact_names_first_and_number_shortcuts(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert body(dispatcher.execute("/symbols parse").text) == (
        'Symbols "parse" in ./: 3 definitions in 2 files\n---\n'
        "@s1 src/app.py:L2-L3  method    #Parser.parse\n"
        "@s2 src/app.py:L1-L3  class     #Parser\n"
        "@s3 src/lib.js:L1-L3  function  #parseAll\n\n"
        "Open one: /open @s1 (or /open src/app.py#Parser.parse)\n"
        "3 definitions in 2 files; 2 source files indexed; scanned 4 files (6 entries)"
    )
    assert body(dispatcher.execute("/open @s1").text).startswith(
        "Opened src/app.py#Parser.parse\n---\n2 |     def parse(self, text):\n"
    )


def test_refs_are_identifiers_with_their_role_and_container_and_say_what_syntax_cannot_know(ws: Path,
                                                                                          dispatcher) -> None:
    make_tree(ws)
    assert body(dispatcher.execute("/symbols --refs parse src").text) == (
        'References to "parse" in src/: 3 occurrences in 2 files\n---\n'
        "src/app.py:2:9: definition in #Parser: def parse(self, text):\n"
        "src/app.py:7:14: member Parser().parse in #main: Parser().parse('a')\n"
        "src/lib.js:2:17: use in #parseAll: return xs.map(parse);\n\n"
        "By syntax, not types: roles come from the parse (definitions, imports, parameters and locals by function "
        "scope, `x.name` access); what a value holds is not known, so `obj.parse` is a member of whatever obj is, and "
        "names a star import or a re-export brings in are not followed.\n"
        "3 occurrences in 2 files; 2 source files indexed; scanned 3 files (3 entries)"
    )


def test_confinement_limits_and_bad_input(ws: Path, dispatcher) -> None:
    make_tree(ws)
    (ws.parent / "canary.py").write_text("def parse(): pass\n")
    assert body(dispatcher.execute("/symbols parse ..").text).startswith("ERROR(INVALID_PATH)")
    assert body(dispatcher.execute("/symbols parse .env").text).startswith("ERROR(SECRET_DENIED)")
    reply = body(dispatcher.execute("/symbols P* --max 1").text)
    assert reply.startswith('Symbols "P*" in ./: 1 definition in 1 file\n---\n@s1 src/app.py:L1-L3  class  #Parser\n')
    assert reply.endswith("Stopped after 1 results: narrow the search (a path, --glob) or set --max N.")
    assert body(dispatcher.execute("/symbols").text) == (
        "ERROR(INVALID_PAYLOAD): Usage: /symbols QUERY [path…] [--refs] [--max N]\n"
        "Example: /symbols Parser.parse src, or /symbols --refs parse"
    )
    assert body(dispatcher.execute("/symbols zzz src").text) == (
        'Symbols "zzz" in src/: none found\n---\n'
        "0 definitions in 0 files; 0 source files indexed; scanned 3 files (3 entries)"
    )


def test_refs_of_one_definition_follow_its_imports_and_set_ambiguous_sites_apart(ws: Path, dispatcher) -> None:
    from tests.commands.refs_projects import PYTHON, write

    write(ws, PYTHON)
    by_syntax = ("By syntax, not types: roles come from the parse (definitions, imports, parameters and locals by "
                 "function scope, `x.name` access); what a value holds is not known, so `obj.total` is a member of "
                 "whatever obj is, and names a star import or a re-export brings in are not followed.")
    assert body(dispatcher.execute("/symbols --refs shop/pricing.py#total").text) == (
        "References to shop/pricing.py#total in ./: 6 sites in 3 files\n---\n"
        "shop/pricing.py:1:5: definition at top level: def total(items):\n"
        "shop/pricing.py:6:12: use in #with_tax: return total(items) * (1 + rate)\n"
        "cli.py:10:35: qualified shop.pricing.total in #main: "
        "print(json.dumps(shop.pricing.total(cart.items)), cart.total())\n"
        "shop/cart.py:1:22: import at top level: from .pricing import total\n"
        "shop/cart.py:10:16: use in #Cart.total: return total(self.items)\n"
        "shop/cart.py:14:36: qualified pricing.total in #Cart.summary: "
        'return f"{total} ({pricing.total(self.items)})"\n\n'
        f"{by_syntax}\n6 sites in 3 files; 3 source files read; scanned 4 files (5 entries)"
    )
    assert body(dispatcher.execute("/symbols --refs shop/cart.py#Cart.total").text) == (
        "References to shop/cart.py#Cart.total in ./: 2 sites in 1 file, 1 ambiguous\n---\n"
        "shop/cart.py:9:9: definition in #Cart: def total(self):\n"
        "shop/cart.py:13:22: member self.total in #Cart.summary: total = self.total()\n\n"
        "Ambiguous (the syntax cannot tell whether they are this definition's):\n"
        "cli.py:10:60: member cart.total in #main (a member of cart, whose type syntax does not tell): "
        "print(json.dumps(shop.pricing.total(cart.items)), cart.total())\n\n"
        f"{by_syntax}\n2 sites in 1 file, 1 ambiguous; 3 source files read; scanned 4 files (5 entries)"
    )


def test_def_jumps_from_a_use_to_its_local_import_or_module_definition(ws: Path, dispatcher) -> None:
    from tests.commands.refs_projects import GO, PYTHON, write

    write(ws, PYTHON)
    write(ws, {f"go/{rel}": text for rel, text in GO.items()})
    replies = [body(dispatcher.execute(f"/symbols --def {spot}").text) for spot in (
        "shop/cart.py:14:19", "shop/cart.py:10:16", "cli.py:10:35", "shop/cart.py:13:22", "cli.py:10:60",
        "go/main.go:10:20", "cli.py:99:1", "cli.py")]
    assert replies == [
        'Definition of "total" at shop/cart.py:14:19: 1 definition, a local binding of #Cart.summary\n---\n'
        "shop/cart.py:13:9: local binding",
        'Definition of "total" at shop/cart.py:10:16: 1 definition, imported from .pricing\n---\n'
        "shop/pricing.py:1:5: function #total\n\nOpen it: /open shop/pricing.py#total",
        'Definition of "total" at cli.py:10:35: 1 definition, through the import of shop.pricing\n---\n'
        "shop/pricing.py:1:5: function #total\n\nOpen it: /open shop/pricing.py#total",
        'Definition of "total" at shop/cart.py:13:22: 1 definition, a member of Cart in this file\n---\n'
        "shop/cart.py:9:9: method #Cart.total\n\nOpen it: /open shop/cart.py#Cart.total",
        'Definition of "total" at cli.py:10:60: 1 definition, every method or member of that name in the workspace '
        "(the value's type is not known)\n---\nshop/cart.py:9:9: method #Cart.total\n\n"
        "Open it: /open shop/cart.py#Cart.total",
        'Definition of "Format" at go/main.go:10:20: 1 definition, through the import of example.com/shop/money\n---\n'
        "go/money/money.go:8:6: function #Format\n\nOpen it: /open go/money/money.go#Format",
        "ERROR(NOT_FOUND): No identifier at cli.py:99:1\n"
        "Give the line and column of a name, as /symbols --refs NAME cli.py lists them.",
        "ERROR(INVALID_TARGET): Not a path:LINE:COLUMN: cli.py\n"
        "Name a use's position as /symbols --refs prints it: /symbols --def src/app.py:12:9",
    ]
