"""The symbol index of a source file: what `path#Symbol` resolves to, as line and byte ranges of the source.

One tree-sitter parse finds the definitions (a query per language, run in C); nesting, qualified ids
(`Parser.parse`), kinds and the leading decorators, attributes and comments are worked out on those few nodes.
Repeated ids are numbered as repeated headings are (`handler-0`, `handler-1`; the bare `handler` is ambiguous).
Plain tuples throughout, so the index serialises to a small `marshal` blob for the signed cache. Lines are
0-based with exclusive ends; bytes are offsets into the text's UTF-8 encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stringsh.render.blockids import number_slugs
from stringsh.render.code import cnames
from stringsh.render.code.budget import MAX_NESTING, QUALIFIED_PER_BYTE, WORK, Budget, qualified_budget
from stringsh.render.code.family import Family
from stringsh.render.code.idioms import FUNCTION_VALUES as _FUNCTION_VALUES
from stringsh.render.code.idioms import HOOKS, Idiom
from stringsh.render.code.languages import Grammar, Rule, grammar

if TYPE_CHECKING:
    from tree_sitter import Node

SYMBOL_VERSION = 5  # bumped whenever the rules find different symbols: old disk entries are not reused


@dataclass(frozen=True)
class Symbol:
    """One definition. `start`/`end` (lines) and `start_byte`/`end_byte` include its decorators and comments."""

    id: str  # distinct: `Parser.parse`, or `handler-1` when the qualified name repeats
    qualified: str  # `Parser.parse`
    name: str  # `parse`
    kind: str  # function, method, class, struct, …
    start: int
    end: int
    start_byte: int
    end_byte: int
    depth: int


@dataclass
class SymbolIndex:
    """The symbols of one source text, in source order, and where it failed to parse (1-based line, column)."""

    language: str = ""
    line_count: int = 0
    #: (qualified, name, kind, start, end, start_byte, end_byte, depth)
    rows: list[tuple[str, str, str, int, int, int, int, int]] = field(default_factory=list)
    errors: list[tuple[int, int]] = field(default_factory=list)
    #: lines saying what was not indexed (`[nesting] …`, `[syntax] … did not finish …`)
    notes: list[str] = field(default_factory=list)
    #: the parse ran out of its time budget: the file is text without symbols
    unparsed: bool = False
    # -- derived --
    ids: list[str] = field(default_factory=list)
    names: dict[str, list[int]] = field(default_factory=dict)

    def derive(self) -> SymbolIndex:
        qualified = [row[0] for row in self.rows]
        names = {name: [i] for i, name in enumerate(qualified)}
        if len(names) == len(qualified):  # no repeats (the common case): every id is its qualified name
            self.ids, self.names = qualified, names
        else:
            self.ids, self.names = number_slugs(qualified, set())
        return self

    def symbol(self, i: int) -> Symbol:
        return Symbol(self.ids[i], *self.rows[i])

    @property
    def symbols(self) -> list[Symbol]:
        return [self.symbol(i) for i in range(len(self.rows))]

    def block_ids(self) -> list[str]:
        """Every symbol's distinct id, in source order (the REPL offers these after `#`; replies list them)."""
        return list(self.ids)

    def _members(self, block_id: str) -> list[int]:
        """The symbols an id names: a distinct or qualified id, else a bare name (`parse` for `Parser.parse`)."""
        members = self.names.get(block_id)
        if members:
            return members
        return [i for i, row in enumerate(self.rows) if row[1] == block_id]

    def resolve(self, block_id: str) -> Symbol | None:
        members = self._members(block_id)
        return self.symbol(members[0]) if members else None

    def ambiguity(self, block_id: str) -> list[tuple[str, int]]:
        """(distinct id, 1-based line) of each symbol a bare id names when it names more than one, else []."""
        members = self._members(block_id)
        if len(members) < 2:
            return []
        return [(self.ids[i], self.rows[i][3] + 1) for i in members]

    def containing(self, line: int) -> Symbol | None:
        """The innermost symbol whose lines hold `line` (0-based)."""
        best = None
        for i, row in enumerate(self.rows):
            if row[3] <= line < row[4] and (best is None or row[7] >= self.rows[best][7]):
                best = i
        return self.symbol(best) if best is not None else None

    @property
    def error_note(self) -> str:
        """The lines saying the parse found errors (symbols near them may be missing) or what was not indexed, or
        ""."""
        lines = []
        if self.errors:
            line, column = self.errors[0]
            more = f" and {len(self.errors) - 1} more" if len(self.errors) > 1 else ""
            lines.append(f"[syntax] The {self.language} parser found an error at line {line}, column {column}{more}; "
                         "symbols near it may be missing.")
        return "\n".join([*lines, *self.notes])

    def to_tuple(self) -> tuple[Any, ...]:
        return (SYMBOL_VERSION, self.language, self.line_count, self.rows, self.errors, self.notes, self.unparsed)

    @classmethod
    def from_tuple(cls, data: tuple[Any, ...]) -> SymbolIndex:
        if not data or data[0] != SYMBOL_VERSION or len(data) != 7:
            raise ValueError("symbol index version mismatch")
        rows = [tuple(row) for row in data[3]]
        errors = [tuple(error) for error in data[4]]
        return cls(data[1], data[2], rows, errors, list(data[5]), bool(data[6])).derive()  # type: ignore[arg-type]


