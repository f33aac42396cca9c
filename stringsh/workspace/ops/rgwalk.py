"""The walk done by ripgrep, for /grep and /glob without `--stats`: rg walks the tree (on every core, `.gitignore`
read as it goes), and Python checks only what rg returns, so its work is proportional to the hits.

rg is told the walk's rules (`.git/` folders and `.stringsh/` left out, the `.gitignore` files from the search
folder down read as git reads them, nothing else: no `.ignore`, `.rgignore`, global or parent ignore files; symlinks
never followed, as by the Python walk; see `command`). Those flags only save rg work: what is shown is
decided here, for each path rg returns, exactly as the confined walk decides it (`Visible`: secrets, engine state,
temp files, `.git/`), and every file shown is opened again folder by folder from the root with O_NOFOLLOW
(`Folders`), so a path rg reached through a folder swapped for a symlink is never shown. rg's answer is dropped for
the Python engine's when a folder it entered has a `.gitignore` that is not a regular file (rg would read the file
a link leads to, perhaps outside the workspace, or wait on a FIFO; ops/ignorecheck.py). A hard-linked file, when the
policy refuses them, is dropped when it is opened (grep.py): a count of such files among the hits would tell
whether one holds the query, so none is kept.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import subprocess
import time
from typing import TYPE_CHECKING

from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from collections.abc import Iterator

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.glob import NamePattern
    from stringsh.workspace.ops.grep import GrepRequest, Run
    from stringsh.workspace.ops.legacytext import RgSearch
    from stringsh.workspace.ops.walk import Start

#: The walk's rules as rg flags (see the module docstring); `--null` separates the paths rg prints.
WALK_FLAGS = ("--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-global",
              "--no-ignore-exclude", "--no-ignore-parent", "--no-messages", "--color", "never", "--null",
              "--glob", "!.git/")
# Not `--glob '!.~stringsh-*'` for the engine's temp files: a glob that is not a literal name costs rg a regex match
# of every path (7% of its instructions listing the bench tree), where a temp file (atomic.py's, for a moment) is
# rare; `Visible` leaves out any rg names.
#: A `**/NAME` pattern's NAME that means the same to rg's `--glob` (a name, or `*` and a name's end): passed to rg
#: as a prefilter; the pattern itself is still matched here.
SIMPLE_NAME = re.compile(r"\*?[A-Za-z0-9_.+-]+")
#: Bytes read from rg's output at a time.
CHUNK = 1 << 18
#: Bytes of rg's output gathered before its paths are handed on as one batch (rg writes 8 KiB at a time, and each
#: batch costs its screen's and its sort's set-up): at most this much is left to check once rg has ended.
BATCH = 1 << 16
#: Bytes rg's output pipe holds (Linux's default pipe-max-size for any user: 1 MiB).
PIPE_BYTES = 1 << 20
#: Folders held open at once (the files of one folder come mostly together, but rg's threads interleave them).
OPEN_FOLDERS = 64


def usable(ws: Workspace, rel: str) -> bool:
    """Whether rg may walk this folder for the engine: one of the main root's (another root's rules are its own)."""
    return ":" not in rel and ws.confiner.roots is None


def command(rg: str, rel: str, *args: str) -> list[str]:
    """rg over the folder `rel` of the root with the walk's rules, then `args` (a search or `--files`). No
    `--max-filesize`: it costs rg a stat of every file (a quarter more CPU), while a file over the read limit that
    rg finds a match in is left out when grep opens it (its size is checked there, as the Python engine checks
    it); the time limit bounds what a huge file costs rg. The root is given as no path at all: rg walks the folder
    it runs in (stdin is /dev/null, never searched) and names its files without a leading `./`, which need not be
    cut off in Python. Every pattern is given with a flag (`--regexp`): no argument is taken for a path."""
    if rel == ".":
        return [rg, *WALK_FLAGS, "--glob", f"!/{STATE_DIR}/", *args]
    return [rg, *WALK_FLAGS, *args, "--", rel]


class Listing:
    """One rg run's output, read while rg runs (so the paths are checked as rg walks on): `batches` yields the
    root-relative paths (undecodable bytes escaped as the walk's names are) as they come, BATCH bytes or more at a
    time; afterwards `late` says the deadline stopped rg, `failed` that rg ended with an error and printed nothing
    (a regex it does not accept)."""

    def __init__(self, argv: list[str], ws: Workspace, deadline: float) -> None:
        self.argv = argv
        self.cwd = ws.confiner.real
        self.deadline = deadline
        self.late = self.failed = self.cancelled = False
        self.process: subprocess.Popen[bytes] | None = None

    def cancel(self) -> None:
        """Stop rg (from another thread): its answer will not be taken."""
        self.cancelled = True
        process = self.process
        if process is not None and process.poll() is None:
            process.kill()

    def batches(self) -> Iterator[list[str]]:
        for text in self.texts():
            yield text.split("\0")

    def texts(self) -> Iterator[str]:
        """`batches`, each as one text, NUL between its paths (ops/pathscreen.py looks at a batch whole)."""
        process = subprocess.Popen(self.argv, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        self.process = process
        if self.cancelled:
            process.kill()
        pipe = process.stdout.fileno()
        _widen(pipe)
        poll = select.poll()
        poll.register(pipe, select.POLLIN)
        rest = bytearray()
        printed = False
        try:
            while True:
                left = self.deadline - time.monotonic()
                if left <= 0 or not poll.poll(left * 1000):
                    self.late = True
                    break
                chunk = os.read(pipe, CHUNK)
                if not chunk:
                    break
                printed = True
                rest += chunk
                if len(rest) >= BATCH:
                    yield from _whole_paths(rest)
            yield from _whole_paths(rest)  # the last paths, or those read before the deadline
        finally:
            if process.poll() is None:
                process.kill()
            process.stdout.close()
            process.wait()
        self.failed = process.returncode not in (0, 1) and not printed and not self.late


def _widen(pipe: int) -> None:
    """Let rg write up to PIPE_BYTES ahead of this reader: with the default 64 KiB pipe, rg waits whenever a batch is
    being checked here, and its walk stalls with it (a listing of 51k paths is some 1.3 MB)."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or over pipe-max-size: the default pipe waits
        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def _whole_paths(rest: bytearray) -> Iterator[str]:
    """The paths `rest` holds whole, as one text (taken out of `rest`): a path cut off mid-name waits for its end."""
    cut = rest.rfind(b"\0") + 1
    if cut:
        text = rest[:cut - 1].decode("utf-8", "surrogateescape")
        del rest[:cut]
        yield text


class Visible:
    """Whether the confined walk would yield a root-relative file rg named: no temp file, `.git/` folder,
    `.stringsh/` at the root or secret on its way. As the walk decides it: each folder once (remembered), with the
    secret list's leaf check (a denied folder hides what is below it), then the file's own name."""

    def __init__(self, ws: Workspace) -> None:
        self.denied_leaf = ws.confiner.matcher.denied_leaf
        self.folders: dict[str, bool] = {"": True}

    def __call__(self, rel: str) -> bool:
        parent, _, name = rel.rpartition("/")
        shown = self.folders.get(parent)
        if shown is None:
            shown = self.folder(parent)
        return shown and not name.startswith(TEMP_PREFIX) and not self.denied_leaf(rel)

    def folder(self, rel: str) -> bool:
        """Whether the walk enters this folder (`folders` remembers the answer)."""
        parent, _, name = rel.rpartition("/")
        shown = self.folders.get(parent)
        if shown is None:
            shown = self.folder(parent)
        shown = shown and not (name.startswith(TEMP_PREFIX) or name == ".git" or rel == STATE_DIR
                               or self.denied_leaf(rel))
        self.folders[rel] = shown
        return shown


def walk_order(rel: str) -> tuple[tuple[int, str], ...]:
    """The confined walk's order: depth first, names sorted, a folder's files before its folders."""
    parts = rel.split("/")
    return (*((1, part) for part in parts[:-1]), (0, parts[-1]))


class Folders:
    """The folders of the files shown, opened name by name from the root without following a symlink (as the walk
    opens them; a name need not be UTF-8, which the Confiner's paths must be). The last OPEN_FOLDERS are kept open."""

    def __init__(self, ws: Workspace) -> None:
        self.root_fd = ws.confiner.root_fd
        self.open_fds: dict[str, int] = {}

    def open(self, parent: str) -> int:
        """The folder's descriptor (valid until `close`, or until OPEN_FOLDERS others are opened); OSError when it
        is not a folder reached without a symlink any more. Opened from the nearest folder above it already open
        (each folder on the way is kept too: the files of one package come from its few folders)."""
        fd = self.open_fds.get(parent)
        if fd is not None:
            return fd
        above, _, name = parent.rpartition("/")
        if not parent:
            fd = os.open(".", DIR_FLAGS, dir_fd=self.root_fd)
        else:
            fd = os.open(name, DIR_FLAGS, dir_fd=self.open(above))
        if len(self.open_fds) >= OPEN_FOLDERS:
            oldest = next(iter(self.open_fds))
            os.close(self.open_fds.pop(oldest))
        self.open_fds[parent] = fd
        return fd

    def close(self) -> None:
        for fd in self.open_fds.values():
            os.close(fd)
        self.open_fds.clear()


def walked_search(ws: Workspace, run: Run, rg: str, request: GrepRequest, start: Start,
                  only: re.Pattern[str] | NamePattern | None, cut: int, search: RgSearch) -> str:
    """grep's rg engine: rg walks and names the files holding a match of `search` (legacytext.rg_search, with
    grep.secret_patterns: every file that may hold a secret too); each one the walk would yield is searched in walk
    order, as the Python engine searches it (grep.Run). The Python engine answers when rg refuses the pattern."""
    from stringsh.workspace.ops.grep import python_search
    from stringsh.workspace.ops.ignorecheck import IgnoreCheck
    from stringsh.workspace.ops.legacytext import flags
    from stringsh.workspace.ops.walk import Found

    # no --crlf (it slows rg's regex): a query with anchors never reaches rg, and without them rg's lines (cut at
    # \n only) hold Python's (cut at \r too), so rg names every file Python would find a match in
    listing = Listing(command(rg, start.rel, "--files-with-matches", "--text",
                              *flags(search.patterns, regex=search.regex, ignore_case=request.ignore_case)),
                      ws, run.stats.deadline)
    check = IgnoreCheck(ws, start, listing)
    visible = Visible(ws)
    shown = ws.redactor
    try:
        shown = ws.redactor
        hits = [rel for batch in listing.batches() for rel in batch
                if (only is None or only.fullmatch(shown(rel[cut:])) is not None) and visible(rel)]
    except BaseException:
        os.close(start.fd)
        raise
    if listing.failed or not check.passed():
        python_search(ws, run, start, only, cut)
        return "python"
    os.close(start.fd)  # rg walked by name; every file shown is opened again from the root (Folders)
    folders = Folders(ws)
    try:
        for rel in sorted(hits, key=walk_order):
            parent, _, name = rel.rpartition("/")
            try:
                fd = folders.open(parent)
            except OSError:
                continue  # changed since rg walked it
            if run.search(Found(rel, fd, name, None)):
                break
    finally:
        folders.close()
    if listing.late and run.stats.limit_reason is None:
        run.stats.limit_reason = "time"
    return "rg"
