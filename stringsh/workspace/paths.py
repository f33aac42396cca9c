"""Confinement: every path is walked one component at a time from a root directory descriptor.

Each directory is opened with `O_NOFOLLOW` relative to its parent's descriptor, so a component swapped for a
symlink between check and use fails instead of being followed. Symlinks are followed by hand, only while their
target stays inside the root, with a hop limit. User `..` is resolved lexically (what the user sees); `..` in a
symlink target is resolved physically against the directories actually walked.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Protocol

from stringsh.errors import NOT_FOUND_HINT, Hint, Step, StringError, hint, not_utf8
from stringsh.escapes import SURROGATE, shown_name
from stringsh.workspace.context import refused_path
from stringsh.workspace.oserrors import coded
from stringsh.workspace.secrets import SecretMatcher

STATE_DIR = ".stringsh"
#: The one part of the engine's state a user may read (never list or write): shell output spool files.
SPOOL_DIR = "spool"
SPOOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")
TEMP_PREFIX = ".~stringsh-"  # atomic.py's temp files; never a user path, so recovery may delete them
MAX_HOPS = 40
MAX_SUGGEST_ENTRIES = 5000  # a folder's first names a "did you mean" compares; a huge folder is not read whole
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: A byte that was not UTF-8, as `os` gives a name holding one (surrogateescape): the only surrogates a name has.
NAME_BYTE = re.compile(r"[\udc80-\udcff]")
#: Set while the engine acts on names it found itself (`found_names`).
_FOUND: ContextVar[bool] = ContextVar("found_names", default=False)


@contextmanager
def found_names(*typed: str) -> Iterator[None]:
    """While the engine acts on names it found itself, a folder's walk or its journal's rows (a /rm -r, /mv or /cp
    of a folder and its undo), a name that is not UTF-8 is reached as the bytes it is. The paths the request named
    (`typed`) are still refused when they are not UTF-8, as `own_parts` refuses them: no reply shows such a name in
    a form that can be typed back, so one sent raw (a JSON `\\udce9`) is a client's mistake, not a name."""
    for path in typed:
        if isinstance(path, str) and SURROGATE.search(path):
            raise not_utf8_path(path)
    token = _FOUND.set(True)
    try:
        yield
    finally:
        _FOUND.reset(token)


def not_utf8_path(path: str) -> StringError:
    """The refusal of a path a request names that is not UTF-8 (its hint: rename it in the shell)."""
    return StringError("INVALID_PATH", f"Path is not valid UTF-8: {shown_name(path)}", not_utf8(path))


def is_found_name(path: str) -> bool:
    """Whether `path` holds only surrogates a name's bytes give, and is being reached as a found name."""
    return _FOUND.get() and SURROGATE.search(NAME_BYTE.sub("", path)) is None


class Resolved:
    """A confined location: `name` inside the open directory `parent_fd` (owned; call `close`).

    `missing` lists parent folders (below `parent_fd`) that do not exist yet; `rel` is the resolved
    root-relative path ("." for the root), `st` the leaf's lstat or None when it does not exist.
    A plain slotted class, not a dataclass: every command resolves paths, and the read path then needs no
    dataclass machinery."""

    __slots__ = ("missing", "name", "parent_fd", "rel", "requested", "st")

    def __init__(self, parent_fd: int, name: str, rel: str, requested: str, st: os.stat_result | None,
                 missing: list[str] | None = None) -> None:
        self.parent_fd = parent_fd
        self.name = name
        self.rel = rel
        self.requested = requested
        self.st = st
        self.missing: list[str] = [] if missing is None else missing

    def __repr__(self) -> str:
        return f"Resolved(parent_fd={self.parent_fd}, name={self.name!r}, rel={self.rel!r})"

    def close(self) -> None:
        if self.parent_fd >= 0:
            os.close(self.parent_fd)
            self.parent_fd = -1

    def __enter__(self) -> Resolved:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def spool_folder(root: Path) -> Path:
    """Where shells spool long output: inside the root, the one state path confinement lets a user read."""
    return root / STATE_DIR / SPOOL_DIR


def is_spool_file(parts: list[str]) -> bool:
    return len(parts) == 3 and parts[0] == STATE_DIR and parts[1] == SPOOL_DIR and bool(SPOOL_NAME.match(parts[2]))


