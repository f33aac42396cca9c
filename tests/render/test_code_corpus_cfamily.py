"""C and C++ symbols on files written here in the languages' real idioms (tests/render/code_corpus/c and cpp: a
server in the style of an in-memory store, a formatting library's header and its out-of-line source): only
definitions are symbols, ids are the names a person types, every id has the documented shape, and a `.h` is C or
C++ by its content."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.render.code.cache import SymbolCache
from stringsh.render.code.cnames import ID, PART
from stringsh.render.code.headers import header_language
from stringsh.render.code.index import build_symbols
from stringsh.render.code.suffixes import language_of
from stringsh.render.code.views import span
from tests.commands.documents import body

CORPUS = Path(__file__).parent / "code_corpus"

GOLDEN = {
    "c/server.c": [
        "redisObject  struct  L28-L34",
        "clientType  enum  L36-L40",
        "redisCommand  struct  L42-L49",
        "client  struct  L51-L66",
        "replyFlags  enum  L68",
        "keyref  union  L70-L73",
        "nextClientId  function  L82-L85",
        "createClient  function  L87-L96",
        "freeClientArgv  function  L98-L102",
        "lookupCommand  function  L104-L108",
        "processCommand  function  L110-L117",
        "clientHasPendingReplies  function  L119-L121",
        "pollClients-0  function  L124-L126",
        "pollClients-1  function  L128-L130",
        "setSignalHandler  function  L133-L135",
    ],
    "cpp/base.h": [
        "fmt  namespace  L18-L122",
        "fmt.v11  namespace  L19-L121",
        "fmt.v11.presentation_type  enum  L25",
        "fmt.v11.detail  namespace  L27-L38",
        "fmt.v11.detail.ignore_unused  function  L28-L29",
        "fmt.v11.detail.length  function  L33-L37",
        "fmt.v11.basic_string_view  class  L40-L67",
        "fmt.v11.basic_string_view.basic_string_view-0  method  L49",
        "fmt.v11.basic_string_view.basic_string_view-1  method  L50-L51",
        "fmt.v11.basic_string_view.data  method  L53",
        "fmt.v11.basic_string_view.size  method  L54",
        "fmt.v11.basic_string_view.operator[]  method  L55-L57",
        "fmt.v11.basic_string_view.front  method  L58",
        "fmt.v11.basic_string_view.begin  method  L59",
        "fmt.v11.basic_string_view.operator bool  method  L61",
        "fmt.v11.basic_string_view.operator==  method  L63-L66",
        "fmt.v11.buffer  class  L69-L88",
        "fmt.v11.buffer.buffer  method  L80",
        "fmt.v11.buffer.~buffer  method  L81",
        "fmt.v11.buffer.operator=  method  L82",
        "fmt.v11.buffer.size  method  L84",
        "fmt.v11.buffer.operator[]  method  L86",
        "fmt.v11.buffer.try_reserve  function  L90-L92",
        "fmt.v11.buffer.push_back  function  L94-L98",
        "fmt.v11.formatter-0  struct  L100-L103",
        "fmt.v11.formatter.formatter  method  L102",
        "fmt.v11.formatter-1  struct  L105-L110",
        "fmt.v11.formatter.parse  method  L106-L109",
        "fmt.v11.formatter-2  struct  L112-L114",
        "fmt.v11.arg_value  union  L116-L119",
    ],
    "cpp/format.cc": [
        "detail  namespace  L13-L28",
        "detail.assert_fail  function  L16-L19",
        "detail.basic_memory_buffer.grow  function  L21-L26",
        "fmt  namespace  L29-L78",
        "fmt.format_error  class  L33-L37",
        "fmt.format_error.~format_error  function  L39",
        "fmt.writer  struct  L41-L47",
        "fmt.writer.get  function  L49",
        "fmt.writer.position  function  L51",
        "fmt.writer.operator std::string  function  L53",
        "fmt.writer.operator<<  function  L55-L58",
        "fmt.operator<<  function  L60-L62",
        "fmt.operator==  function  L64",
        "fmt.vformat_to-0  function  L66-L70",
        "fmt.vformat_to-1  function  L72",
        "fmt.detail.dragonbox  namespace  L74-L76",
        "fmt.detail.dragonbox.get_cached_power  function  L75",
        "fmt.detail.print  function  L80-L82",
        "operator new[]  function  L84",
        "main  function  L86-L90",
        "main.local_point  struct  L88",
    ],
}
#: What each file's parse reports: the out-of-line source opens its namespaces through macros, as {fmt} does.
NOTES = {
    "c/server.c": "",
    "cpp/base.h": "",
    "cpp/format.cc": "[syntax] The cpp parser found an error at line 14, column 11 and 3 more; symbols near it may be "
                     "missing.",
}


def outline(rel: str) -> tuple[str, list[str], str]:
    text = (CORPUS / rel).read_text()
    index = build_symbols(text, language_of(rel, text) or "")
    return index.language, [f"{s.id}  {s.kind}  {span(s)}" for s in index.symbols], index.error_note


@pytest.mark.parametrize("rel", sorted(GOLDEN))
def test_golden_outlines(rel: str) -> None:
    """Each definition once, with the id a person types, its kind and its lines (leading comments included);
    forward declarations, parameter, variable and return types, prototypes and `typedef struct x x;` are not
    symbols; `base.h` is read as C++."""
    language, rows, note = outline(rel)
    assert language == ("c" if rel.startswith("c/") else "cpp")
    assert rows == GOLDEN[rel]
    assert note == NOTES[rel]


def test_a_struct_is_its_one_definition() -> None:
    """`#client` in a ten-line file naming `struct client` everywhere resolves to its definition, not
    AMBIGUOUS_BLOCK."""
    text = ("struct client;\n"
            "struct client {\n"
            "    int fd;\n"
            "};\n"
            "struct client *create(void);\n"
            "void free_client(struct client *c) { (void)c; }\n"
            "static struct client *current;\n"
            "struct client *create(void) {\n"
            "    struct client c = {0}; return current ? current : &c;\n"
            "}\n")
    index = build_symbols(text, "c")
    assert [f"{s.id}  {s.kind}  {span(s)}" for s in index.symbols] == [
        "client  struct  L2-L4", "free_client  function  L6", "create  function  L8-L10"]
    assert index.ambiguity("client") == []
    found = index.resolve("client")
    assert found is not None and (found.start, found.end) == (1, 4)


CPP_NAMES = """\
struct W {
  W& get();
  int *p() { return 0; }
  operator bool() const { return true; }
  ~W() {}
  bool operator==(const W&) const { return true; }
  int operator()(int) { return 0; }
  const char &operator [] (int) const { return *"x"; }
};
int *W::q() { return 0; }
W& W::get() { return *this; }
template<typename T> void B<T>::g() {}
std::ostream& operator << (std::ostream& o, const W&) { return o; }
W::operator
  const char *() const { return "w"; }
