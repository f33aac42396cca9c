"""C and C++ definitions and their names, as a person would type them.

Only definitions are symbols: a `struct`/`union`/`enum`/`class` with a body (an anonymous one named by the
`typedef` around it) and a function with a body. A bodiless specifier (`struct client;`, the `struct client *c` of
a parameter or a variable, a return type) names a type without defining it and is dropped before the index looks
at it. A function's name is found through its declarator (`W& get()`, `int *W::p()`, `(*signal(…))(int)`), and each
part of a qualified name is the name alone: `B<T>::g` is `B.g`, `ns::P::g` is `ns.P.g`, `operator <<` is
`operator<<`, `operator const char *()` is `operator const char*`, `W::~W` is `W.~W`. Every part is made of the
name's tokens joined with no space, or one space between two words (`operator new[]`, `operator bool`), so an id
never holds a newline or a run of spaces; a name that is not of the shape `PART` below is not a symbol.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from stringsh.render.code.family import Family

#: The languages whose definitions are named here.
C_FAMILY = frozenset({"c", "cpp"})

_WORD = r"[\w$]+"
#: One part of an id: a name, a destructor, an operator, or a conversion operator and its type.
PART = re.compile(
    rf"~?{_WORD}"
    r"|operator(?:[-+*/%^&|~!=<>,]{1,3}|->\*?|\(\)|\[\]|\"\"[\w$]+| (?:new|delete)(?:\[\])?| co_await)"
    rf"|operator (?:{_WORD}|[^\w\s.]+)(?:(?<=[\w$]) (?={_WORD})|{_WORD}|[^\w\s.])*"
)
#: A whole id: parts joined by `.`, numbered `-N` when several definitions share it.
ID = re.compile(rf"(?:{PART.pattern})(?:\.(?:{PART.pattern}))*(?:-\d+)?")

_SPECIFIER_KINDS = {"struct_specifier": "struct", "union_specifier": "union", "enum_specifier": "enum",
                    "class_specifier": "class"}
_SPECIFIERS = frozenset(_SPECIFIER_KINDS)
_DECLARATORS = frozenset({"pointer_declarator", "reference_declarator", "function_declarator",
                          "parenthesized_declarator", "attributed_declarator", "pointer_type_declarator",
                          "reference_type_declarator"})
_PLAIN = frozenset({"identifier", "field_identifier", "type_identifier", "namespace_identifier"})
_NAMES = _PLAIN | {"destructor_name", "operator_name", "operator_cast", "qualified_identifier", "template_function",
                   "template_method", "template_type", "nested_namespace_specifier"}
_SKIPPED = frozenset({"comment"})


def definitions(nodes: list[Node]) -> list[Node]:
    """The nodes that define something: specifiers with a body (every other captured type is a definition)."""
    return [node for node in nodes if node.type not in _SPECIFIERS or node.child_by_field_name("body") is not None]


def symbol_name(node: Node, data: bytes, family: Family) -> tuple[str, str] | None:
    """(name, qualifier written in the definition, `ns.P` of `void ns::P::g()`), or None for a definition without a
    well-formed name (an anonymous struct or namespace, a macro the parser read as something else)."""
    if node.type == "function_definition":
        misread = _misread(node)
        target, function = (misread[0], True) if misread is not None else _innermost(
            node.child_by_field_name("declarator"))
        if not function:
            return None  # `MACRO name { … }` read as a definition of `name`: no function is declared
    elif node.type in _SPECIFIERS:
        if node.child_by_field_name("body") is None:
            return None  # a mention of a type, not its definition
        target = node.child_by_field_name("name")
        parent = family.parent(node) if target is None else None
        if parent is not None and parent.type == "type_definition":  # `typedef struct { … } name;`
            target = _typedef_name(parent)
    else:
        target = node.child_by_field_name("name")
    parts = _parts(target, data) if target is not None else None
    if not parts or not all(PART.fullmatch(part) for part in parts):
        return None
    return parts[-1], ".".join(parts[:-1])


def kind(node: Node, kind: str) -> str:
    """The kind shown: a definition the parser misread through a macro is what it defines (`_misread`)."""
    misread = _misread(node) if node.type == "function_definition" else None
    return misread[1] if misread is not None else kind


def _misread(node: Node) -> tuple[Node, str] | None:
    """(name, kind) of a function definition that is a macro's misreading of something else: `MACRO namespace
    name {` (a "function" named `namespace`, then the name the parser could not place) is a namespace, `MACRO
    struct Name {` (the keyword unplaced) the struct `Name`, and `class MACRO Name {` (a bodiless `class MACRO`
    as the type of a "function" `Name`) the class `Name`."""
    declarator = node.child_by_field_name("declarator")
    if declarator is None or declarator.type != "identifier":
        return None
    if declarator.text == b"namespace":
        after = declarator.next_named_sibling
        if after is None or after.type != "ERROR" or after.named_child_count != 1:
            return None
        name = after.named_children[0]
        return (name, "namespace") if name.type == "identifier" else None
    before = declarator.prev_named_sibling
    if before is not None and before.type == "ERROR" and before.named_child_count == 1:
        keyword = before.named_children[0].text  # `MACRO\nstruct Name {`: the keyword the parser could not place
        return (declarator, keyword.decode()) if keyword in (b"struct", b"class", b"union") else None
    shape = node.child_by_field_name("type")
    if shape is None or shape.type not in _SPECIFIERS or shape.child_by_field_name("body") is not None:
        return None
    return declarator, _SPECIFIER_KINDS[shape.type]


def _innermost(node: Node | None) -> tuple[Node | None, bool]:
    """The name a declarator declares, through pointers, references, parentheses and the function's own, and
    whether a function is declared on the way."""
    function = False
    while node is not None and (node.type not in _NAMES or _made_up(node)):
        function = function or node.type == "function_declarator"
        inner = node.child_by_field_name("name" if node.type == "qualified_identifier" else "declarator")
        if inner is None:  # a reference declarator holds its declarator without a field name
            inner = next((c for c in node.named_children if c.type in _NAMES or c.type in _DECLARATORS), None)
        node = inner
    last = node
    while last is not None and last.type == "qualified_identifier":  # `W::operator bool() const { … }`
        last = last.child_by_field_name("name")
    return node, function or (last is not None and last.type == "operator_cast")


def _typedef_name(typedef: Node) -> Node | None:
    """The name a `typedef` gives its anonymous struct: a plain name first (`A` of `typedef struct {…} *PA, A;`)."""
    declarators = typedef.children_by_field_name("declarator")
    plain = [d for d in declarators if d.type == "type_identifier"]
    return plain[0] if plain else next((n for n, _ in map(_innermost, declarators) if n is not None), None)


def _parts(node: Node, data: bytes) -> list[str] | None:
    """The parts of a qualified name (`ns::P::g` → ns, P, g; `B<T>::g` → B, g), None for a shape not known here."""
    kind = node.type
    if kind in _PLAIN or kind in ("destructor_name", "operator_name"):
        return [_tokens(node, data)]
    if kind == "operator_cast":
        return [_tokens(node, data, _parameters(node))]
    if kind in ("template_function", "template_method", "template_type"):
        name = node.child_by_field_name("name")
        return _parts(name, data) if name is not None else None
    if kind == "nested_namespace_specifier":
        parts = [_parts(child, data) for child in node.named_children]
        return None if any(p is None for p in parts) else [q for p in parts for q in p]  # type: ignore[union-attr]
    if kind == "qualified_identifier":
        return _qualified(node, data)
    return None


def _qualified(node: Node, data: bytes) -> list[str] | None:
    """`ns::P::g` as ns, P, g. A `::` the parser made up to recover (`MACRO std::string f()` read as
    `std::string::f`) is no qualification: what stands before it is the return type, not a scope."""
    parts: list[str] = []
    while node.type == "qualified_identifier":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        if _made_up(node):
            parts = []
        elif scope is not None:  # `::f` is the global `f`
            outer = _parts(scope, data)
            if outer is None:
                return None
            parts += outer
        if name is None:
            return None
        node = name
    own = _parts(node, data)
    return None if own is None else parts + own


def _made_up(node: Node) -> bool:
    """Whether a qualified name's `::` is one the parser made up to recover (it stands for no text)."""
    if node.type != "qualified_identifier":
        return False
    separator = next((child for child in node.children if child.type == "::"), None)
    return separator is None or separator.is_missing


def _parameters(node: Node) -> int:
    """Where a conversion operator's parameter list starts: its name is the tokens before it."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "parameter_list":
            return current.start_byte
        stack.extend(current.named_children)
    return node.end_byte


def _tokens(node: Node, data: bytes, end: int | None = None) -> str:
    """The node's tokens up to `end`, comments left out, joined with one space between two words only."""
    end = node.end_byte if end is None else end
    out = ""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.start_byte >= end or current.type in _SKIPPED:
            continue
        if current.child_count:
            stack.extend(reversed(current.children))
            continue
        token = data[current.start_byte : current.end_byte].decode("utf-8", "replace")
        token = "".join(token.split())
        if out and token and _word(out[-1]) and _word(token[0]):
            out += " "
        out += token
    return out


def _word(char: str) -> bool:
    return char.isalnum() or char in "_$"
