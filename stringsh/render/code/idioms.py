"""Names of definitions a language writes by idiom rather than by declaration: JavaScript and TypeScript functions
assigned to properties or held in object literals and class fields, TypeScript function-typed members, and the
type a Rust `impl` qualifies its functions with. index.py asks `HOOKS[language]` first; None sends a node down the
ordinary path.

Ids are the names a person would type: `app.init` for `app.init = function(){}`, `X.m` for
`X.prototype.m = …` (`prototype` dropped), `api.get` for a method of `const api = {…}`, `K.handle` for
`this.handle = …` in K's constructor, `M.find` for `impl<'a> Finder for &'a M { fn find }` (the implementing type's
base name: references, pointers, generics and paths dropped), and the trait's name when the type has none (a
slice, a tuple, a type parameter: `impl<T: Display> Show for T { fn show }` is `Show.show`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node

    from stringsh.render.code.family import Family

__all__ = ["FUNCTION_VALUES", "HOOKS", "NARROW", "Idiom"]

#: A function-like value makes a declarator, an assignment, a property or a class field a definition.
FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_SCOPE_VALUES = frozenset({"object"})
_CLASS_VALUES = frozenset({"class"})
#: What a value may stand in: `{…} as const`, `{…} satisfies T`, `({…})`, looked through at most _WRAPPED_DEPTH deep
#: (a constant: every property of the object looks through them again).
_WRAPPED = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression"})
_WRAPPED_DEPTH = 3

#: Definitions captured only with these values (field, value types), so the query in C skips `x = 1` and `{a: 1}`.
NARROW: dict[str, tuple[str, frozenset[str]]] = {
    "variable_declarator": ("value", FUNCTION_VALUES | _SCOPE_VALUES | _CLASS_VALUES | _WRAPPED),
    "assignment_expression": ("right", FUNCTION_VALUES | _SCOPE_VALUES | _CLASS_VALUES | _WRAPPED),
    "pair": ("value", FUNCTION_VALUES | _SCOPE_VALUES | _WRAPPED),
}

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*\Z")
#: Objects whose holder names them: a property of one is qualified by it (`const api = {get() {}}`).
_NAMED_OBJECT_HOLDERS = frozenset({"variable_declarator", "assignment_expression", "pair", "export_statement"})
_MODULE_OBJECTS = (("exports",), ("module", "exports"))


class Idiom(NamedTuple):
    """What an idiom defines: a symbol, a scope (a name qualifying what it holds without being a symbol), or
    nothing (`name` empty)."""

    name: str
    qualifier: str = ""
    kind: str = ""  # "" for the rule's kind of the node type
    scope: bool = False
    #: qualified by the class that holds the enclosing method, not by the method (`this.x = …` in a constructor)
    outer: bool = False


NOTHING = Idiom("")


def _text(node: Node | None, data: bytes) -> str:
    return "" if node is None else data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _property(node: Node | None, data: bytes) -> str:
    """An object key or class field name as written (a quoted key that is an identifier is unquoted), or ""."""
    if node is None:
        return ""
    if node.type in ("property_identifier", "private_property_identifier", "identifier"):
        return _text(node, data)
    if node.type == "string":
        inner = _text(node, data)[1:-1]
        return inner if _IDENTIFIER.match(inner) else ""
    return ""


def _member_parts(node: Node, data: bytes) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"] (`this` kept, `prototype` dropped), or None for a computed or called member."""
    parts: list[str] = []
    while node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type not in ("property_identifier", "private_property_identifier"):
            return None
        parts.append(_text(prop, data))
        obj = node.child_by_field_name("object")
        if obj is None:
            return None
        node = obj
    if node.type not in ("identifier", "this"):
        return None
    parts.append(_text(node, data))
    parts.reverse()
    return [part for part in parts if part != "prototype"] or None


def _assigned(parts: list[str], value: Node) -> Idiom:
    """The idiom of `parts = value`: a function, a method of the object assigned to, a class, or a scope."""
    outer = parts[0] == "this"
    if outer:
        parts = parts[1:]
        if not parts:
            return NOTHING
    *holder, name = parts
    qualifier = ".".join(holder)
    if value.type in _SCOPE_VALUES:
        return Idiom(name, qualifier, scope=True, outer=outer)
    if value.type in _CLASS_VALUES:
        return Idiom(name, qualifier, "class", outer=outer)
    method = (bool(holder) or outer) and tuple(holder) not in _MODULE_OBJECTS
    return Idiom(name, qualifier, "method" if method else "function", outer=outer)


def _unwrapped(node: Node | None) -> Node | None:
    """The value inside `… as const`, `… satisfies T` and parentheses (a few deep)."""
    for _ in range(_WRAPPED_DEPTH):
        if node is None or node.type not in _WRAPPED or not node.named_children:
            break
        node = node.named_children[0]
    return node


