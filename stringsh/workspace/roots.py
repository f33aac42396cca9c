"""The policy's roots beyond the workspace: how a path names one, and which root a location belongs to.

A path names a root by its id and a colon: `docs:guide.md`, `docs:` (the folder itself); what follows the colon
is always inside that root (`docs:/x` is `docs:x`, so a folder `docs:` joins like any other). An absolute path
inside another root's folder is that root's too. Without a known id the path
is the workspace root's, as before (a file named `a:b` stays reachable; one whose name starts with a root id and
a colon is written `./docs:x`). The workspace root may be named by its own id as well. With a single root no
path is read as naming one.

Each root is walked by its own `Confiner` (paths.py): `..`, absolute paths and symlinks never cross from one
root to another (a symlink in `main` into `docs` is refused as any escaping link; name `docs:` instead). When
roots nest, a location is named by the innermost root holding it (`docs/x` in `main` is `docs:x` when `docs` is
`./docs`), that root's rules (secrets, `.stringsh/`, protected paths) apply to it, and its mode decides whether
it may be changed: a `read_only` root refuses every change with `NOT_PERMITTED`, whichever root the path named.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.paths import Confiner

if TYPE_CHECKING:
    from stringsh.workspace.paths import Resolved

READ_ONLY_HINT = "A read_only root is never changed; /info lists the roots and their modes."


class Roots:
    """The workspace root (unnamed, `main`) and the policy's other roots, each with its own `Confiner`."""

    def __init__(self, main: Confiner, main_id: str, main_mode: str, specs: tuple[tuple[str, Path, str], ...]
                 ) -> None:
        """`specs`: (id, folder, mode) of the other roots (policy.Root)."""
        self.main = main
        self.main_id = main_id
        self.modes: dict[str, str] = {main_id: main_mode}
        self.others: dict[str, Confiner] = {}
        try:
            for ident, folder, mode in specs:
                if ident == main_id or ident in self.others:
                    continue
                self.others[ident] = Confiner(folder, main.matcher, root_id=ident, mode=mode)
                self.modes[ident] = mode
        except BaseException:
            self.close()
            raise
        #: (real folder parts, id, confiner), deepest folders first: the innermost root holding a path wins, and
        #: of two roots on one folder the read_only one (the stricter reading of a policy that names both).
        everyone = [(main.real.parts, main_id, main), *((c.real.parts, i, c) for i, c in self.others.items())]
        self.by_depth = sorted(everyone, key=lambda item: (len(item[0]), self.modes[item[1]] != "read_write"),
                               reverse=True)

    @classmethod
    def attach(cls, main: Confiner, specs: tuple[tuple[str, Path, str], ...]) -> Confiner:
        """The factory: `main` (the workspace root's confiner) routing to the roots in `specs` as well; `main` is
        closed when one of them cannot be opened."""
        try:
            main.roots = cls(main, main.root_id, main.mode, specs)
        except BaseException:
            main.close()
            raise
        return main

    def close(self) -> None:
        for confiner in self.others.values():
            confiner.close()

    def confiners(self) -> list[Confiner]:
        """The other roots' confiners."""
        return list(self.others.values())

    def listing(self) -> list[tuple[str, Path, str]]:
        """(id, folder, mode) of every root, the workspace first."""
        return [(self.main_id, self.main.real, self.modes[self.main_id]),
                *((i, c.real, self.modes[i]) for i, c in self.others.items())]

    def route(self, path: str) -> tuple[Confiner, str, str]:
        """(the root's confiner, its `id:` prefix, "" for the workspace, the path inside it)."""
        if not isinstance(path, str):
            return self.main, "", path
        head, colon, rest = path.partition(":")
        if colon and "/" not in head:
            # After `id:` the path is the root's own: `docs:/x` is `docs:x` (a folder `docs:` joined with `x`).
            if head == self.main_id:
                return self.main, "", rest.lstrip("/") or "."
            other = self.others.get(head)
            if other is not None:
                return other, head + ":", rest.lstrip("/") or "."
        if path.startswith("/") and self.main._strip_root(Path(path).parts) is None:
            for ident, other in self.others.items():
                if other._strip_root(Path(path).parts) is not None:
                    return other, ident + ":", path
        return self.main, "", path

    def shown(self, target: Confiner, prefix: str, rel: str) -> str:
        """A root-relative path as replies and the journal name it: `docs:rel`, `docs:` for a root itself."""
        if prefix:
            return prefix if rel == "." else prefix + rel
        head, colon, _ = rel.partition(":")
        if colon and "/" not in head and (head in self.others or head == self.main_id):
            return "./" + rel  # a workspace file named like a root: read back as the file, not the root
        return rel

    def owner(self, target: Confiner, inner: list[str]) -> tuple[Confiner, str, list[str]]:
        """The innermost root holding `inner` (components below `target`'s folder), its id, and the components
        below it."""
        where = Path(target.real, *inner).parts
        for parts, root_id, confiner in self.by_depth:
            if where[: len(parts)] == parts:
                return confiner, root_id, list(where[len(parts):])
        return target, target.root_id, inner  # not reached: `target` holds `where`

    def relative(self, target: Confiner, inner: list[str], path: str, *, reading: bool) -> str:
        """`Confiner.relative` for a path in `target`: named by the innermost root holding it, checked there."""
        owner, ident, inner = self.owner(target, inner)
        owner.check_allowed(inner, path, reading=reading)
        return self.shown(owner, "" if owner is self.main else ident + ":", "/".join(inner) or ".")

    def settle(self, target: Confiner, prefix: str, res: Resolved, path: str, *, create: bool,
               reading: bool) -> Resolved:
        """Name `res` by the innermost root holding it; refuse a change there when that root is read_only."""
        inner = [] if res.rel == "." else res.rel.split("/")
        owner, ident, inner = self.owner(target, inner)
        if owner is not target:
            owner.check_allowed(inner, path, reading=reading and not create)
            if create:
                owner.check_change(inner, path)
        if create and self.modes[ident] != "read_write":
            raise StringError("NOT_PERMITTED", f"Root {ident} is read_only: {path} cannot be changed.", READ_ONLY_HINT)
        rel = "/".join(inner) or "."
        res.rel = self.shown(owner, "" if owner is self.main else ident + ":", rel)
        res.requested = self.shown(target, prefix, res.requested)
        return res

