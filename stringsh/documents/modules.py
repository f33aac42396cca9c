"""Which file an import names, as each language's syntax says: Python's dotted and relative modules, JavaScript's
relative specifiers, Go's import paths (a package is its folder). Pure path arithmetic on root-relative paths; a
module the syntax cannot tie to a file (a package from outside the workspace, Rust's or Java's paths) is None.
"""

from __future__ import annotations

import posixpath

#: Suffixes a JavaScript or TypeScript specifier may leave out.
JS_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
PY_SUFFIXES = (".py", ".pyi")


def stem(rel: str) -> str:
    """`pkg/util.py` -> `util`."""
    return posixpath.splitext(posixpath.basename(rel))[0]


def python_module(rel: str) -> str:
    """`pkg/util.py` -> `pkg.util`, `pkg/__init__.py` -> `pkg`."""
    base = posixpath.splitext(rel)[0]
    if base.endswith("/__init__") or base == "__init__":
        base = base[: -len("__init__")].rstrip("/")
    return base.replace("/", ".")


def python_target(importer: str, module: str) -> tuple[str, bool]:
    """(the dotted module an import in `importer` names, whether it is relative: exact, not a suffix)."""
    if not module.startswith("."):
        return module, False
    dots = len(module) - len(module.lstrip("."))
    package = posixpath.dirname(importer).split("/") if posixpath.dirname(importer) else []
    if dots - 1 > len(package):
        return "", True
    base = package[: len(package) - (dots - 1)]
    rest = module[dots:]
    return ".".join([*base, *([rest] if rest else [])]), True


def python_names(importer: str, module: str, rel: str) -> bool:
    """Whether `module`, imported in `importer`, is the file `rel` (an absolute module may sit under a source folder:
    `pkg.util` is `src/pkg/util.py`)."""
    target, relative = python_target(importer, module)
    own = python_module(rel)
    if not target:
        return False
    return own == target or (not relative and own.endswith("." + target))


def js_names(importer: str, specifier: str, rel: str) -> bool:
    """Whether a relative specifier (`./util`, `../lib/util.js`) in `importer` is the file `rel`."""
    if not specifier.startswith(("./", "../")):
        return False
    path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    base, suffix = posixpath.splitext(rel)
    return rel == path or (suffix in JS_SUFFIXES and (base == path or base == path + "/index"))


def go_names(import_path: str, rel: str, own: str | None = None) -> bool:
    """Whether a Go import path is the package (folder) holding `rel`: `own`, its import path as its go.mod says
    (`go_own_path`), else by the folder's path ending the import path."""
    if own is not None:
        return import_path == own
    folder = posixpath.dirname(rel)
    return bool(folder) and (import_path == folder or import_path.endswith("/" + folder))


def go_own_path(rel: str, module_folder: str, module: str) -> str:
    """The import path of the package holding `rel`, in the module `module` whose go.mod is in `module_folder`."""
    folder = posixpath.dirname(rel)
    inside = folder[len(module_folder) :].strip("/") if module_folder else folder
    return f"{module}/{inside}" if inside else module


def go_package(import_path: str) -> str:
    """The name a Go import is used by when it has no alias: its path's last part."""
    return import_path.rstrip("/").rsplit("/", 1)[-1]


def names(language: str, importer: str, module: str, rel: str, go_path: str | None = None) -> bool:
    """Whether an import of `module` in `importer` names the file `rel`, by the language's syntax (Rust, Java, C and
    the rest: by the module's last name being the file's, `util::parse` for `util.rs`); `go_path`: the Go package's
    import path, when its go.mod is known."""
    if language == "python":
        return python_names(importer, module, rel)
    if language in ("javascript", "typescript", "tsx"):
        return js_names(importer, module, rel)
    if language == "go":
        return go_names(module, rel, go_path)
    parts = [part for part in module.replace("::", ".").replace(";", "").split(".") if part]
    return stem(rel) in parts


def candidates(language: str, importer: str, module: str) -> list[str]:
    """The root-relative paths a module of an import in `importer` may be, in the order they are tried (for
    `/symbols --def`, which follows an import to its file)."""
    if language == "python":
        target, _relative = python_target(importer, module)
        base = target.replace(".", "/")
        return [f"{base}{suffix}" for suffix in PY_SUFFIXES] + [f"{base}/__init__.py"] if target else []
    if language in ("javascript", "typescript", "tsx") and module.startswith(("./", "../")):
        path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), module))
        return [path, *(path + s for s in JS_SUFFIXES), *(f"{path}/index{s}" for s in JS_SUFFIXES)]
    return []


def submodule(module: str, taken: str) -> str:
    """The module `from M import X` names when X is a module of the package M (`from . import util`)."""
    return module + taken if module.endswith(".") else f"{module}.{taken}"