def _escape(path: str) -> StringError:
    return StringError("INVALID_PATH", f"Path escapes the workspace root: {shown_name(path)}",
                       "Use a path inside the workspace.")


def _via_symlink(path: str) -> StringError:
    return StringError(
        "INVALID_PATH",
        f"Path leaves the workspace through a symlink: {shown_name(path)}",
        "Symlinks are followed only while they point inside the workspace.",
    )


def _refuse_folder_syntax(path: str) -> None:
    """A file to create or change is not named like a folder (`notes/`): that would make a file `notes`."""
    if path.endswith(("/", "/.")):
        raise StringError(
            "INVALID_PATH", f"Not a file name (it ends with /): {shown_name(path)}",
            "Give the file's name after the folder."
        )


class RootRouter(Protocol):
    """The policy's other roots as a Confiner uses them (`roots.Roots`, which builds on this module)."""

    def route(self, path: str) -> tuple[Confiner, str, str]: ...

    def listing(self) -> list[tuple[str, Path, str]]: ...

    def relative(self, target: Confiner, inner: list[str], path: str, *, reading: bool) -> str: ...

    def settle(self, target: Confiner, prefix: str, res: Resolved, path: str, *, create: bool,
               reading: bool) -> Resolved: ...

    def close(self) -> None: ...

    def confiners(self) -> list[Confiner]: ...


def reworded(exc: StringError, prefix: str, rest: str, path: str) -> StringError:
    """A refusal from another root's walk, naming the path as typed and that root, not "the workspace"."""
    if not prefix:
        return exc
    message = exc.message
    if message.endswith(rest):
        message = message[: len(message) - len(rest)] + path
    root = f"root {prefix[:-1]}"
    message = message.replace("the workspace root", root).replace("the workspace", root)
    advice = exc.advice
    return StringError(exc.code, message, None if advice is None else advice.replace("the workspace", root))


