"""The references attributable to one definition (`/symbols --refs path#Symbol`, `/rename`), by scope and imports.

The candidate files are `/symbols`' (documents/symbolsearch.py: its walk, prefilter and memory); each is read by
scope (render/code/occurrences.py) and every identifier spelled as the definition's name is judged:

- the definition itself, and in its own file (a Go package: its folder) the uses no function rebinds;
- in another file, an import that names the definition's file (modules.py) and, when it binds the name, the uses
  there; `alias.name` / `module.name` through an import of the file (`util.parse`, `u.Parse`);
- for a method, `self.name` / `this.name` / a Go receiver's inside its own class, and `Class.name`;
- in languages whose syntax ties no use to a file (C, C++, Ruby, Bash, Rust, Java), a use of a name only one
  file defines.

A site that may or may not be the definition's (`obj.parse` on a value of unknown type, `self.parse` in a class that
may inherit it, a name several files define, a star import) is *ambiguous*, with the reason; every other site is
someone else's and left out. Types are never known.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.documents.modules import go_package, names, submodule
from stringsh.render.code.occurrences import Occurrence, occurrences

if TYPE_CHECKING:
    from stringsh.render.code.index import Symbol, SymbolIndex

#: Kinds whose functions are methods, across the languages (render/code/languages.py's `classes` and Go's types).
CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "impl", "module", "enum", "record", "type"})
#: Languages whose methods call each other by bare name (an implicit `this`/`self`).
IMPLICIT_SELF = frozenset({"java", "cpp", "ruby"})
#: Languages whose syntax ties a use to the file it comes from (imports, packages).
MODULAR = frozenset({"python", "javascript", "typescript", "tsx", "go"})


@dataclass(frozen=True)
class Source:
    """A candidate file: its root-relative path, text and symbol index."""

    rel: str
    text: str
    index: SymbolIndex


@dataclass(frozen=True)
class Site:
    """An occurrence in a file; `why` says why an ambiguous site cannot be told apart."""

    rel: str
    occurrence: Occurrence
    why: str = ""


@dataclass
class Attribution:
    """The definition's own site and its references (`sites`, the definition first), and the ambiguous ones."""

    rel: str
    symbol: Symbol
    sites: list[Site] = field(default_factory=list)
    ambiguous: list[Site] = field(default_factory=list)
    files: int = 0  # candidate files read


@dataclass
class _Target:
    rel: str
    symbol: Symbol
    language: str
    owner: str  # the qualified id of what holds it ("" at top level)
    mode: str  # "top", "member" or "nested"
    defined_in: dict[str, int] = field(default_factory=dict)  # path -> top-level definitions of the name there
    go_path: str | None = None  # a Go package's import path, as its go.mod says
    site: Occurrence | None = None  # the definition's own name


def attribute(target: Source, symbol: Symbol, candidates: list[Source], go_path: str | None = None) -> Attribution:
    """The sites of `symbol` (defined in `target`) among `candidates` (target itself included or not); `go_path`:
    the import path of a Go target's package (modules.go_own_path), when its go.mod is known."""
    owner = symbol.qualified.rpartition(".")[0]
    holder = next((s for s in target.index.symbols if s.qualified == owner), None)
    if not owner:
        mode = "top"
    elif symbol.kind in ("method", "constructor") or (holder is not None and holder.kind in CLASS_KINDS):
        mode = "member"
    else:
        mode = "nested"
    goal = _Target(target.rel, symbol, target.index.language, owner, mode, go_path=go_path)
    files = [target, *(c for c in candidates if c.rel != target.rel)]
    read = {source.rel: (source, occurrences(source.text, source.index.language, source.index.symbols,
                                             (symbol.name,))) for source in files}
    goal.site = _definition_site(goal, read[target.rel][1])
    for rel, (_source, found) in read.items():
        count = sum(1 for o in found if o.role == "definition" and o.container == "")
        if count:
            goal.defined_in[rel] = count
    result = Attribution(target.rel, symbol, files=len(files))
    for rel, (source, found) in read.items():
        imports = _imports(source, found)
        for occurrence in found:
            verdict = _judge(goal, source, occurrence, imports)
            if verdict == "yes":
                result.sites.append(Site(rel, occurrence))
            elif verdict != "no":
                result.ambiguous.append(Site(rel, occurrence, verdict))
    result.sites.sort(key=lambda site: (site.rel != target.rel, site.rel, site.occurrence.start_byte))
    if goal.site is not None:  # the definition first
        result.sites.remove(Site(target.rel, goal.site))
        result.sites.insert(0, Site(target.rel, goal.site))
    return result


