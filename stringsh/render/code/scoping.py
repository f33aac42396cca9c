"""What each language's syntax says about scope, for occurrences.py: which nodes open a function's scope, where its
parameters are, which constructs bind a name locally, which nodes are `x.name` access and which are imports.

Read from the tree-sitter grammars' node types; a language whose syntax says nothing of a construct (C has no
imports) leaves it out. Nothing here is a type: `obj.parse` is a member access whatever `obj` holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Scoping:
    """One language's scope rules, as node types and fields of its grammar."""

    #: node types that open a function's scope (functions, methods, lambdas, closures, comprehensions)
    scopes: frozenset[str]
    #: fields of a scope node that hold its parameters (C's are inside its declarator: `declarator_params`)
    params: tuple[str, ...] = ("parameters",)
    #: node type -> fields whose patterns bind names in the enclosing function (assignments, `let`, `var`, `:=`)
    binders: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: node type -> (object field, name field) of a `x.name` / `x::name` access
    access: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: access node types that always name a module, type or namespace path (`mod::parse`)
    static: frozenset[str] = frozenset()
    #: access node types that always reach into a value (C's `p->x`)
    values: frozenset[str] = frozenset()
    #: node types of import statements
    imports: frozenset[str] = frozenset()
    #: the names a method's own object goes by (`self`, `this`)
    selves: frozenset[str] = frozenset()
    #: identifier node types beyond those `/symbols --refs` has always matched
    extra_ids: frozenset[str] = frozenset()
    #: statements that declare a name as not local (`global x`)
    unbind: frozenset[str] = frozenset()
    #: the C family: parameters are in the function's declarator
    declarator_params: bool = False
    #: node types of a method whose receiver parameter names its object (Go)
    receivers: frozenset[str] = frozenset()


_PY = Scoping(
    scopes=frozenset({"function_definition", "lambda", "list_comprehension", "set_comprehension",
                      "dictionary_comprehension", "generator_expression"}),
    binders={"assignment": ("left",), "augmented_assignment": ("left",), "for_statement": ("left",),
             "for_in_clause": ("left",), "named_expression": ("name",), "as_pattern": ("alias",),
             "class_definition": ("name",)},
    access={"attribute": ("object", "attribute")},
    imports=frozenset({"import_statement", "import_from_statement"}),
    selves=frozenset({"self", "cls"}),
    unbind=frozenset({"global_statement", "nonlocal_statement"}),
)
_JS = Scoping(
    scopes=frozenset({"function_declaration", "generator_function_declaration", "function_expression", "function",
                      "generator_function", "arrow_function", "method_definition"}),
    params=("parameters", "parameter"),
    binders={"variable_declarator": ("name",), "catch_clause": ("parameter",), "for_in_statement": ("left",),
             "class_declaration": ("name",)},
    access={"member_expression": ("object", "property")},
    imports=frozenset({"import_statement"}),
    selves=frozenset({"this", "super"}),
    extra_ids=frozenset({"shorthand_property_identifier_pattern"}),
)
_GO = Scoping(
    scopes=frozenset({"function_declaration", "method_declaration", "func_literal"}),
    params=("parameters", "receiver", "result"),
    binders={"short_var_declaration": ("left",), "var_spec": ("name",), "const_spec": ("name",),
             "range_clause": ("left",)},
    access={"selector_expression": ("operand", "field"), "qualified_type": ("package", "name")},
    static=frozenset({"qualified_type"}),
    imports=frozenset({"import_spec"}),
    extra_ids=frozenset({"package_identifier"}),
    receivers=frozenset({"method_declaration"}),
)
_RUST = Scoping(
    scopes=frozenset({"function_item", "closure_expression"}),
    binders={"let_declaration": ("pattern",), "for_expression": ("pattern",), "let_condition": ("pattern",)},
    access={"field_expression": ("value", "field"), "scoped_identifier": ("path", "name"),
            "scoped_type_identifier": ("path", "name")},
    static=frozenset({"scoped_identifier", "scoped_type_identifier"}),
    imports=frozenset({"use_declaration"}),
    selves=frozenset({"self"}),
)
_JAVA = Scoping(
    scopes=frozenset({"method_declaration", "constructor_declaration", "lambda_expression"}),
    binders={"variable_declarator": ("name",), "enhanced_for_statement": ("name",),
             "catch_formal_parameter": ("name",)},
    access={"field_access": ("object", "field"), "method_invocation": ("object", "name"),
            "scoped_identifier": ("scope", "name"), "scoped_type_identifier": ("scope", "name")},
    static=frozenset({"scoped_identifier", "scoped_type_identifier"}),
    imports=frozenset({"import_declaration"}),
    selves=frozenset({"this", "super"}),
)
_C = Scoping(
    scopes=frozenset({"function_definition"}),
    params=(),
    binders={"declaration": ("declarator",)},
    access={"field_expression": ("argument", "field")},
    values=frozenset({"field_expression"}),
    declarator_params=True,
)
_CPP = Scoping(
    scopes=frozenset({"function_definition", "lambda_expression"}),
    params=(),
    binders={"declaration": ("declarator",)},
    access={"field_expression": ("argument", "field"), "qualified_identifier": ("scope", "name")},
    static=frozenset({"qualified_identifier"}),
    selves=frozenset({"this"}),
    declarator_params=True,
)
_RUBY = Scoping(
    scopes=frozenset({"method", "singleton_method", "block", "do_block", "lambda"}),
    binders={"assignment": ("left",), "operator_assignment": ("left",)},
    access={"call": ("receiver", "method"), "scope_resolution": ("scope", "name")},
    static=frozenset({"scope_resolution"}),
    selves=frozenset({"self"}),
)
_BASH = Scoping(scopes=frozenset({"function_definition"}), params=())

SCOPING: dict[str, Scoping] = {
    "python": _PY, "javascript": _JS, "typescript": _JS, "tsx": _JS, "go": _GO, "rust": _RUST, "java": _JAVA,
    "c": _C, "cpp": _CPP, "ruby": _RUBY, "bash": _BASH,
}

#: Fields of a pattern that hold no binding of it (a default value, a type, an object pattern's key).
SKIP_FIELDS = frozenset({"type", "value", "default", "right", "key", "size", "return_type", "body", "arguments",
                         "parameters", "function", "condition", "alternative", "consequence", "index"})
#: Nodes a pattern never binds through (`a[i] = …`, `f().x = …`).
STOP = frozenset({"subscript", "call", "call_expression", "index_expression", "subscript_expression",
                  "element_reference"})