def encode_source(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def build_symbols(text: str, language: str, data: bytes | None = None) -> SymbolIndex:
    """Parse a source text and index its definitions, within the bounds of budget.py: a file whose parse runs out
    of time is indexed as text without symbols, with a note saying so."""
    loaded = grammar(language)
    data = encode_source(text) if data is None else data
    lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    budget = Budget(len(data))
    tree = budget.parse(loaded.parser(), data)
    nodes = budget.captures(loaded.defs, loaded.kinds, tree.root_node) if tree is not None else None
    if tree is None or nodes is None:
        note = (f"[syntax] The {language} parser did not finish within {budget.seconds:.0f} seconds; the file is shown "
                "as text, without symbols.")
        return SymbolIndex(language, lines, notes=[note], unparsed=True).derive()
    if language in cnames.C_FAMILY:
        nodes = cnames.definitions(nodes)
    rows, notes = _rows(loaded, nodes, data, Family(tree.root_node, nodes))
    return SymbolIndex(language, lines, rows, syntax_errors(tree.root_node), notes).derive()


def syntax_errors(root: Node, limit: int = 20) -> list[tuple[int, int]]:
    """(1-based line, column) of the first error or missing nodes, in source order."""
    if not root.has_error:
        return []
    found: list[tuple[int, int]] = []
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append((node.start_point.row + 1, node.start_point.column + 1))
            continue
        stack.extend(child for child in reversed(node.children) if child.has_error or child.is_missing)
    return sorted(found)


Row = tuple[str, str, str, int, int, int, int, int]


def _rows(loaded: Grammar, nodes: list[Node], data: bytes, family: Family) -> tuple[list[Row], list[str]]:
    """The definitions' rows in source order, and the notes saying what was left out: each qualified name is its
    parent's plus one part (never rebuilt from the root), at most MAX_NESTING parts and within the file's
    qualified budget, so the rows grow with the file, not with the square of its nesting."""
    rule = loaded.rule
    hook = HOOKS.get(rule.name)
    nodes.sort(key=lambda node: (node.start_byte, -node.end_byte))
    rows: list[Row] = []
    stack: list[Frame] = []  # the enclosing definitions
    lines = _Lines(data)
    budget, used = qualified_budget(len(data)), 0
    deep, notes = 0, []
    for node in nodes:
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        if len(stack) >= MAX_NESTING:
            deep = deep or node.start_point.row + 1
            continue
        idiom = hook(node, data, family) if hook is not None else None
        named = (idiom.name, idiom.qualifier) if idiom is not None else _name(rule, node, data, family)
        if named is None or not named[0]:
            continue
        name, qualifier = named
        if idiom is not None and idiom.scope:  # named only when a symbol inside needs it (idioms.py)
            stack.append([node.end_byte, None, "impl", f"{qualifier}.{name}" if qualifier else name])
            continue
        holder = _holder(stack, idiom)
        used += _name_scopes(holder)
        qualified = _join(holder, f"{qualifier}.{name}" if qualifier else name)
        used += len(qualified)
        if used > budget:
            notes.append(f"[nesting] The qualified names pass {QUALIFIED_PER_BYTE} characters per byte of the file at "
                         f"line {node.start_point.row + 1}; the symbols from there on are not indexed.")
            break
        kind = _kind(rule, node, stack, idiom.kind if idiom is not None else "")
        first, last = _extent(rule, node, data, lines, family)
        end_row = last.end_point.row + (1 if last.end_point.column > 0 else 0)
        rows.append((qualified, name, kind, first.start_point.row, max(end_row, first.start_point.row + 1),
                     first.start_byte, last.end_byte, len(stack)))
        stack.append([node.end_byte, qualified, kind, name])
    if deep:
        notes.insert(0, f"[nesting] Definitions nested more than {MAX_NESTING} deep are not indexed (the first at "
                        f"line {deep}); their lines are in the symbol that holds them.")
    rows.sort(key=lambda row: (row[5], -row[6]))
    return rows, notes


#: An enclosing definition: [end byte, qualified name (None for a scope not named yet), kind, its own part]
Frame = list[Any]


def _name_scopes(stack: list[Frame]) -> int:
    """Name the scopes at the top of `stack` that are not named yet (a Rust `impl`, `const o = {…}`), each from the
    one below it, and return the characters built: a data object of a thousand nested keys holding no function costs
    nothing, and each scope is named once."""
    start = len(stack)
    while start and stack[start - 1][1] is None:
        start -= 1
    built = 0
    for i in range(start, len(stack)):
        stack[i][1] = _join(stack[i - 1 : i], stack[i][3])
        built += len(stack[i][1])
    return built


def _holder(stack: list[Frame], idiom: Idiom | None) -> list[Frame]:
    """What qualifies an idiom: the enclosing definition, or for `this.x = …` in a method the class holding it."""
    if idiom is not None and idiom.outer and len(stack) > 1 and stack[-1][2] == "method":
        return stack[:-1]
    return stack


def _join(stack: list[Frame], name: str) -> str:
    joined = f"{stack[-1][1]}.{name}" if stack else name
    WORK["qualified"] += len(joined)
    return joined


def _text(node: Node | None, data: bytes) -> str:
    if node is None:
        return ""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _kind(rule: Rule, node: Node, stack: list[Frame], kind: str = "") -> str:
    kind = kind or rule.defs[node.type]
    if rule.name in cnames.C_FAMILY:
        kind = cnames.kind(node, kind)
    if kind == "type" and rule.name == "go":
        shape = node.child_by_field_name("type")
        kind = {"struct_type": "struct", "interface_type": "interface"}.get(shape.type if shape else "", "type")
    if kind == "function" and stack and stack[-1][2] in rule.classes:
        return "method"
    return kind


def _name(rule: Rule, node: Node, data: bytes, family: Family) -> tuple[str, str] | None:
    """(name, qualifier written in the definition: `P` of C++'s `void P::g()`, a Go receiver's type) or None for
    a node that defines nothing nameable (an anonymous struct, `const x = 1`)."""
    if rule.name in cnames.C_FAMILY:
        return cnames.symbol_name(node, data, family)
    kind = node.type
    if kind == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in _FUNCTION_VALUES:
            return None
    target = node.child_by_field_name("name")
    if target is None:
        return None
    name = _text(target, data).replace("::", ".")
    if kind == "method_declaration" and rule.name == "go":
        receiver = node.child_by_field_name("receiver")
        types = [n for n in _descendants(receiver) if n.type == "type_identifier"] if receiver else []
        return name, _text(types[0], data) if types else ""
    qualifier, _, last = name.rpartition(".")
    return (last, qualifier) if last else None


def _descendants(node: Node) -> list[Node]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.named_children))
    return out


