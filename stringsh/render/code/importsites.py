"""Import statements as occurrences.py reads them: the module an identifier of an import names, the name it takes
from it, and whether the identifier binds it (Python's `import`/`from … import`, JavaScript's `import` and
`require`, Go's import specs, Rust's `use` and Java's `import`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from tree_sitter import Node


class Reader(Protocol):
    """What these functions need of occurrences.py's reader."""

    language: str

    def text(self, node: Node | None) -> str: ...

    def up(self, node: Node) -> Node | None: ...


def import_site(reader: Reader, node: Node, statement: Node) -> tuple[str, str, bool]:
    """(module, name taken from it, whether this site binds it) for an identifier inside an import statement."""
    parent = reader.up(node)
    assert parent is not None
    name = reader.text(node)
    kind = statement.type
    if kind == "import_from_statement":
        module = reader.text(statement.child_by_field_name("module_name"))
        inside = reader.up(parent) if parent.type == "dotted_name" else parent
        if inside is not None and inside.type == "aliased_import":
            return module, reader.text(inside.child_by_field_name("name")), inside.child_by_field_name("alias") == node
        in_module = statement.child_by_field_name("module_name")
        if in_module is not None and in_module.start_byte <= node.start_byte < in_module.end_byte:
            return module, "", False
        return module, name, True
    if kind == "import_statement" and reader.language == "python":
        dotted = parent if parent.type == "dotted_name" else None
        inside = reader.up(dotted) if dotted is not None else parent
        if inside is not None and inside.type == "aliased_import":
            module = reader.text(inside.child_by_field_name("name"))
            return module, "", inside.child_by_field_name("alias") == node
        module = reader.text(dotted) if dotted is not None else name
        return module, "", dotted is None or dotted.named_children[0] == node
    if kind == "import_statement":  # JavaScript, TypeScript
        source = statement.child_by_field_name("source")
        module = reader.text(source)[1:-1] if source is not None else ""
        if parent.type == "import_specifier":
            alias = parent.child_by_field_name("alias")
            taken = reader.text(parent.child_by_field_name("name"))
            return module, taken, alias is None or alias == node
        if parent.type == "namespace_import":
            return module, "", True
        return module, "default", True
    if kind == "import_spec":  # Go: `u "example.com/util"`
        path = statement.child_by_field_name("path")
        return (reader.text(path)[1:-1] if path is not None else ""), "", True
    path = statement.child_by_field_name("argument") or (statement.named_children or [statement])[0]
    text = reader.text(path)  # Rust `use a::b::c;`, Java `import a.b.C;`: the last name binds
    last = parent.type not in ("scoped_identifier", "scoped_type_identifier") or (
        parent.child_by_field_name("name") == node and (above := reader.up(parent)) is not None
        and above.type not in ("scoped_identifier", "scoped_type_identifier"))
    return text, name if last else "", last


def required(declarator: Node, reader: Reader) -> str | None:
    """The module of `… = require("m")` (a JavaScript declarator), else None."""
    value = declarator.child_by_field_name("value")
    if value is None or value.type != "call_expression":
        return None
    function = value.child_by_field_name("function")
    arguments = value.child_by_field_name("arguments")
    if function is None or reader.text(function) != "require" or arguments is None:
        return None
    first = arguments.named_children[0] if arguments.named_children else None
    if first is None or first.type != "string":
        return None
    return reader.text(first)[1:-1]


def require_site(node: Node, declarator: Node, module: str, reader: Reader) -> tuple[str, str, bool] | None:
    """The import role of a name in `const x = require("m")` / `const {a, b: c} = require("m")`; None for a name in
    the call itself (`require`)."""
    name = declarator.child_by_field_name("name")
    if name is None or not (name.start_byte <= node.start_byte < name.end_byte):
        return None
    if name == node:
        return module, "", True
    parent = reader.up(node)
    if parent is not None and parent.type == "pair_pattern":
        key = parent.child_by_field_name("key")
        return module, reader.text(key), parent.child_by_field_name("value") == node
    return module, reader.text(node), True