def _definition_site(goal: _Target, found: list[Occurrence]) -> Occurrence | None:
    symbol = goal.symbol
    inside = [o for o in found if o.role == "definition" and symbol.start_byte <= o.start_byte < symbol.end_byte]
    return inside[0] if inside else None


def _imports(source: Source, found: list[Occurrence]) -> dict[str, list[tuple[str, str]]]:
    """Bound name -> [(module, name taken)] of the file's imports: of the definition's name (in `found`) and of the
    names before a `.` in its qualified uses (read again for those names only)."""
    roots = {o.via.replace("::", ".").split(".")[0] for o in found if o.role == "qualified" and o.via}
    more = occurrences(source.text, source.index.language, source.index.symbols, roots) if roots else []
    bound: dict[str, list[tuple[str, str]]] = {}
    for o in [*found, *more]:
        if o.role == "import" and o.binds:
            bound.setdefault(o.name, []).append((o.via, o.imported))
    return bound


def _same_unit(goal: _Target, rel: str) -> bool:
    """Whether a file shares the definition's top-level names: the file itself, or a Go file of its package."""
    if rel == goal.rel:
        return True
    return goal.language == "go" and rel.endswith(".go") and posixpath.dirname(rel) == posixpath.dirname(goal.rel)


def _judge(goal: _Target, source: Source, o: Occurrence, imports: dict[str, list[tuple[str, str]]]) -> str:
    """"yes" (the definition's), "no" (someone else's) or the reason it cannot be told."""
    symbol, rel, language = goal.symbol, source.rel, source.index.language
    if o.role == "definition":
        if rel == goal.rel and o == goal.site:
            return "yes"
        holder = goal.owner.rsplit(".", 1)[-1]
        if goal.mode == "member" and o.container and o.container != goal.owner and _extends(source, o.container,
                                                                                            holder):
            return f"{o.container}.{symbol.name} overrides it ({o.container} names {holder} among its bases)"
        return "no"
    if o.role in ("local", "parameter"):
        if goal.mode != "nested" or rel != goal.rel:
            return "no"
        holder = next((s for s in source.index.symbols if s.qualified == goal.owner), None)
        inside = holder is not None and holder.start_byte <= o.scope < holder.end_byte
        return "yes" if inside and (o.container == goal.owner or o.container.startswith(goal.owner + ".")) else "no"
    if goal.mode == "nested":
        return "no"
    if o.role == "import":
        if goal.mode == "top" and o.imported == symbol.name and names(language, rel, o.via, goal.rel, goal.go_path):
            return "yes"
        return "no"
    if o.role == "qualified":
        return _qualified(goal, source, o, imports)
    if o.role == "member":
        if goal.mode != "member":
            return "no"
        if not o.own:
            return f"a member of {o.via[:60]}, whose type syntax does not tell"
        return _own_member(goal, source, o)
    return _use(goal, source, o, imports)


