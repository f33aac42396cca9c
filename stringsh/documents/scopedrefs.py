"""`/symbols --refs path#Symbol` and `/symbols --def path:LINE:COL`: a definition's references and a use's
definitions, read by scope (references.py, render/code/occurrences.py) from the files `/symbols` would search.

Every file is read through the engine (`Workspace.read_text` for the file named, `/symbols`' confined walk for the
candidates), so the permission, secrets, walk limits and read limit are `/symbols`' own.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stringsh.documents.modules import candidates as module_files
from stringsh.documents.modules import go_names, go_own_path, go_package, submodule
from stringsh.documents.references import Attribution, Source, attribute, go_imports
from stringsh.documents.symbolsearch import sources
from stringsh.errors import StringError
from stringsh.render.code.occurrences import Occurrence, occurrences

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.render.code.index import Symbol
    from stringsh.workspace import Traversal, Workspace

SPOT = re.compile(r"^(?P<path>.+):(?P<line>[0-9]+):(?P<column>[0-9]+)$")


def load(ws: Workspace, path: str, topic: str | None, *, legacy: bool | str = False) -> tuple[Source, str]:
    """A source file as read now (its text, symbol index) and its sha256; BLOCK_NOT_FOUND for a file stringsh does
    not index. `legacy`: as `Workspace.read_text`'s (`"edit"` for a file about to be written)."""
    from stringsh.render.code.cache import symbol_cache
    from stringsh.render.code.suffixes import language_of

    file = ws.read_text(path, topic=topic, legacy=legacy)
    language = language_of(file.rel)
    if language is None:
        raise StringError("BLOCK_NOT_FOUND", f"{file.rel} is not a source file stringsh indexes",
                          "Symbols are found in Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, Ruby and Bash "
                          "files (/help symbols).")
    return Source(file.rel, file.text, symbol_cache(None).symbols(file.text, language, file.sha256)), file.sha256


def split_target(target: str, usage: str) -> tuple[str, str]:
    """`path#Symbol` -> (path, symbol id); INVALID_TARGET otherwise."""
    path, _, block = target.partition("#")
    if not path or not block:
        raise StringError("INVALID_TARGET", f"Not a path#Symbol: {target[:200]}",
                          f"{usage}, e.g. src/app.py#Parser.parse (/symbols * src/app.py lists the ids).")
    return path, block


def attributed(ws: Workspace, target: str, paths: list[str], *, command: str,
               topic: str | None) -> tuple[Attribution, Traversal, dict[str, str]]:
    """The sites attributable to the definition `path#Symbol` under `paths`, the ambiguous ones, the walk's counts
    and the text of each file read."""
    from stringsh.render.code.views import resolve_symbol

    path, block = split_target(target, "Name a definition")
    source, _sha = load(ws, path, topic)
    symbol = resolve_symbol(source.index, source.rel, block)
    found, traversal = sources(ws, symbol.name, paths, command=command, topic=topic)
    candidates = [Source(rel, text, index) for rel, text, index in found]
    texts = {c.rel: c.text for c in candidates} | {source.rel: source.text}
    return attribute(source, symbol, candidates, go_path(ws, source, topic)), traversal, texts


def go_path(ws: Workspace, source: Source, topic: str | None) -> str | None:
    """A Go file's package import path, from the nearest go.mod above it (its `module` line); None elsewhere."""
    if source.index.language != "go":
        return None
    folder = posixpath.dirname(source.rel)
    while True:
        mod = posixpath.join(folder, "go.mod") if folder else "go.mod"
        try:
            text = ws.read_text(mod, topic=topic).text if ws.stat(mod, topic=topic) is not None else None
        except StringError:
            text = None
        module = next((line.split()[1] for line in (text or "").splitlines()
                       if line.startswith("module ") and len(line.split()) > 1), None)
        if module is not None:
            return go_own_path(source.rel, folder, module.strip('"'))
        if not folder:
            return None
        folder = posixpath.dirname(folder)


@dataclass(frozen=True)
class Definition:
    """A definition `--def` found: where, what, and how it was reached."""

    rel: str
    line: int
    column: int
    kind: str
    id: str  # the symbol's id ("" for a local binding or parameter)


@dataclass
class Jump:
    """What `--def` answers: the name at the position, how its definitions were found, and them."""

    name: str
    how: str
    found: list[Definition]


def definitions_at(ws: Workspace, spot: str, *, topic: str | None) -> Jump:
    """The definitions of the identifier at `path:LINE:COL` (1-based): a local binding or parameter of the
    function around it, else the file's own definition, else the import followed to its file, else every
    definition of the name in the workspace."""
    match = SPOT.match(spot)
    if match is None:
        raise StringError("INVALID_TARGET", f"Not a path:LINE:COLUMN: {spot[:200]}",
                          "Name a use's position as /symbols --refs prints it: /symbols --def src/app.py:12:9")
    source, _sha = load(ws, match["path"], topic)
    line, column = int(match["line"]), int(match["column"])
    found = occurrences(source.text, source.index.language, source.index.symbols)
    here = next((o for o in found if o.line == line and o.column <= column < o.column + len(o.name)), None)
    if here is None:
        raise StringError("NOT_FOUND", f"No identifier at {source.rel}:{line}:{column}",
                          f"Give the line and column of a name, as /symbols --refs NAME {source.rel} lists them.")
    return _resolve(ws, source, found, here, topic)