void ns::P::g() {}
void (*handler(int sig))(int) { return 0; }
"""


def test_cpp_ids_are_the_names_a_person_types() -> None:
    """References and pointers in the return type, conversion operators (a newline inside one included),
    operators, destructors, out-of-class template members and qualified out-of-class definitions."""
    index = build_symbols(CPP_NAMES, "cpp")
    assert [f"{s.id}  {s.kind}" for s in index.symbols] == [
        "W  struct", "W.p  method", "W.operator bool  method", "W.~W  method", "W.operator==  method",
        "W.operator()  method", "W.operator[]  method", "W.q  function", "W.get  function", "B.g  function",
        "operator<<  function", "W.operator const char*  function", "ns.P.g  function", "handler  function",
    ]
    assert index.resolve("P.g") is None and index.resolve("g") is not None  # the bare name of the one `g`
    found = index.resolve("W.operator bool")
    assert found is not None and found.name == "operator bool"


@pytest.mark.parametrize(("part", "well_formed"), [
    ("get", True), ("~W", True), ("operator<<", True), ("operator()", True), ("operator[]", True),
    ("operator new[]", True), ("operator bool", True), ("operator const char*", True),
    ('operator""_km', True), ("operator std::string", True),
    ("& get()", False), ("() const", False), ("operator", True), ("operator  bool", False),
    ("operator\nbool", False), ("B<T>", False), ("a b", False), ("operator bool ", False),
])
def test_the_documented_shape_of_a_part(part: str, well_formed: bool) -> None:
    assert bool(PART.fullmatch(part)) is well_formed


@pytest.mark.parametrize("rel", sorted(GOLDEN))
def test_every_corpus_id_has_the_documented_shape(rel: str) -> None:
    _, rows, _ = outline(rel)
    assert all(ID.fullmatch(row.split("  ")[0]) for row in rows)


#: Pieces of real headers, macros and all, that hypothesis strings together: whatever the parser makes of them,
#: every id keeps its shape.
PIECES = [
    "#define FMT_CONSTEXPR constexpr\n", "FMT_BEGIN_NAMESPACE\n", "FMT_END_NAMESPACE\n", "namespace detail {\n",
    "}\n", "};\n", "template <typename T>\n", "template <typename Char, typename... Args>\n", "struct S {\n",
    "class C : public B<int> {\n", " public:\n", "FMT_CONSTEXPR auto size() const noexcept -> size_t { return 0; }\n",
    "operator bool() const { return true; }\n", "W& get() { return *this; }\n", "int *W::p() { return 0; }\n",
    "void B<T>::g() {}\n", "auto operator<<(std::ostream& os, const S& s) -> std::ostream& { return os; }\n",
    "W::operator\n  std::basic_string<\n    Char>() const { return {}; }\n", "~S() {}\n",
    "FMT_API void vprint(FILE* f, string_view fmt) {}\n", "TEST(Suite, Case) {\n", "struct client *c;\n",
    "typedef struct {\n  int a;\n} pair_t;\n", "struct fwd;\n", "/* comment with ::, class X {, template< */\n",
    "REDIS_NO_SANITIZE(\"bounds\") int count(void) { return 0; }\n", "#ifdef __cplusplus\n", "#endif\n",
    "void operator /* odd */ delete[](void* p) noexcept {}\n", "enum class E : int { a, b };\n",
    "ns::P::Q::R::g() {}\n", "int (*table[4])(int);\n", "friend bool operator==(S a, S b) { return true; }\n",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=24), st.sampled_from(["c", "cpp"]))
def test_ids_from_macro_heavy_text_keep_their_shape(pieces: list[str], language: str) -> None:
    for symbol in build_symbols("".join(pieces), language).symbols:
        assert ID.fullmatch(symbol.id), symbol.id
        assert "\n" not in symbol.id and "  " not in symbol.id


@pytest.mark.parametrize(("text", "language"), [
    ("#ifndef A_H\n#define A_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#ifdef __cplusplus\n}\n"
     "#endif\n#endif\n", "c"),
    ("struct class_info { int class; };\nint new, this, template;\n", "c"),
    ("/* a class Foo { of errors; template<T>; std::vector */\nint f(void);\n", "c"),
    ("// namespace ns { public: a::b\nconst char *s = \"class A { template<\";\nchar c = ':';\n", "c"),
    ("#if defined(__cplusplus)\ntemplate <typename T> struct wrap { T v; };\n#endif\nint g(void);\n", "c"),
    ("#ifndef __cplusplus\nint h(void);\n#else\nnamespace c { }\n#endif\n", "c"),
    ("[[gnu::always_inline]] static inline int k(void) { return 0; }\n", "c"),
    ("#include <stdint.h>\nint x;\n", "c"),
    ("namespace fmt {\n}\n", "cpp"),
    ("namespace {\nint x;\n}\n", "cpp"),
    ("using namespace std;\n", "cpp"),
    ("template<typename T> T max(T a, T b);\n", "cpp"),
    ("class Widget;\n", "cpp"),
    ("class Widget : Base {};\n", "cpp"),
    ("struct S {\npublic:\n  int x;\n};\n", "cpp"),
    ("int n = std::max(1, 2);\n", "cpp"),
    ("bool operator==(S a, S b);\n", "cpp"),
    ("extern \"C++\" {\nint f(int);\n}\n", "cpp"),
    ("#include <vector>\n", "cpp"),
    ("  #  include <cstdint>\n", "cpp"),
    ("#ifdef __cplusplus\n}\n#endif\nclass After {};\n", "cpp"),
])
def test_a_header_is_c_or_cpp_by_its_content(text: str, language: str) -> None:
    assert header_language(text) == language
    assert language_of("include/x.h", text) == language
    assert language_of("include/x.H", text) == language
    assert language_of("include/x.h") == "c"  # without its text, by suffix
    assert language_of("include/x.hpp", text) == "cpp" and language_of("src/x.c", text) == "c"


def test_one_header_as_c_and_as_cpp_never_mix_in_the_cache(tmp_path: Path) -> None:
    text = "class W { public: int f() { return 1; } };\n"
    cache = SymbolCache(tmp_path)
    as_cpp = cache.symbols(text, "cpp")
    as_c = cache.symbols(text, "c")
    assert (as_cpp.language, as_cpp.block_ids()) == ("cpp", ["W", "W.f"])
    assert as_c.language == "c" and as_c.block_ids() != as_cpp.block_ids()
    assert SymbolCache(tmp_path).symbols(text, "cpp").block_ids() == ["W", "W.f"]


def test_a_cpp_header_through_symbols_and_open(ws: Path, dispatcher) -> None:
    """A `.h` holding C++ is indexed as C++ by every caller: `/symbols` finds its operators and `/open` shows
    one by the id a person types."""
    (ws / "include").mkdir()
    (ws / "include" / "w.h").write_text(CPP_NAMES)
    (ws / "include" / "plain.h").write_text("struct get { int x; };\nint get_value(struct get *g);\n")
    assert body(dispatcher.execute("/symbols get include").text) == (
        'Symbols "get" in include/: 2 definitions in 2 files\n---\n'
        "@s1 include/plain.h:L1  struct    #get\n"
        "@s2 include/w.h:L11     function  #W.get\n\n"
        "Open one: /open @s1 (or /open include/plain.h#get)\n"
        "2 definitions in 2 files; 2 source files indexed; scanned 2 files (2 entries)"
    )
    assert body(dispatcher.execute("/open 'include/w.h#W.operator bool'").text).startswith(
        "Opened include/w.h#W.operator bool\n---\n4 |   operator bool() const { return true; }"
    )


def test_friend_template_and_linkage_belong_to_their_definition() -> None:
    """A symbol's bytes start at its `template <…>`, `friend` or `extern "C"`, so an edit sending the whole
    definition does not leave a second one behind; a definition inside an `extern "C" { … }` block is its own."""
    text = ('struct S {\n  friend bool operator==(S a, S b) { return true; }\n'
            '  template <typename T> friend void swap(T&) {}\n};\n'
            'extern "C" int cfun(void) { return 0; }\nextern "C" {\nint inblock(void) { return 1; }\n}\n')
    index = build_symbols(text, "cpp")
    data = text.encode()
    assert [(s.id, data[s.start_byte : s.end_byte].decode()) for s in index.symbols[1:]] == [
        ("S.operator==", "friend bool operator==(S a, S b) { return true; }"),
        ("S.swap", "template <typename T> friend void swap(T&) {}"),
        ("cfun", 'extern "C" int cfun(void) { return 0; }'),
        ("inblock", "int inblock(void) { return 1; }"),
    ]


MISREAD = {
    "namespace testing {\nclass GTEST_API_ UnitTestImpl {\n public:\n  explicit UnitTestImpl(UnitTest* parent);\n"
    "  int count() const { return 0; }\n};\n}  // namespace testing\n": [
        "testing  namespace  L1-L7", "testing.UnitTestImpl  class  L2-L6", "testing.UnitTestImpl.count  method  L5"],
    "namespace testing {\nGTEST_API_ std::string JoinAsTuple(const Strings& fields) {\n  return \"\";\n}\n\n"
    "GTEST_API_ FailureReporterInterface* GetFailureReporter() {\n  return nullptr;\n}\n}  // namespace testing\n": [
        "testing  namespace  L1-L9", "testing.JoinAsTuple  function  L2-L4",
        "testing.GetFailureReporter  function  L6-L8"],
    "FMT_END_NAMESPACE\n\nstruct convertible_to_pointer {\n  operator const int*() const { return nullptr; }\n};\n": [
        "convertible_to_pointer  struct  L1-L5", "convertible_to_pointer.operator const int*  method  L4"],
}


@pytest.mark.parametrize("text", list(MISREAD))
def test_definitions_a_macro_hides_keep_their_names(text: str) -> None:
    """Export and visibility macros the parser cannot expand (`class GTEST_API_ X {`, `GTEST_API_ std::string
    f()`, a `FMT_END_NAMESPACE` line before a struct): the definition keeps its name and kind, never the macro's
    or the return type's (`testing.std.string.JoinAsTuple`)."""
    assert [f"{s.id}  {s.kind}  {span(s)}" for s in build_symbols(text, "cpp").symbols] == MISREAD[text]


@pytest.mark.parametrize("shift", range(-12, 4))
def test_a_marker_across_the_scan_windows_is_found(shift: int) -> None:
    """The words are looked for a window of the text at a time: one that starts a window's last bytes counts."""
    from stringsh.render.code.headers import _WINDOW

    text = "/* C */\n" + " " * (_WINDOW + shift - 8) + "namespace a {\n}\n"
    assert header_language(text) == "cpp"
    assert header_language(text.replace("namespace", "int x; //")) == "c"