def _qualified(goal: _Target, source: Source, o: Occurrence, imports: dict[str, list[tuple[str, str]]]) -> str:
    parts = o.via.replace("::", ".").split(".")
    if goal.mode == "member":
        holder = goal.owner.rsplit(".", 1)[-1]
        inside = o.container == goal.owner or o.container.startswith(goal.owner + ".")
        same = parts[-1] == holder or (parts[-1] in ("Self", "self") and inside)
        imported = any(names(source.index.language, source.rel, module, goal.rel, goal.go_path)
                       for module, _taken in imports.get(parts[0], []))
        return "yes" if same and (_same_unit(goal, source.rel) or source.index.language not in MODULAR
                                  or imported) else "no"
    language, rel = source.index.language, source.rel
    if language not in MODULAR:
        return "yes" if parts[-1] == posixpath.splitext(posixpath.basename(goal.rel))[0] else "no"
    for module, taken in imports.get(parts[0], []):
        if taken in ("", "default") and len(parts) == 1 and names(language, rel, module, goal.rel, goal.go_path):
            return "yes"  # `u.parse` after `import pkg.util as u` / `const u = require("./util")`
        if language == "python" and not taken and names(language, rel, o.via, goal.rel, goal.go_path):
            return "yes"  # `pkg.util.parse` after `import pkg.util`
        if language == "python" and taken and len(parts) == 1 and names(language, rel, submodule(module, taken),
                                                                        goal.rel, goal.go_path):
            return "yes"  # `util.parse` after `from . import util` / `from pkg import util as u`
    if language == "go" and parts[0] not in imports and len(parts) == 1:
        return "yes" if any(names(language, rel, m, goal.rel, goal.go_path) and go_package(m) == parts[0]
                            for m in go_imports(source)) else "no"
    return "no"


def go_imports(source: Source) -> list[str]:
    """The import paths of a Go file (those without an alias have no identifier to find them by)."""
    from stringsh.render.code.languages import grammar

    loaded = grammar("go")
    data = source.text.encode("utf-8", "surrogatepass")
    tree = loaded.parser().parse(data)
    paths = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "import_spec":
            path = node.child_by_field_name("path")
            if path is not None:
                paths.append(data[path.start_byte + 1 : path.end_byte - 1].decode("utf-8", "replace"))
        elif node.type in ("source_file", "import_declaration", "import_spec_list"):
            stack.extend(node.named_children)
    return paths


def _own_member(goal: _Target, source: Source, o: Occurrence) -> str:
    """`self.name` / `this.name` / a receiver's: the definition's inside its class; in another class, its own
    member when that class defines one, else perhaps inherited."""
    inside = o.container == goal.owner or o.container.startswith(goal.owner + ".")
    if inside and _same_unit(goal, source.rel):
        return "yes"
    holder = o.container.rsplit(".", 1)[0] if "." in o.container else o.container
    defines = any(s.qualified == f"{holder}.{goal.symbol.name}" for s in source.index.symbols)
    return "no" if defines or not holder else f"through the object of {holder}, which may inherit it"


def _use(goal: _Target, source: Source, o: Occurrence, imports: dict[str, list[tuple[str, str]]]) -> str:
    symbol, rel, language = goal.symbol, source.rel, source.index.language
    if goal.mode == "member":
        inside = o.container.startswith(goal.owner + ".")
        return "yes" if language in IMPLICIT_SELF and inside and rel == goal.rel else "no"
    if _same_unit(goal, rel):
        count = sum(goal.defined_in.get(r, 0) for r in goal.defined_in if _same_unit(goal, r))
        return "yes" if count <= 1 else f"{symbol.name} is defined {count} times where this use can see it"
    bound = imports.get(symbol.name)
    if bound:
        return "yes" if any(taken == symbol.name and names(language, rel, module, goal.rel, goal.go_path)
                            for module, taken in bound) else "no"
    if goal.defined_in.get(rel):
        return "no"  # the file defines its own
    if language == "python":
        return "a star import may bring it in" if "import *" in source.text else "no"
    if language in MODULAR:
        return "no"
    elsewhere = [r for r in goal.defined_in if r != goal.rel]
    if not elsewhere:
        return "yes"
    return f"{symbol.name} is also defined in {', '.join(elsewhere[:3])}"


def _extends(source: Source, class_id: str, base: str) -> bool:
    """Whether the class `class_id` of the file names `base` on its header line (`class B(A):`, `class B extends A`,
    `class B : public A`, `class B < A`): syntax's only word on inheritance."""
    found = next((s for s in source.index.symbols if s.id == class_id and s.kind in CLASS_KINDS), None)
    if found is None:
        return False
    head = source.text.encode("utf-8", "surrogatepass")[found.start_byte : min(found.end_byte, found.start_byte + 4096)]
    name = re.escape(class_id.rsplit(".", 1)[-1])
    pattern = rf"\b(?:class|struct|interface|trait|module)\s+{name}\b[^\n{{]*\b{re.escape(base)}\b"
    return re.search(pattern, head.decode("utf-8", "replace")) is not None