def _extent(rule: Rule, node: Node, data: bytes, lines: _Lines, family: Family) -> tuple[Node, Node]:
    """(first, last) nodes of a definition: its wrappers (decorators, `export`, a one-definition `const`, a
    `template<…>`, a `typedef` or declaration of the struct it defines) and the comments and attributes right
    above it; a `;` right after it ends it."""
    outer = node
    above = lines.above(node)
    # A wrapper starts before the definition: on its line (`export `, `const f =`) or above it (decorators,
    # `template<…>`); only a C declaration may start where its struct does. Parents cost more than this test.
    if above or rule.name in ("c", "cpp") or lines.before(node):
        parent = family.parent(node)
        while parent is not None and parent.type in rule.wrappers and _sole_definition(parent, outer, family):
            outer, parent = parent, family.parent(parent)
        if outer is not node:
            above = lines.above(outer)
    first = outer
    sibling = family.prev_sibling(first, named=True) if above else None
    while sibling is not None and sibling.type in rule.leading and _right_above(sibling, first):
        before = family.prev_sibling(sibling)
        if before is not None and before.end_point.row == sibling.start_point.row and before.type not in rule.leading:
            break  # a comment after code on its line belongs to that code
        first, sibling = sibling, family.prev_sibling(sibling, named=True)
    after = family.next_sibling(outer) if data[outer.end_byte : outer.end_byte + 1] == b";" else None
    if after is not None and after.type == ";" and after.start_point.row == outer.end_point.row:
        return first, after  # `struct s { … };`, an interface's `area(): number;`: the `;` ends the definition
    return first, outer


