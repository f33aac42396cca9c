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