def _resolve(ws: Workspace, source: Source, found: list[Occurrence], here: Occurrence, topic: str | None) -> Jump:
    name = here.name
    if here.role in ("local", "parameter"):
        binding = next(o for o in found if o.name == name and o.scope == here.scope and o.binds)
        what = "parameter" if here.role == "parameter" else "local binding"
        return Jump(name, f"a {what} of #{binding.container}" if binding.container else f"a {what}",
                    [Definition(source.rel, binding.line, binding.column, what, "")])
    if here.role == "definition":
        return Jump(name, "a definition", _defined(source, lambda s: s.name == name, here))
    if here.role == "member" and here.own:
        owner = here.container.rsplit(".", 1)[0]
        own = _defined(source, lambda s: s.qualified == f"{owner}.{name}")
        if own:
            return Jump(name, f"a member of {owner} in this file", own)
    if here.role == "qualified":
        root = here.via.replace("::", ".").split(".")[0]
        imports = [o for o in occurrences(source.text, source.index.language, source.index.symbols, (root,))
                   if o.role == "import" and o.binds]
        modules = [submodule(o.via, o.imported) if o.imported else o.via for o in imports]
        if source.index.language == "go" and not imports:  # `money.Format`: an import without an alias
            modules = [path for path in go_imports(source) if go_package(path) == root]
        for module in modules:
            followed = _follow(ws, source, module, name, topic)
            if followed:
                return Jump(name, f"through the import of {module}", followed)
        classes = _defined(source, lambda s: s.qualified == f"{here.via}.{name}")
        if classes:
            return Jump(name, f"a member of {here.via} in this file", classes)
    if here.role in ("use", "import"):
        own = _defined(source, lambda s: s.name == name and s.depth == 0)
        if own and here.role == "use":
            return Jump(name, "defined in this file", own)
        binding = next((o for o in found if o.name == name and o.role == "import" and o.binds), None)
        if binding is not None:
            followed = _follow(ws, source, binding.via, binding.imported or name, topic)
            if followed:
                return Jump(name, f"imported from {binding.via}", followed)
    if here.role == "member":
        return Jump(name, "every method or member of that name in the workspace (the value's type is not known)",
                    [d for d in _everywhere(ws, name, topic) if "." in d.id])
    return Jump(name, "every definition of the name in the workspace (the syntax names no single one)",
                _everywhere(ws, name, topic))


def _defined(source: Source, wanted: Callable[[Symbol], bool], occurrence: Occurrence | None = None,
             ) -> list[Definition]:
    """The file's symbols `wanted` accepts (only the one holding `occurrence`'s byte when given and found)."""
    chosen = [s for s in source.index.symbols if wanted(s)]
    if occurrence is not None:
        chosen = [s for s in chosen if s.start_byte <= occurrence.start_byte < s.end_byte][-1:] or chosen
    return [_at(source, s) for s in chosen]


def _at(source: Source, symbol: Symbol) -> Definition:
    """Where a symbol's name is (its definition occurrence), else its first line."""
    names = occurrences(source.text, source.index.language, source.index.symbols, (symbol.name,))
    site = next((o for o in names if o.role == "definition" and symbol.start_byte <= o.start_byte < symbol.end_byte),
                None)
    line, column = (site.line, site.column) if site is not None else (symbol.start + 1, 1)
    return Definition(source.rel, line, column, symbol.kind, symbol.id)


def _follow(ws: Workspace, source: Source, module: str, name: str, topic: str | None) -> list[Definition]:
    """The top-level definitions of `name` in the file an import of `module` names (Python, JavaScript), or in
    the Go package (folder) it names; [] when the syntax ties it to no file here."""
    language = source.index.language
    if language == "go":
        found = [d for d in _everywhere(ws, name, topic) if d.rel.endswith(".go") and d.id == name]
        return [d for d in found if go_names(module, d.rel, go_path(ws, load(ws, d.rel, topic)[0], topic))]
    for rel in module_files(language, source.rel, module):
        try:
            if ws.stat(rel, topic=topic) is None:
                continue
            other, _sha = load(ws, rel, topic)
        except StringError:
            continue
        return [_at(other, s) for s in other.index.symbols if s.name == name and s.depth == 0]
    return []


def _everywhere(ws: Workspace, name: str, topic: str | None) -> list[Definition]:
    """Every definition named exactly `name` under the workspace (`/symbols`' walk)."""
    found, _traversal = sources(ws, name, ["."], command=f"symbols --def {name}", topic=topic)
    out = []
    for rel, text, index in found:
        source = Source(rel, text, index)
        out += [_at(source, s) for s in index.symbols if s.name == name]
    return out