class Confiner:
    """Turns user paths into confined `Resolved` locations under the workspace root and the policy's other roots.

    The workspace root is unnamed (`notes.md`); another root is named `id:path` (`docs:guide.md`, `docs:` for the
    folder itself), and so is the workspace root by its own id when the policy names more than one (roots.py).
    """

    def __init__(self, root: Path, matcher: SecretMatcher, aliases: tuple[Path, ...] = (), root_id: str = "main",
                 mode: str = "read_write") -> None:
        self.given = Path(os.path.abspath(root))
        self.real = self.given.resolve()
        self.matcher = matcher
        # Every spelling of the root that leads to the same folder (a symlinked /tmp, the shell's $PWD).
        spellings = {self.given, self.real}
        spellings.update(Path(os.path.abspath(a)) for a in aliases if Path(a).resolve() == self.real)
        self.spellings = sorted((p.parts for p in spellings), key=len, reverse=True)
        self.root_fd = os.open(self.real, DIR_FLAGS & ~os.O_NOFOLLOW)
        self.root_id, self.mode = root_id, mode
        #: The policy's other roots, set by `Roots.attach` (roots.py) only when it names some: `-c /ls` stays light.
        self.roots: RootRouter | None = None
        #: stringsh's own folders outside `.stringsh/` (its state folders: `keep_out`), and their
        #: components below this root once a change first asks (None: not worked out yet).
        self._kept: tuple[tuple[Path, str], ...] = ()
        self._kept_parts: list[tuple[list[str], str]] | None = []

    def route(self, path: str) -> tuple[Confiner, str, str]:
        """(the confiner of the root `path` names, its `id:` prefix, "" for this one, the path inside it)."""
        return (self, "", path) if self.roots is None else self.roots.route(path)

    def root_list(self) -> list[tuple[str, Path, str]]:
        """(id, folder, mode) of every root, this one first."""
        return [(self.root_id, self.real, self.mode)] if self.roots is None else self.roots.listing()

    def _reworded(self, exc: StringError, prefix: str, rest: str, path: str) -> StringError:
        return reworded(exc, prefix, rest, path)

    def each_root(self) -> list[Confiner]:
        """This root's confiner and every other root's."""
        return [self] if self.roots is None else [self, *self.roots.confiners()]

    def keep_out(self, folders: tuple[tuple[Path, str], ...]) -> None:
        """Refuse every change inside these folders (a folder and what it is: "state folder"), wherever they
        are: stringsh's state folder may be set (STRINGSH_STATE_DIR, `[journal] state_dir`) inside a workspace,
        where the engine would otherwise write its journal and audit log as any file. Worked out on the first
        change, so a read-only start stats nothing."""
        for confiner in self.each_root():
            confiner._kept, confiner._kept_parts = folders, None

    def check_change(self, parts: list[str], shown: str) -> None:
        """The checks of a path a change creates, writes, moves or deletes, beyond `check_allowed`'s: paths that
        run code later (protected.py) and stringsh's own folders (`keep_out`). Run on the requested and on the
        resolved path."""
        from stringsh.workspace.protected import check_protected  # writes only: `-c /ls` stays light

        check_protected(parts, shown, self.root_fd)
        if self._kept_parts is None:
            self._kept_parts = []
            for folder, what in self._kept:
                inside = self._strip_root(Path(os.path.realpath(folder)).parts)
                if inside:  # strictly below the root: a root inside the state folder is refused elsewhere
                    self._kept_parts.append((inside, what))
        for inside, what in self._kept_parts:
            if parts[: len(inside)] == inside:
                raise StringError("NOT_PERMITTED", f"{shown_name(shown)} is in stringsh's {what} and cannot be "
                                  "changed through stringsh", "stringsh keeps its journal and audit log there; "
                                  "/changes, /undo and `stringsh audit` reach them. Use a path outside it.")

    def close(self) -> None:
        if self.roots is not None:
            self.roots.close()
        if self.root_fd >= 0:
            os.close(self.root_fd)
            self.root_fd = -1

    # -- lexical checks ---------------------------------------------------------------------------------------

    def _strip_root(self, parts: tuple[str, ...]) -> list[str] | None:
        """The parts below a root spelling, compared component-wise so `/ws/proj2` never matches `/ws/proj`."""
        for spelling in self.spellings:
            if parts[: len(spelling)] == spelling:
                return list(parts[len(spelling) :])
        return None

    def requested_parts(self, path: str) -> list[str]:
        """`own_parts` of the root `path` names, the first carrying its `id:` (`docs:a/b` -> `docs:a`, `b`)."""
        target, prefix, rest = self.route(path)
        parts = target.own_parts(rest)
        return [prefix + parts[0], *parts[1:]] if prefix and parts else ([prefix] if prefix else parts)

    def own_parts(self, path: str) -> list[str]:
        """Lexically normalised components of a user path, relative to the root; refuses what cannot be valid."""
        if not isinstance(path, str):
            raise StringError("INVALID_PATH", f"Path must be text, not {type(path).__name__}")
        if "\x00" in path:
            raise StringError("INVALID_PATH", "Path contains a NUL byte.", "Remove the NUL byte from the path.")
        try:
            encoded = path.encode("utf-8")
        except UnicodeEncodeError:
            if not is_found_name(path):
                raise not_utf8_path(path) from None
            encoded = path.encode("utf-8", "surrogateescape")
        if len(encoded) > MAX_PATH_BYTES:
            raise StringError("INVALID_PATH", f"Path is longer than {MAX_PATH_BYTES} bytes.")
        raw: list[str]
        if path.startswith("/"):
            stripped = self._strip_root(tuple(p for p in Path(path).parts))
            if stripped is None:
                raise StringError(
                    "FILE_NOT_ALLOWED",
                    f"Path is outside the workspace: {shown_name(path)}",
                    f"Only paths under {self.given} can be used"
                    + (", or under another root (/info lists them)." if self.roots is not None else "."),
                )
            raw = stripped
        else:
            raw = path.split("/")
        parts: list[str] = []
        for part in raw:
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise _escape(path)
                parts.pop()
                continue
            if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
                raise StringError("INVALID_PATH", f"A path component is longer than {MAX_NAME_BYTES} bytes.")
            parts.append(part)
        return parts

    def check_allowed(self, parts: list[str], shown: str, *, reading: bool = False) -> None:
        """Refuse engine state and secrets; run on the requested and on the resolved path.

        `reading` lets a read reach a shell spool file (`.stringsh/spool/<name>`), which replies name for reading on.
        """
        if parts and parts[0] == STATE_DIR and not (reading and is_spool_file(parts)):
            raise StringError("NOT_PERMITTED",
                              f"{STATE_DIR}/ is stringsh's own state and cannot be used: {shown_name(shown)}",
                              "Use a path outside it; /changes and /undo reach what stringsh keeps there.")
        if parts and parts[-1].startswith(TEMP_PREFIX):
            raise StringError("NOT_PERMITTED",
                              f"Names starting with {TEMP_PREFIX} are stringsh's temp files: {shown_name(shown)}",
                              "Choose another name.")
        if parts and self.matcher.denied("/".join(parts)):
            raise StringError(
                "SECRET_DENIED",
                f"Access to a secret file is denied: {shown_name(shown)}",
                "The policy's secret deny list covers this path.",
            )

    def _missing(
        self, dir_fd: int, names: list[str], name: str, requested: str, tail: list[str] | None = None
    ) -> StringError:
        """NOT_FOUND for `name` missing in the folder `names`: the closest name there (one the path rules would let
        through, never a secret's, never one shown masked), and where to look."""
        folder = "/".join(names)
        try:
            entries = os.listdir(dir_fd) if len(name) <= 255 else []
        except OSError:
            entries = []
        allowed = [e for e in entries[:MAX_SUGGEST_ENTRIES] if self._may_suggest([*names, e])]
        from stringsh.suggest import closest  # a refusal's hint only

        shown = f"File not found: {shown_name(requested)}"
        typed_back = next((e for e in allowed if SURROGATE.search(e) and name in (shown_name(e), shown_name(e)[1:-1])),
                          None)
        if typed_back is not None:  # the escaped form of a name that is not UTF-8, sent back
            return StringError("NOT_FOUND", shown, not_utf8("/".join([*names, typed_back])))
        match = closest(name, allowed, self.matcher.shown)
        advice: str | Hint = hint(Step("list", path=folder), " shows what is there.")
        if match is not None:
            meant = "/".join([*names, match, *(tail or [])])
            reach = not_utf8("/".join([*names, match])) if SURROGATE.search(match) else advice
            advice = f"Did you mean {shown_name(meant)}? " + reach
        return StringError("NOT_FOUND", shown, advice)

    def _may_suggest(self, parts: list[str]) -> bool:
        try:
            self.check_allowed(parts, "")
        except StringError:
            return False
        return True

    def relative(self, path: str, *, reading: bool = False) -> str:
        try:
            return self._relative(path, reading=reading)
        except StringError as exc:
            refused_path(path, exc.code)
            raise

    def _relative(self, path: str, *, reading: bool) -> str:
        target, prefix, rest = self.route(path)
        try:
            parts = target.own_parts(rest)
        except StringError as exc:
            raise self._reworded(exc, prefix, rest, path) from None
        target.check_allowed(parts, path, reading=reading)
        if self.roots is not None:
            return self.roots.relative(target, parts, path, reading=reading)
        return "/".join(parts) or "."

    # -- physical walk ----------------------------------------------------------------------------------------

    def resolve(self, path: str, *, create: bool = False, reading: bool = False) -> Resolved:
        """`walk` in the root `path` names; the result named by the innermost root holding it, whose mode decides
        whether `create` (a change) may go on (roots.py). A folder the system refuses, or one swapped while walked,
        is a coded error with the path (oserrors.py)."""
        try:  # inline, not `with translated(...)`: a walk resolves every entry it meets
            return self._resolve(path, create=create, reading=reading)
        except OSError as exc:
            error = coded(exc, [path], self.real)
            if error is None:
                raise
            refused_path(path, error.code)
            raise error from None
        except StringError as exc:
            refused_path(path, exc.code)
            raise

    def _resolve(self, path: str, *, create: bool, reading: bool) -> Resolved:
        if self.roots is None:
            return self.walk(path, create=create, reading=reading)
        target, prefix, rest = self.roots.route(path)
        try:
            res = target.walk(rest, create=create, reading=reading)
        except StringError as exc:
            raise self._reworded(exc, prefix, rest, path) from None
        try:
            return self.roots.settle(target, prefix, res, path, create=create, reading=reading)
        except BaseException:
            res.close()
            raise

    def _root_again(self) -> int:
        """The root opened anew, not `os.dup`: a duplicate shares the directory's read offset, so two threads
        listing the root at once (scandir) would each see part of it, or nothing."""
        return os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=self.root_fd)

    def walk(self, path: str, *, create: bool = False, reading: bool = False) -> Resolved:
        """Walk `path` from this root. `create` allows a missing leaf and missing parent folders (every write,
        append, delete and undo resolves so) and refuses paths that run code later (protected.py), requested or
        resolved; `reading` also reaches spool files (see check_allowed)."""
        parts = self.own_parts(path)
        self.check_allowed(parts, path, reading=reading and not create)
        if create:
            self.check_change(parts, path)
        requested = "/".join(parts) or "."
        if not parts:
            return Resolved(self._root_again(), "", ".", ".", os.fstat(self.root_fd))
        queue: deque[str] = deque(parts)
        fds = [self._root_again()]
        names: list[str] = []
        hops = 0
        try:
            while queue:
                name = queue.popleft()
                if name in ("", "."):
                    continue
                if name == "..":
                    if not names:
                        raise _via_symlink(path)
                    os.close(fds.pop())
                    names.pop()
                    continue
                last = not any(p not in ("", ".") for p in queue)
                try:
                    st = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
                except FileNotFoundError:
                    st = None
                except NotADirectoryError:
                    raise StringError("NOT_FOUND", f"Not a directory: {'/'.join(names)}", NOT_FOUND_HINT) from None
                if st is not None and stat.S_ISLNK(st.st_mode):
                    hops += 1
                    if hops > MAX_HOPS:
                        raise StringError("INVALID_PATH", f"Too many levels of symlinks: {shown_name(path)}")
                    target = os.readlink(name, dir_fd=fds[-1])
                    if target.startswith("/"):
                        inside = self._strip_root(Path(target).parts)
                        if inside is None:
                            raise _via_symlink(path)
                        for fd in fds[1:]:
                            os.close(fd)
                        del fds[1:]
                        names.clear()
                        queue.extendleft(reversed(inside))
                    else:
                        queue.extendleft(reversed(target.split("/")))
                    continue
                if last:
                    real = [*names, name]
                    self.check_allowed(real, path, reading=reading and not create)
                    if create:
                        self.check_change(real, path)
                    if st is None and not create:
                        raise self._missing(fds[-1], names, name, requested)
                    if create and (st is None or not stat.S_ISDIR(st.st_mode)):
                        _refuse_folder_syntax(path)
                    return self._done(fds, name, real, requested, st, [])
                if st is None:
                    rest = [p for p in [name, *queue] if p not in ("", ".")]
                    real = [*names, *rest]
                    self.check_allowed(
                        real if ".." not in rest else [*names, name], path, reading=reading and not create
                    )
                    if create:
                        self.check_change(real if ".." not in rest else [*names, name], path)
                    if not create or ".." in rest:
                        raise self._missing(fds[-1], names, name, requested, rest[1:])
                    _refuse_folder_syntax(path)
                    return self._done(fds, rest[-1], real, requested, None, rest[:-1])
                if not stat.S_ISDIR(st.st_mode):
                    raise StringError("NOT_FOUND", f"Not a directory: {'/'.join([*names, name])}", NOT_FOUND_HINT)
                try:
                    fds.append(os.open(name, DIR_FLAGS, dir_fd=fds[-1]))
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                        hops += 1  # swapped between lstat and open: look again, bounded by the hop limit
                        if hops > MAX_HOPS:
                            raise StringError("INVALID_PATH", f"Path keeps changing: {shown_name(path)}") from None
                        queue.appendleft(name)
                        continue
                    raise
                names.append(name)
            # Only "." components (or a symlink to the root) remained: the root itself.
            self.check_allowed(names, path)
            return self._done(fds, "", names, requested, None, [], root_itself=True)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise

    def _done(
        self,
        fds: list[int],
        name: str,
        real: list[str],
        requested: str,
        st: os.stat_result | None,
        missing: list[str],
        *,
        root_itself: bool = False,
    ) -> Resolved:
        """Keep the innermost descriptor as the parent; close the rest."""
        if root_itself:
            if real:
                name = real[-1]
                os.close(fds.pop())
                st = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
            else:
                st = os.fstat(fds[0])
        parent = fds.pop()
        for fd in fds:
            os.close(fd)
        return Resolved(parent, name, "/".join(real) or ".", requested, st, missing)