class _Lines:
    """Whether a definition's line has text before it, and whether the line above has text, looking back over
    blanks only (from the tree's byte column: no scan to the line start) and once per line for the line above: a
    minified line of a hundred thousand definitions costs each of them a few bytes."""

    _STEP = 64

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.known: dict[int, bool] = {}  # line start -> whether the line above it has text

    def _text_back(self, end: int, stop: int) -> bool:
        """Whether the last line of data[stop:end] has text, read backwards a step at a time."""
        while end > stop:
            low = max(stop, end - self._STEP)
            chunk = self.data[low:end]
            WORK["scanned"] += end - low
            newline = chunk.rfind(b"\n")
            if chunk[newline + 1 :].strip():
                return True
            if newline >= 0:
                return False
            end = low
        return False

    def before(self, node: Node) -> bool:
        """Whether `node`'s line has text before it."""
        start = node.start_byte
        return self._text_back(start, start - node.start_point.column)

    def above(self, node: Node) -> bool:
        """Whether the line above `node`'s line has text (only then can a comment or attribute lead the
        definition: most definitions follow a blank line, and looking at siblings costs more than this)."""
        line_start = node.start_byte - node.start_point.column
        if line_start == 0:
            return False
        found = self.known.get(line_start)
        if found is None:
            found = self.known[line_start] = self._text_back(line_start - 1, 0)
        return found


def _sole_definition(parent: Node, child: Node, family: Family) -> bool:
    """Whether `parent` wraps only this definition (a `const a = () => 1, b = 2` is not one definition)."""
    if parent.type in ("lexical_declaration", "variable_declaration", "declaration", "type_declaration"):
        return family.declarators(parent) <= 1 and (
            parent.type != "declaration" or child.type in ("struct_specifier", "union_specifier", "enum_specifier")
        )
    return True


def _right_above(sibling: Node, node: Node) -> bool:
    """A leading comment ends on the line above the definition (or at the start of its line: Rust's `///`)."""
    end = sibling.end_point
    start = node.start_point.row
    return end.row == start - 1 or (end.row == start and (end.column == 0 or sibling.type == "attribute_item"))
