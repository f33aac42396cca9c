"""References by scope: every identifier of a source text with the role its syntax gives it and the symbol holding it.

`occurrences(text, language, symbols)` is a pure function of the text: one parse, the identifiers found by a query
(in C), each classified by walking up its few parents (scoping.py says what each node means in the language):

- `definition`: the name a definition (a symbol) is given;
- `import`: a name an import statement names or binds (`from m import parse`, `const {parse} = require("m")`);
- `qualified`: `x.name` where `x` is a module, package, type or namespace path (`json.parse`, `mod::parse`,
  `pkg.Parse`): a name, not a value, and not bound in the function;
- `member`: `x.name` reached through a value: `self.`/`this.`/a Go receiver, or any other expression (its type is
  not known);
- `parameter` / `local`: a name a function (or lambda, closure, comprehension) binds, at the binding and at each
  use inside it;
- `use`: any other identifier (a module-level name, a builtin, a name another module defines).

Nothing is type-checked: `obj.parse` is a member whatever `obj` holds, and a name a star import brings in is a
`use`. `container` is the id of the innermost symbol holding the occurrence ("" at top level; a definition's is the
symbol around it, not itself).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stringsh.render.code.budget import Budget
from stringsh.render.code.importsites import import_site, require_site, required
from stringsh.render.code.languages import RULES, grammar
from stringsh.render.code.scoping import SCOPING, SKIP_FIELDS, STOP, Scoping

if TYPE_CHECKING:
    from collections.abc import Collection

    from tree_sitter import Node, Query

    from stringsh.render.code.index import Symbol

#: The C family's declarators a function's name sits in (`*f(…)`, `P::g`).
_DECLARATORS = frozenset({"function_declarator", "qualified_identifier", "pointer_declarator", "reference_declarator",
                          "destructor_name", "operator_name"})
#: Parents an identifier's scope is looked for in (and `a.b.c…` parts followed): deeper nesting is read as `use`.
MAX_CLIMB = 256
#: Bytes of the text before a `.name` kept as `via` (a chain of a million `a.` is not copied per part).
MAX_VIA = 256
#: Levels a walk down to an identifier goes (past them, its parents are asked of tree-sitter).
MAX_DEPTH = 4096
ROLES = ("definition", "local", "parameter", "import", "qualified", "member", "use")


@dataclass(frozen=True)
class Occurrence:
    """One identifier. `via`: for `qualified`/`member` the text before the name (`json`, `self`), for `import` the
    module named (`./util`, `.util`, `example.com/util`). `imported`: for `import`, the name taken from the module
    ("" for the module itself: `import * as u`, `import pkg.util`). `binds`: this site binds the name (a definition,
    an import's bound name, an assignment, a parameter). `scope`: for `local`/`parameter`, the start byte of the
    function that binds it. `own`: a `member` reached through the method's own object."""

    name: str
    line: int  # 1-based
    column: int  # 1-based, in characters
    role: str
    container: str
    via: str = ""
    imported: str = ""
    binds: bool = False
    start_byte: int = 0
    scope: int = -1
    own: bool = False  # a member reached through the method's own object: `self.`, `this.`, a Go receiver


_QUERIES: dict[str, Query] = {}
_LOCK = threading.Lock()


def _ids_query(language: str) -> tuple[Query, frozenset[str]]:
    """A query capturing every identifier type of the language (the refs search's and this module's own)."""
    kinds = RULES[language].identifiers | SCOPING[language].extra_ids
    with _LOCK:
        query = _QUERIES.get(language)
        if query is None:
            from tree_sitter import Query

            loaded = grammar(language).language
            present = sorted(kind for kind in kinds if loaded.id_for_node_kind(kind, True))
            query = _QUERIES[language] = Query(loaded, "[" + " ".join(f"({k})" for k in present) + "] @id")
    return query, kinds


def occurrences(text: str, language: str, symbols: list[Symbol], names: Collection[str] | None = None,
                ) -> list[Occurrence]:
    """Every identifier of `text` (only those spelled as one of `names`, when given), in source order, with its role
    and container. [] when the parse runs past its time budget (such a file has no symbols either)."""
    data = text.encode("utf-8", "surrogatepass")
    loaded = grammar(language)
    budget = Budget(len(data))
    tree = budget.parse(loaded.parser(), data)
    query, kinds = _ids_query(language)
    nodes = budget.captures(query, kinds, tree.root_node, "id") if tree is not None else None
    if not nodes:
        return []
    wanted = None if names is None else {name.encode("utf-8", "surrogatepass") for name in names}
    reader = _Reader(language, data, kinds, symbols, tree.root_node)
    seen: set[int] = set()
    out = []
    for node in sorted(nodes, key=lambda n: n.start_byte):
        name = data[node.start_byte : node.end_byte]
        if node.start_byte in seen or (wanted is not None and name not in wanted):
            continue
        seen.add(node.start_byte)
        out.append(reader.occurrence(node, name.decode("utf-8", "surrogatepass")))
    return out


class _Reader:
    """Classifies the identifiers of one parse; each function's bindings are worked out once."""

    def __init__(self, language: str, data: bytes, kinds: frozenset[str], symbols: list[Symbol], root: Node) -> None:
        self.language, self.data, self.kinds, self.root = language, data, kinds, root
        #: node id -> parent, for the nodes above every identifier read so far (found by descending from the root:
        #: tree-sitter's own `parent` walks down from the root at each call)
        self.parents: dict[int, Node | None] = {root.id: None}
        self.path: list[Node] = [root]  # the nodes holding the last identifier descended to, the root first
        self.rule, self.scoping = RULES[language], SCOPING[language]
        self.symbols = sorted(symbols, key=lambda s: (s.start_byte, -s.end_byte))
        self.open: list[Symbol] = []  # the symbols holding the last byte asked, outermost first
        self.next = 0  # the first symbol not yet opened
        self.bound: dict[tuple[int, int], tuple[set[str], set[str], set[int]]] = {}

    def text(self, node: Node | None) -> str:
        return "" if node is None else self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def up(self, node: Node) -> Node | None:
        """`node`'s parent: known once an identifier below it was read, else asked of tree-sitter."""
        known = self.parents.get(node.id, False)
        return node.parent if known is False else known

    def descend(self, node: Node) -> None:
        """Learn the parents of `node` and of every node above it. Identifiers come in source order, so the walk
        starts from the deepest node on the way to the previous one that also holds this one (`self.path`), not
        from the root each time."""
        if node.id in self.parents:
            return
        path = self.path
        start, end = node.start_byte, node.end_byte
        while len(path) > 1 and (path[-1].start_byte > start or path[-1].end_byte < end):
            path.pop()
        above = path[-1]
        cursor = above.walk()
        for _ in range(MAX_DEPTH - len(path)):
            if cursor.goto_first_child_for_byte(start) is None:
                break
            current = cursor.node
            if current is None:
                break
            while current.start_byte > start or current.end_byte < end:
                if not cursor.goto_next_sibling() or cursor.node is None or cursor.node.start_byte > start:
                    return  # a zero-width or odd child: `up` asks tree-sitter for these few
                current = cursor.node
            self.parents.setdefault(current.id, above)
            if current == node:
                return
            path.append(current)
            above = current

    def occurrence(self, node: Node, name: str) -> Occurrence:
        self.descend(node)
        role, via, imported, binds, scope = self.classify(node, name)
        own = role == "member" and imported == "own"
        imported = "" if own else imported
        start = node.start_byte
        row, byte_column = node.start_point
        column = len(self.data[start - byte_column : start].decode("utf-8", "replace")) + 1
        container = self.container(start, name if role == "definition" else None)
        return Occurrence(name, row + 1, column, role, container, via, imported, binds, start, scope, own)

    def container(self, byte: int, defined: str | None) -> str:
        """The innermost symbol holding `byte` (bytes asked in increasing order: one sweep over the symbols, with a
        stack of those open); for a definition's name, the one around the definition."""
        symbols, stack = self.symbols, self.open
        while self.next < len(symbols) and symbols[self.next].start_byte <= byte:
            symbol = symbols[self.next]
            while stack and stack[-1].end_byte <= symbol.start_byte:
                stack.pop()
            stack.append(symbol)
            self.next += 1
        while stack and stack[-1].end_byte <= byte:
            stack.pop()
        holders = [s for s in stack[-2:] if s.start_byte <= byte < s.end_byte]
        if defined is not None and holders and holders[-1].name == defined:
            holders.pop()
        return holders[-1].id if holders else ""

    # -- the roles ----------------------------------------------------------------------------------------------

    def classify(self, node: Node, name: str) -> tuple[str, str, str, bool, int]:
        scoping = self.scoping
        parent = self.up(node)
        imported = self.imported(node)
        if imported is not None:
            via, taken, binds = imported
            return "import", via, taken, binds, -1
        if parent is not None and parent.type in scoping.access:
            object_field, name_field = scoping.access[parent.type]
            target = parent.child_by_field_name(object_field)
            if parent.child_by_field_name(name_field) == node:
                if target is None:  # `parse(1)` in Java, Ruby: a method of the object in hand, never a variable
                    return "use", "", "", False, -1
                role, own = self.access(parent, target, node)
                via = self.data[target.start_byte : min(target.end_byte, target.start_byte + MAX_VIA)]
                return role, via.decode("utf-8", "replace"), "own" if own else "", False, -1
            if parent.type in scoping.static and target == node:
                return "use", "", "", False, -1  # `parse::x`: a module or type path, never a local
        if self.is_definition(node, parent):
            return "definition", "", "", True, -1
        bound = self.local(node, name)
        if bound is not None:
            return bound
        return "use", "", "", False, -1

    def access(self, parent: Node, target: Node, name_node: Node) -> tuple[str, bool]:
        """(`qualified` for a path of names no function binds (a module, package, type), else `member`; whether the
        member is reached through the method's own object)."""
        scoping = self.scoping
        if parent.type in scoping.static:
            return "qualified", False
        root = target
        for _ in range(MAX_CLIMB):
            if root.type not in scoping.access:
                break
            inner = root.child_by_field_name(scoping.access[root.type][0])
            if inner is None:
                break
            root = inner
        spelled = self.text(root)
        if spelled in scoping.selves or root.type in ("this", "super", "self"):
            return "member", root == target
        if root.type not in self.kinds:
            return "member", False  # a call's result, a subscript, a literal: a value
        bound = self.local(name_node, spelled)  # the scopes around the access are the ones around its name
        if bound is not None:  # a local or parameter: a value (a Go receiver: the method's own)
            return "member", root == target and self._receiver(name_node, root, bound[4])
        return ("member" if parent.type in scoping.values else "qualified"), False

    def _receiver(self, below: Node, node: Node, scope_byte: int) -> bool:
        """Whether `node` names the receiver of the Go method (above `below`) whose scope starts at `scope_byte`."""
        scope = self.up(below)
        while scope is not None and not (scope.type in self.scoping.receivers and scope.start_byte == scope_byte):
            scope = self.up(scope)
        receiver = scope.child_by_field_name("receiver") if scope is not None else None
        names: list[Node] = []
        if receiver is not None:
            _pattern(receiver, self.kinds, names, self.scoping)
        return any(self.text(n) == self.text(node) for n in names)

    def is_definition(self, node: Node, parent: Node | None) -> bool:
        """Whether `node` is the name a definition gives (the rule's definition nodes, C's declarators)."""
        rule = self.rule
        child = node
        while parent is not None and parent.type in _DECLARATORS:
            child, parent = parent, self.up(parent)
        if parent is None or parent.type not in rule.defs:
            if parent is not None and parent.type == "type_definition":  # `typedef struct {…} name;`
                return parent.child_by_field_name("declarator") == child
            return False
        if parent.type == "variable_declarator":
            value = parent.child_by_field_name("value")
            if value is None or value.type not in ("arrow_function", "function_expression", "function",
                                                   "generator_function"):
                return False
        if parent.type == "function_definition" and self.language in ("c", "cpp"):
            return parent.child_by_field_name("declarator") == child
        return parent.child_by_field_name("name") == child

    def imported(self, node: Node) -> tuple[str, str, bool] | None:
        """(module, name taken from it, whether this site binds it) for an identifier of an import, else None."""
        ancestor: Node | None = node
        for _ in range(6):
            ancestor = self.up(ancestor) if ancestor is not None else None
            if ancestor is None:
                return None
            if ancestor.type in self.scoping.imports:
                return import_site(self, node, ancestor)
            if ancestor.type == "variable_declarator" and self.language in ("javascript", "typescript", "tsx"):
                module = required(ancestor, self)
                return None if module is None else require_site(node, ancestor, module, self)
        return None

    # -- functions' bindings ------------------------------------------------------------------------------------

    def local(self, node: Node, name: str) -> tuple[str, str, str, bool, int] | None:
        """(`parameter` or `local`, …) when a function around `node` binds `name`, else None."""
        scope = self.up(node)
        scoping = self.scoping
        for _ in range(MAX_CLIMB):  # a hostile nesting costs each identifier this much, not its depth
            if scope is None:
                break
            if scope.type in scoping.scopes:
                params, names, sites = self.bindings(scope)
                if name in params or name in names:
                    role = "parameter" if name in params else "local"
                    return role, "", "", node.start_byte in sites, scope.start_byte
            scope = self.up(scope)
        return None

    def bindings(self, scope: Node) -> tuple[set[str], set[str], set[int]]:
        """(parameters, other local names, the start bytes of the sites binding them) of one function."""
        key = (scope.start_byte, scope.end_byte)
        found = self.bound.get(key)
        if found is not None:
            return found
        scoping = self.scoping
        params: list[Node] = []
        holders = self._param_holders(scope)
        for holder in holders:
            _pattern(holder, self.kinds, params, scoping)
        if scope.type in scoping.receivers:
            pass  # the receiver is among the parameters (`receiver` field)
        bound: list[Node] = []
        unbound: set[str] = set()
        skip = {(h.start_byte, h.end_byte) for h in holders}
        stack = [child for child in reversed(scope.named_children) if (child.start_byte, child.end_byte) not in skip]
        while stack:
            current = stack.pop()
            if current.type in scoping.scopes:  # a nested function: its own scope; its name binds here
                named = current.child_by_field_name("name")
                if named is not None and named.type in self.kinds:
                    bound.append(named)
                continue
            fields = scoping.binders.get(current.type)
            if fields:
                for field_name in fields:
                    for target in current.children_by_field_name(field_name):
                        _pattern(target, self.kinds, bound, scoping)
            if current.type in scoping.unbind:
                unbound |= {self.text(child) for child in current.named_children}
            stack.extend(reversed(current.named_children))
        param_names = {self.text(n) for n in params}
        names = {self.text(n) for n in bound} - unbound - param_names
        sites = {n.start_byte for n in params} | {n.start_byte for n in bound if self.text(n) not in unbound}
        found = self.bound[key] = (param_names, names, sites)
        return found

    def _param_holders(self, scope: Node) -> list[Node]:
        scoping = self.scoping
        holders = [child for field_name in scoping.params for child in scope.children_by_field_name(field_name)]
        if scoping.declarator_params:
            declarator = scope.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is not None:
                holders += declarator.children_by_field_name("parameters")
            holders += scope.children_by_field_name("parameters")  # a C++ lambda's declarator: `[](int a)`
        if self.language == "ruby" or scope.type == "lambda_expression":
            holders += [c for c in scope.named_children if c.type in ("method_parameters", "block_parameters",
                                                                        "lambda_parameters", "inferred_parameters")]
        return holders


def _pattern(node: Node, kinds: frozenset[str], out: list[Node], scoping: Scoping) -> None:
    """The identifiers a pattern binds (`a`, `a, b`, `{a, b: c}`, `[a, *rest]`, `x: int = 1`'s `x`)."""
    if node.type in kinds:
        out.append(node)
        return
    if node.type in STOP or node.type in scoping.access:
        return
    if node.type == "pair_pattern":  # `{key: bound}`
        value = node.child_by_field_name("value")
        if value is not None:
            _pattern(value, kinds, out, scoping)
        return
    for i, child in enumerate(node.children):
        if child.is_named and node.field_name_for_child(i) not in SKIP_FIELDS:
            _pattern(child, kinds, out, scoping)
