"""Symbols of the idioms projects write: golden outlines of files written here the way projects write them
(tests/render/code_corpus/<language>/, each beside its `.outline`: `id  kind  Lx-Ly` per symbol, reviewed by hand),
and the naming rules of render/code/idioms.py one case at a time."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.documents.symbolsplice import checked_replace
from stringsh.render.code import budget
from stringsh.render.code.index import build_symbols
from stringsh.render.code.languages import language_of
from stringsh.render.code.views import span
from tests.commands.documents import body

CORPUS = Path(__file__).parent / "code_corpus"
#: This part's folders (other folders of the corpus have their own tests).
FOLDERS = ("go", "js", "ts", "rust", "python", "java", "ruby", "bash")
SOURCES = sorted(path for folder in FOLDERS for path in (CORPUS / folder).iterdir() if path.suffix != ".outline")


def outline(text: str, language: str) -> list[str]:
    return [f"{s.id}  {s.kind}  {span(s)}" for s in build_symbols(text, language).symbols]


def test_every_folder_has_a_source_with_its_outline() -> None:
    assert {path.parent.name for path in SOURCES} == set(FOLDERS)
    assert all(Path(f"{path}.outline").is_file() for path in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_golden_outline_of_a_real_idiom_file(path: Path) -> None:
    language = language_of(path.name)
    assert language is not None
    index = build_symbols(path.read_text(), language)
    assert index.error_note == ""
    assert outline(path.read_text(), language) == Path(f"{path}.outline").read_text().splitlines()


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_each_symbol_replaced_by_its_own_text_leaves_the_file_byte_identical(path: Path) -> None:
    text = path.read_text()
    index = build_symbols(text, language_of(path.name) or "")
    for symbol in index.symbols:
        own = text.encode()[symbol.start_byte : symbol.end_byte].decode()
        assert checked_replace(text, index, symbol, own, symbol.id, False, "").text == text, symbol.id


def source_of(text: str, language: str, block_id: str) -> str:
    symbol = build_symbols(text, language).resolve(block_id)
    assert symbol is not None, block_id
    return text.encode()[symbol.start_byte : symbol.end_byte].decode()


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("javascript", "exports.x = function () {};\nmodule.exports.y = () => 1;\n",
         ["exports.x  function  L1", "module.exports.y  function  L2"]),
        # `prototype` is dropped: the method is called as x.m on an X
        ("javascript", "X.prototype.m = function () {};\nX.prototype = { n() {}, o: function () {} };\n",
         ["X.m  method  L1", "X.n  method  L2", "X.o  method  L2"]),
        # `this.x = …` belongs to the class of the constructor, or to the constructor function
        ("javascript",
         "class K {\n  constructor() { this.cb = () => 1; }\n}\nfunction F() { this.g = function () {}; }\n",
         ["K  class  L1-L3", "K.constructor  method  L2", "K.cb  method  L2", "F  function  L4", "F.g  method  L4"]),
        # an object only a call holds has no name to qualify with: its function-valued keys are not symbols
        ("javascript", "run({ done: function () {} });\nconst cfg = { retries: 3, 'x-y': () => 1, [k]: () => 2 };\n",
         []),
        ("javascript", "const Foo = class { m() {} };\nlet a = 1, b = () => 2;\n",
         ["Foo  class  L1", "Foo.m  method  L1", "b  function  L2"]),
        ("javascript", "a[i] = function () {};\nf().x = () => 1;\nthis.top = function () {};\n",
         ["top  method  L3"]),
        ("typescript", "declare module \"pkg\" {\n  export function h(): void;\n}\nmodule A.B { }\n",
         ["h  function  L2", "A.B  namespace  L4"]),
        ("typescript", "interface P {\n  cb: ((x: number) => void) | null;\n  make: new () => P;\n  n: number;\n}\n",
         ["P  interface  L1-L5", "P.make  method  L3"]),
        # `as const`, `satisfies` and parentheses do not hide an object's name; a parameter's inline type is no type
        ("typescript",
         "export const routes = {\n  home: () => \"/\",\n} as const;\n"
         "const cfg = ({ build() {}, nested: { go: () => 1 } } satisfies Config);\n"
         "function f(opts: { onDone: () => void }): void {}\nlet x: { cb: () => void };\n",
         ["routes.home  method  L2", "cfg.build  method  L4", "cfg.nested.go  method  L4", "f  function  L5"]),
        ("go", "type (\n\tA = int\n\tB = string\n)\n", ["A  type  L2", "B  type  L3"]),
        ("go", "type One = map[string]int\n", ["One  type  L1"]),
        ("rust", "impl<'a> Finder for &'a M { fn find(&self) {} }\nimpl<T> Vec<T> { fn x(&self) {} }\n",
         ["M.find  method  L1", "Vec.x  method  L2"]),
        # a type parameter, a slice or a tuple has no name of its own: the trait's is used
        ("rust",
         "impl<T: Display> Show for T { fn show(&self) {} }\nimpl Show for (u8, u8) { fn show(&self) {} }\n"
         "impl Show for dyn Any + Send { fn show(&self) {} }\nimpl Show for *const Node { fn show(&self) {} }\n",
         ["Show.show-0  method  L1", "Show.show-1  method  L2", "Any.show  method  L3", "Node.show  method  L4"]),
        ("rust", "impl fmt::Display for crate::error::Kind { fn fmt(&self) {} }\n", ["Kind.fmt  method  L1"]),
    ],
)
def test_idiom_names(language: str, text: str, expected: list[str]) -> None:
    assert outline(text, language) == expected


def test_an_assignment_holds_its_semicolon_and_the_comment_above() -> None:
    text = ("// Starts it.\napp.init = function init() {\n  return 1;\n};\n\n"
            "const api = {\n  // Gets.\n  get() {},\n};\n")
    assert source_of(text, "javascript", "app.init") == "// Starts it.\napp.init = function init() {\n  return 1;\n};"
    assert source_of(text, "javascript", "api.get") == "// Gets.\n  get() {}"
    declared = "declare function f(x: number): string;\n"
    assert source_of(declared, "typescript", "f") == declared.rstrip("\n")


def work(kind: str, build: Callable[[], object]) -> int:
    """How much of `kind` one call adds to budget.WORK."""
    before = budget.WORK[kind]
    build()
    return budget.WORK[kind] - before


@pytest.mark.parametrize(
    ("language", "make"),
    [
        ("javascript", lambda n: "const o = " + "{a: " * n + "() => 1" + "}" * n + ";\n"),  # nested named objects
        ("javascript", lambda n: "x" + ".p" * n + " = function () {};\n"),  # one long member chain
        ("typescript", lambda n: "interface I { f: " + "(" * n + "() => void" + ")" * n + " }\n"),
        ("rust", lambda n: "impl T for " + "&" * n + "M { fn f(&self) {} }\n"),
        # many properties of an object inside many parentheses: each looks through a few of them only
        ("typescript", lambda n: "const o = " + "(" * n + "{" + ",".join(f"a{i}: () => 1" for i in range(n)) + "}"
         + ")" * n + ";\n"),
    ],
)
def test_idioms_on_hostile_nesting_cost_linear_work(language: str, make: Callable[[int], str]) -> None:
    for kind in ("qualified", "family", "queries"):
        small = work(kind, lambda: build_symbols(make(2_000), language))
        large = work(kind, lambda: build_symbols(make(4_000), language))
        assert large <= 2.2 * max(small, 1), kind


def test_many_properties_of_an_object_with_a_long_name_stop_at_the_qualified_budget() -> None:
    name = "N" * 100_000
    text = f"const {name} = {{\n" + "".join(f"  p{i}: {{ f() {{}} }},\n" for i in range(40)) + "};\n"
    index = build_symbols(text, "javascript")
    assert sum(len(row[0]) for row in index.rows) <= budget.qualified_budget(len(text.encode()))
    assert index.error_note.startswith("[nesting] The qualified names pass 4 characters per byte of the file at line ")


def test_minified_assignments_and_object_methods_scan_linear_bytes() -> None:
    def minified(n: int) -> str:
        return "a.b=function(){return 1};var o={m(){},p:function(){}};" * n

    for kind in ("scanned", "family"):
        small = work(kind, lambda: build_symbols(minified(3_000), "javascript"))
        large = work(kind, lambda: build_symbols(minified(6_000), "javascript"))
        assert small > 0 and large <= 2.2 * small, kind
    assert len(build_symbols(minified(2), "javascript").rows) == 6


def test_a_data_object_of_nested_keys_costs_no_qualified_names() -> None:
    """Its keys name scopes only when a function inside needs them: a megabyte of data indexes the code after it."""
    data = "{" + ",".join(f"k{i}: {{a: {{b: {{c: {i}}}}}}}" for i in range(20_000)) + "}"
    text = f"const data = {data};\n\nexport function after() {{}}\nconst api = {{ get() {{}} }};\n"
    spent = work("qualified", lambda: build_symbols(text, "javascript"))
    index = build_symbols(text, "javascript")
    assert index.block_ids() == ["after", "api.get"] and index.error_note == ""
    assert spent == len("after") + len("api") + len("api.get")


def test_symbols_and_open_find_a_prototype_method_by_the_name_a_person_types(ws: Path, dispatcher) -> None:
    shutil.copy(CORPUS / "js" / "emitter.js", ws)
    assert body(dispatcher.execute("/symbols Emitter.on").text) == (
        'Symbols "Emitter.on" in ./: 2 definitions in 1 file\n---\n'
        "@s1 emitter.js:L17-L20  method  #Emitter.on\n@s2 emitter.js:L37-L45  method  #Emitter.once\n\n"
        "Open one: /open @s1 (or /open emitter.js#Emitter.on)\n"
        "2 definitions in 1 file; 1 source file indexed; scanned 1 file (1 entry)")
    assert body(dispatcher.execute("/open emitter.js#Emitter.off").text) == (
        "Opened emitter.js#Emitter.off\n---\n"
        "22 | Emitter.prototype.off = function off(name, listener) {\n"
        "23 |   var list = this._events[name];\n"
        "24 |   if (!list) return this;\n"
        "25 |   this._events[name] = list.filter(function (fn) { return fn !== listener; });\n"
        "26 |   return this;\n"
        "27 | };\n\n"
        "(method Emitter.off, lines 22-27 of 56)")
