"""Which files are source code, and what counts as a symbol in each language (the table `/help symbols` shows).

A rule names the tree-sitter node types that define something (`defs`, with the kind each is shown as), the
nodes that wrap a definition and belong to it (decorators, `export`, `template<…>`), the siblings that lead it
(comments, attributes) and the nodes that qualify what they hold without being symbols (a Rust `impl`). Grammars
are the official per-language wheels, loaded on first use: nothing is ever downloaded.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.render.code.idioms import NARROW
from stringsh.render.code.suffixes import LANGUAGE_BY_SUFFIX, language_of

__all__ = ["RULES", "Rule", "grammar", "language_of"]

if TYPE_CHECKING:
    from tree_sitter import Language, Parser, Query


@dataclass(frozen=True)
class Rule:
    """What a symbol is in one language."""

    name: str
    module: str
    function: str
    defs: dict[str, str]
    #: parent node types that belong to the definition they hold (decorators, `export`, templates)
    wrappers: frozenset[str] = frozenset()
    #: sibling types that lead a definition when right above it (comments, attributes)
    leading: frozenset[str] = frozenset({"comment"})
    #: node types that qualify the definitions inside without being symbols themselves
    qualifiers: frozenset[str] = frozenset()
    #: kinds whose functions inside are methods
    classes: frozenset[str] = frozenset({"class", "struct", "interface", "trait", "impl", "module", "enum", "record"})
    #: identifier node types, for `/symbols --refs`
    identifiers: frozenset[str] = frozenset({"identifier"})
    #: node types captured only with a value of these types in this field (idioms.py: `x = 1` is no definition)
    narrow: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)


_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "variable_declarator": "function",  # only with a function or class as its value (an object qualifies)
    "assignment_expression": "function",  # `app.init = function(){}`, `X.prototype.m = …` (idioms.py)
    "pair": "method",  # `{post: function(){}}` in an object a name holds
    "field_definition": "method",  # a class field holding a function
}
_TS_DEFS = {
    **_JS_DEFS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "function_signature": "function",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "internal_module": "namespace",
    "module": "namespace",  # `module A {}` (not `declare module "name"`)
    "public_field_definition": "method",  # a class field holding a function or typed as one
    "property_signature": "method",  # an interface or type member typed as a function
}
_JS_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"})
_TS_WRAPPERS = _JS_WRAPPERS | {"ambient_declaration"}
_JS_IDS = frozenset({"identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"})
_C_IDS = frozenset({"identifier", "field_identifier", "type_identifier"})

RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule("python", "tree_sitter_python", "language",
             {"function_definition": "function", "class_definition": "class"},
             wrappers=frozenset({"decorated_definition"})),
        Rule("javascript", "tree_sitter_javascript", "language", _JS_DEFS, wrappers=_JS_WRAPPERS,
             leading=frozenset({"comment", "decorator"}), identifiers=_JS_IDS, narrow=NARROW),
        Rule("typescript", "tree_sitter_typescript", "language_typescript", _TS_DEFS, wrappers=_TS_WRAPPERS,
             leading=frozenset({"comment", "decorator"}), identifiers=_JS_IDS, narrow=NARROW),
        Rule("tsx", "tree_sitter_typescript", "language_tsx", _TS_DEFS, wrappers=_TS_WRAPPERS,
             leading=frozenset({"comment", "decorator"}), identifiers=_JS_IDS, narrow=NARROW),
        Rule("go", "tree_sitter_go", "language",
             {"function_declaration": "function", "method_declaration": "method", "type_spec": "type",
              "type_alias": "type"},
             wrappers=frozenset({"type_declaration"}),
             identifiers=frozenset({"identifier", "field_identifier", "type_identifier"})),
        Rule("rust", "tree_sitter_rust", "language",
             {"function_item": "function", "function_signature_item": "function", "struct_item": "struct",
              "enum_item": "enum", "union_item": "union", "trait_item": "trait", "mod_item": "module",
              "macro_definition": "macro", "type_item": "type"},
             leading=frozenset({"line_comment", "block_comment", "attribute_item"}),
             qualifiers=frozenset({"impl_item"}), classes=frozenset({"impl", "trait"}),
             identifiers=frozenset({"identifier", "field_identifier", "type_identifier"})),
        Rule("java", "tree_sitter_java", "language",
             {"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
              "record_declaration": "record", "annotation_type_declaration": "annotation",
              "method_declaration": "method", "constructor_declaration": "constructor",
              "compact_constructor_declaration": "constructor"},
             leading=frozenset({"line_comment", "block_comment"}),
             identifiers=frozenset({"identifier", "type_identifier"})),
        Rule("c", "tree_sitter_c", "language",
             {"function_definition": "function", "struct_specifier": "struct", "union_specifier": "union",
              "enum_specifier": "enum"},
             wrappers=frozenset({"type_definition", "declaration"}), identifiers=_C_IDS),
        Rule("cpp", "tree_sitter_cpp", "language",
             {"function_definition": "function", "class_specifier": "class", "struct_specifier": "struct",
              "union_specifier": "union", "enum_specifier": "enum", "namespace_definition": "namespace"},
             wrappers=frozenset({"template_declaration", "type_definition", "declaration", "friend_declaration",
                                 "linkage_specification"}),
             identifiers=frozenset({*_C_IDS, "namespace_identifier"})),
        Rule("ruby", "tree_sitter_ruby", "language",
             {"method": "function", "singleton_method": "function", "class": "class", "module": "module"},
             identifiers=frozenset({"identifier", "constant"})),
        Rule("bash", "tree_sitter_bash", "language", {"function_definition": "function"},
             identifiers=frozenset({"word", "variable_name"})),
    )
}
assert set(LANGUAGE_BY_SUFFIX.values()) <= set(RULES), "a suffix names a language without a rule"


@dataclass
class Grammar:
    """A loaded grammar: its parser (one per thread: a parser is not shared) and the query finding definitions."""

    rule: Rule
    language: Language
    defs: Query
    identifiers: Query
    _local: threading.local = field(default_factory=threading.local)

    @property
    def kinds(self) -> frozenset[str]:
        """The node types `defs` captures."""
        return frozenset((*self.rule.defs, *self.rule.qualifiers))

    def parser(self) -> Parser:
        parser = getattr(self._local, "parser", None)
        if parser is None:
            from tree_sitter import Parser

            parser = self._local.parser = Parser(self.language)
        return parser


_GRAMMARS: dict[str, Grammar] = {}
_LOCK = threading.Lock()


def grammar(name: str) -> Grammar:
    """The grammar of a language, loaded from its wheel on first use."""
    with _LOCK:
        found = _GRAMMARS.get(name)
        if found is None:
            from tree_sitter import Language, Query

            rule = RULES[name]
            language = Language(getattr(importlib.import_module(rule.module), rule.function)())
            defs = Query(language, _alternatives(language, [*rule.defs, *rule.qualifiers], "def", rule.narrow))
            ids = Query(language, _alternatives(language, sorted(rule.identifiers), "id"))
            found = _GRAMMARS[name] = Grammar(rule, language, defs, ids)
        return found


def _alternatives(language: Language, kinds: list[str], capture: str,
                  narrow: dict[str, tuple[str, frozenset[str]]] | None = None) -> str:
    """`[(a) (b field: [(c) (d)])] @capture` over the node types this grammar has (a type one grammar version
    lacks is skipped), a narrowed type only with the values it names."""
    def present(kinds: list[str] | frozenset[str]) -> list[str]:
        return sorted(kind for kind in kinds if language.id_for_node_kind(kind, True))

    def pattern(kind: str) -> str:
        if narrow and kind in narrow:
            name, values = narrow[kind]
            return f"({kind} {name}: [" + " ".join(f"({value})" for value in present(values)) + "])"
        return f"({kind})"

    return "[" + " ".join(pattern(kind) for kind in present(kinds)) + f"] @{capture}"