def _named_object(node: Node, family: Family) -> bool:
    """Whether the object holding `node` (a property) is named by what holds it: a declarator, an assignment, a
    property of its own, `export default`."""
    holder = family.parent(node)
    for _ in range(_WRAPPED_DEPTH + 1):
        holder = family.parent(holder) if holder is not None else None
        if holder is None or holder.type not in _WRAPPED:
            break
    return holder is not None and holder.type in _NAMED_OBJECT_HOLDERS


def _in_a_named_type(node: Node, family: Family) -> bool:
    """Whether a TypeScript member belongs to an interface or a `type` (not a parameter's inline type)."""
    body = family.parent(node)
    holder = family.parent(body) if body is not None else None
    return body is not None and (body.type == "interface_body" or (
        holder is not None and holder.type in ("interface_declaration", "type_alias_declaration")))


def _value_kind(value: Node | None) -> str:
    value = _unwrapped(value)
    if value is None:
        return ""
    if value.type in FUNCTION_VALUES:
        return "function"
    if value.type in _SCOPE_VALUES:
        return "scope"
    return "class" if value.type in _CLASS_VALUES else ""


def _function_typed(node: Node) -> bool:
    """Whether a TypeScript member's type annotation is a function type (`onClick: (e: Event) => void`)."""
    annotation = node.child_by_field_name("type")
    if annotation is None:
        return False
    shape = annotation.named_children[0] if annotation.named_children else None
    while shape is not None and shape.type == "parenthesized_type" and shape.named_children:
        shape = shape.named_children[0]
    return shape is not None and shape.type in ("function_type", "constructor_type")


def _javascript(node: Node, data: bytes, family: Family) -> Idiom | None:
    kind = node.type
    if kind == "variable_declarator":
        value = _value_kind(node.child_by_field_name("value"))
        name = node.child_by_field_name("name")
        if not value or name is None or name.type != "identifier":
            return NOTHING
        text = _text(name, data)
        return Idiom(text, scope=True) if value == "scope" else Idiom(text, kind="class" if value == "class" else "")
    if kind == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        right = _unwrapped(right)
        if left is None or right is None or not _value_kind(right):
            return NOTHING
        parts = _member_parts(left, data) if left.type in ("member_expression", "identifier") else None
        return _assigned(parts, right) if parts else NOTHING
    if kind == "pair":
        value = _value_kind(node.child_by_field_name("value"))
        name = _property(node.child_by_field_name("key"), data)
        if not value or not name or not _named_object(node, family):
            return NOTHING
        return Idiom(name, scope=True) if value == "scope" else Idiom(name, kind="method")
    if kind in ("field_definition", "public_field_definition"):
        name = _property(node.child_by_field_name("property") or node.child_by_field_name("name"), data)
        function = _value_kind(node.child_by_field_name("value")) == "function" or _function_typed(node)
        return Idiom(name, kind="method") if name and function else NOTHING
    if kind == "property_signature":
        name = _property(node.child_by_field_name("name"), data)
        return Idiom(name, kind="method") if name and _function_typed(node) and _in_a_named_type(node, family) \
            else NOTHING
    if kind == "module":  # TypeScript's `module A.B {}`; `declare module "name"` names a file, not a symbol
        name = node.child_by_field_name("name")
        if name is None or name.type not in ("identifier", "nested_identifier"):
            return NOTHING
        qualifier, _, last = _text(name, data).rpartition(".")
        return Idiom(last, qualifier)
    return None


_RUST_WRAPPED = frozenset({"reference_type", "pointer_type", "generic_type"})


def _rust_base(node: Node | None, data: bytes) -> str:
    """The base name of a Rust type (`M` of `&'a M`, `Vec` of `Vec<T>`, `Error` of `io::Error`, `Other` of
    `dyn Other + Send`), or "" for a type without one (a slice, a tuple, a function pointer)."""
    while node is not None:
        if node.type in ("type_identifier", "primitive_type"):
            return _text(node, data)
        if node.type == "scoped_type_identifier":
            return _text(node.child_by_field_name("name"), data)
        if node.type in _RUST_WRAPPED:
            node = node.child_by_field_name("type")
        elif node.type == "dynamic_type":
            node = node.child_by_field_name("trait")
        elif node.type == "bounded_type":
            node = node.named_children[0] if node.named_children else None
        else:
            return ""
    return ""


def _rust(node: Node, data: bytes, family: Family) -> Idiom | None:
    if node.type != "impl_item":
        return None
    base = _rust_base(node.child_by_field_name("type"), data)
    parameters = node.child_by_field_name("type_parameters")
    generic = {
        _text(child.child_by_field_name("name"), data) for child in (parameters.named_children if parameters else [])
        if child.type in ("type_parameter", "constrained_type_parameter")
    }
    if not base or base in generic:  # a blanket impl or one for a slice or tuple: the trait names it
        base = _rust_base(node.child_by_field_name("trait"), data)
    return Idiom(base, scope=True) if base else NOTHING


#: Per language: (node, source bytes, family) -> the idiom it defines, or None for the ordinary path.
HOOKS: dict[str, Callable[[Node, bytes, Family], Idiom | None]] = {
    "javascript": _javascript,
    "typescript": _javascript,
    "tsx": _javascript,
    "rust": _rust,
}
