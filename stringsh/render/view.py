"""What a topic has open (`session.document`): a DocumentView, and how one is loaded and rendered.

Loading goes through the workspace engine handed in by the document service (confinement, policy, audit); this
module only needs its `stat`/`read_text` methods, so it imports nothing from the engine or the protocol at run time.
"""

from __future__ import annotations

import os
import posixpath
from typing import TYPE_CHECKING, ClassVar

from stringsh.errors import StringError
from stringsh.render import plain
from stringsh.render.cache import DISK_MIN_BYTES
from stringsh.render.document import Document, LazyDocument, is_markdown
from stringsh.render.index import Block, DocIndex
from stringsh.render.record import Record

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from stringsh.render.cache import IndexCache
    from stringsh.render.code.index import SymbolIndex
    from stringsh.render.maskmemo import MaskMemo
    from stringsh.render.watch import Watcher, WatchHandle
    from stringsh.workspace import Workspace

BUDGET_VARIABLE = "_max_lines"
#: How much of a file the cache vouches for by its identity is read up front: the first window of a page (1,856
#: lines of a 400-line budget, `plain.render_document`) in all but pages of very long lines; more reads it whole.
HEAD_BYTES = 512 * 1024


class DocumentView(Record):
    """An open document in a topic: the text as read, its index, the block shown and the stale flag."""

    #: False for a workspace file; True for a page a server returned (stringsh.actions.remote), which has no
    #: local file, never runs CLI actions or sends `$NAME` values, and reloads by fetching again.
    remote: ClassVar[bool] = False

    _fields = ("path", "kind", "doc", "size", "mtime_ns", "block", "mime", "auto_shortcuts", "watcher", "encoding",
               "bom", "symbols", "masks")

    def __init__(self, path: str, kind: str, doc: Document, size: int = 0, mtime_ns: int = 0,
                 block: str | None = None, mime: str = "", auto_shortcuts: dict[str, str] | None = None,
                 watcher: WatchHandle | None = None, encoding: str = "utf-8", bom: bool = False,
                 symbols: SymbolIndex | None = None, masks: MaskMemo | None = None) -> None:
        self.path = path  # root-relative
        self.kind = kind  # "markdown", "text" or "binary"
        self.doc = doc
        self.size = size
        self.mtime_ns = mtime_ns
        self.block = block
        self.mime = mime
        self.auto_shortcuts: dict[str, str] = {} if auto_shortcuts is None else auto_shortcuts
        self.watcher = watcher
        #: How the file's bytes decode ("utf-8", "utf-16-le", …) and whether they start with a BOM.
        self.encoding = encoding
        self.bom = bom
        #: A source file's symbols (render/code/): its blocks are its definitions. None for other files.
        self.symbols = symbols
        #: Remembers what masking changes in this text (a view read through the index cache; see maskmemo.py).
        self.masks = masks

    @property
    def index(self) -> DocIndex:
        return self.doc.index

    @property
    def sha256(self) -> str:
        return self.doc.sha256

    @property
    def label(self) -> str:
        return f"{self.path}#{self.block}" if self.block else self.path

    @property
    def folder(self) -> str:
        """`docs:` for a page at the top of another root (`docs:guide.md`, workspace/roots.py): its links stay there."""
        folder = posixpath.dirname(self.path)
        head, colon, _ = self.path.partition(":")
        return head + colon if not folder and colon and "/" not in head and not head.startswith(".") else folder

    def with_block(self, block: str | None) -> DocumentView:
        """The same document showing another block (shares text, index and watch)."""
        return self.replace(block=block, auto_shortcuts=dict(self.auto_shortcuts))

    def is_stale(self, workspace: Workspace) -> bool:
        """True when the file no longer has the bytes this view was built from (watch flag or stat, then hash)."""
        info = workspace.stat(self.path)
        if info is None or self.doc.__dict__.get("changed"):  # (a view read by its first bytes found the rest changed)
            return True
        flagged = self.watcher is not None and self.watcher.changed.is_set()
        if not flagged and info.size == self.size and info.mtime_ns == self.mtime_ns:
            return False
        stale = workspace.fingerprint(self.path) != self.sha256
        if not stale and self.watcher is not None:
            self.watcher.changed.clear()
            self.size, self.mtime_ns = info.size, info.mtime_ns
        return stale

    def reload(self, loader: ViewLoader) -> DocumentView:
        """Read the file again; the block and the watch carry over (the old flag is cleared: this is the new text)."""
        fresh = loader.load(self.path, watch=self.watcher is None)
        if fresh.watcher is None:
            fresh.watcher = self.watcher
            if fresh.watcher is not None:
                fresh.watcher.changed.clear()
        fresh.block = self.block
        return fresh

    def close(self) -> None:
        """Stop watching the file (views of one file opened at once share a watch: close it once)."""
        if self.watcher is not None:
            self.watcher.close()
            self.watcher = None


class ViewLoader:
    """What loading a view needs: the engine, the workspace's index cache and its watcher (None: no watching)."""

    __slots__ = ("cache", "root", "topic", "watcher", "workspace")

    def __init__(self, workspace: Workspace, root: str | os.PathLike[str], cache: IndexCache | None = None,
                 watcher: Watcher | None = None, topic: str | None = None) -> None:
        self.workspace = workspace
        self.root = root
        self.cache = cache
        self.watcher = watcher
        #: The topic reading, for the audit record of the read.
        self.topic = topic

    def load(self, rel: str, *, watch: bool = True) -> DocumentView:
        return load_view(self.workspace, rel, cache=self.cache, watcher=self.watcher if watch else None,
                         root=self.root, topic=self.topic)


def load_view(workspace: Workspace, rel: str, *, cache: IndexCache | None = None, watcher: Watcher | None = None,
              root: str | os.PathLike[str] | None = None, topic: str | None = None) -> DocumentView:
    """Read a file through the engine and index it (cached by content hash); binary files keep metadata only.

    With a `watcher` (and the `root` the file lives under) the view is flagged when the file changes outside.
    """
    memo = None
    if cache is not None:
        from stringsh.render.maskmemo import MaskMemo

        memo = MaskMemo(workspace, cache)
    known = memo.known_utf8 if memo is not None and is_markdown(rel) else None
    vouch = cache.lookup_identity if known is not None and cache is not None else None
    try:  # not UTF-8: shown as Latin-1, read-only; UTF-8 bytes shown before (`known`) are decoded as they are shown
        text_file = workspace.read_text(rel, legacy=True, topic=topic, known_utf8=known, known_identity=vouch,
                                        prefix=HEAD_BYTES)
        markdown = bool(text_file.raw) and is_markdown(text_file.rel)
        index = cache.lookup(text_file.sha256) if markdown and cache is not None else None
        if index is None and not text_file.whole:  # vouched for, but its index is gone: read it whole after all
            text_file = workspace.read_text(rel, legacy=True, topic=topic, known_utf8=known)
    except StringError as exc:
        if exc.code != "BINARY_FILE":
            raise
        info = workspace.stat(rel)
        import mimetypes  # only for binary files: importing it costs more than a repeat open's rendering

        mime = mimetypes.guess_type(rel)[0] or "application/octet-stream"
        return DocumentView(rel, "binary", Document(""), info.size if info else 0, info.mtime_ns if info else 0,
                            mime=mime)
    rel = text_file.rel
    text = text_file.text
    if index is not None:
        load = None if text_file.whole else _whole_bytes(workspace, rel, text_file.sha256, topic)
        doc: Document = LazyDocument(text_file.raw, text_file.sha256, index, load)
        kind = "markdown"
    else:
        if text_file.raw:  # left undecoded, but not shown lazily after all (no index entry): decode it now
            text = text_file.raw.decode("utf-8")
        kind = "markdown" if is_markdown(rel) else "text"
        doc = Document.parse(text, text_file.sha256, cache) if kind == "markdown" else Document(text, text_file.sha256)
    if (vouch is not None and cache is not None and text_file.whole and text_file.identity
            and text_file.size >= DISK_MIN_BYTES and text_file.encoding == "utf-8" and not text_file.bom):
        # the next open may trust the file by its stat (not when it changed just before it was read: cache.py)
        cache.put_identity(rel, text_file.identity, text_file.sha256, text_file.read_ns)
    symbols = _symbols(rel, doc, cache) if kind == "text" else None
    mime = "text/markdown" if kind == "markdown" else "text/plain"  # (mimetypes costs ms to initialise)
    view = DocumentView(rel, kind, doc, text_file.size, text_file.mtime_ns, mime=mime, encoding=text_file.encoding,
                        bom=text_file.bom, symbols=symbols)
    view.masks = memo
    if watcher is not None and root is not None:
        view.watcher = watcher.watch(os.path.join(os.fspath(root), rel))
    return view


def _whole_bytes(workspace: Workspace, rel: str, sha256: str, topic: str | None) -> Callable[[], bytes]:
    """Reads the whole file a view was opened from by its first bytes, on first need (an edit, a block further
    down): CONFLICT, and nothing shown from it, unless it still hashes to the view's sha256."""

    def load() -> bytes:
        import hashlib

        from stringsh.hints import command_word

        data = workspace.read_bytes(rel, topic=topic)
        if hashlib.sha256(data).hexdigest() != sha256:
            raise StringError("CONFLICT", f"{rel} changed on disk after it was opened; nothing of the change was "
                                          "shown as that view.",
                              f"Open it again to see it as it is now: /open {command_word(rel)}")
        return data

    return load


def _symbols(rel: str, doc: Document, cache: IndexCache | None) -> SymbolIndex | None:
    """The symbol index of a source file (cached by content beside the markdown index), None for other files."""
    from stringsh.render.code.suffixes import language_of

    language = language_of(rel, doc.text)
    if language is None:
        return None
    from stringsh.render.code.cache import symbol_cache

    return symbol_cache(cache).symbols(doc.text, language, doc.sha256)


def current_if_fresh(view: DocumentView | None, workspace: Workspace, rel: str) -> DocumentView | None:
    """The topic's open view of `rel` when the file still has the bytes it was built from (saves a full read)."""
    if view is None or view.path != rel or view.kind == "binary":
        return None
    try:
        return None if view.is_stale(workspace) else view
    except StringError:
        return None


def masked(view: DocumentView, redact: Callable[[str], str]) -> DocumentView:
    """The view as it may be shown: secrets masked line for line (`Workspace.redact_lines`), so line numbers, blocks and
    `--from N` stay those of the file; the view itself when nothing is masked. Only a copy is masked: the open view
    keeps the real text, which is what a block edit splices."""
    if view.kind == "binary":
        return view
    memo = view.masks if view.masks is not None and view.masks.serves(redact) else None
    if memo is not None:  # a repeat of the same text and patterns patches the lines it changes, never re-scans
        record = memo.record(view.doc.sha256)
        if record is not None and not record[1]:
            return view  # nothing to mask (and a text not decoded yet stays so)
        utf8 = view.encoding == "utf-8" and not view.bom
        text = memo.masked_text(view.doc.text, view.doc.sha256, view.doc.__dict__.get("lines"), utf8)
    else:
        text = redact(view.doc.text)
    if text == view.doc.text:
        return view
    cache = memo.cache if memo is not None else None
    doc = Document.parse(text, cache=cache) if view.kind == "markdown" else Document(text)
    return view.replace(doc=doc, auto_shortcuts={}, masks=None)


def budget_from(variables: dict[str, str]) -> int:
    """The line budget: `{_max_lines}` when it is a positive number, 0 (`off`) for no limit, else the default."""
    value = variables.get(BUDGET_VARIABLE, "").strip().lower()
    if value in ("0", "off", "none"):
        return 0
    return int(value) if value.isdigit() and int(value) > 0 else plain.DEFAULT_BUDGET


def block_not_found(view: DocumentView, block_id: str) -> StringError:
    from stringsh.render import blockids  # (replies that list ids load it: an open that finds its block never does)

    if view.symbols is not None:
        return blockids.not_found(view.symbols.block_ids(), view.path, block_id)
    return blockids.not_found(view.index.block_ids() if view.kind == "markdown" else [], view.path, block_id)


def resolve_block(view: DocumentView, block_id: str) -> Block:
    """The one block `#block_id` names: BLOCK_NOT_FOUND listing the ids, or AMBIGUOUS_BLOCK for a bare heading slug
    several headings share (naming their distinct ids), so no command acts on the first one silently."""
    if view.symbols is not None:  # a source file: its blocks are its symbols, lines as the file's
        from stringsh.render.code.views import resolve_symbol

        symbol = resolve_symbol(view.symbols, view.path, block_id)
        return Block(symbol.id, "symbol", symbol.start, symbol.end)
    block = view.doc.resolve(block_id) if view.kind == "markdown" else None
    if block is None:
        raise block_not_found(view, block_id)
    candidates = view.index.ambiguity(block_id)
    if candidates:
        from stringsh.render import blockids

        raise blockids.ambiguous(candidates, view.path, block_id)
    return block


def render_view(view: DocumentView, *, start: int = 0, budget: int = plain.DEFAULT_BUDGET,
                missing_env: list[str] | None = None, load_include: plain.IncludeLoader | None = None,
                command: str = "/open", unfold: Mapping[str, list[str]] | None = None,
                setup: str | None = None) -> str:
    """The content an agent sees for a view, cut at the budget with a read-on hint; sets the auto-shortcuts."""
    if view.kind == "binary":
        return f"[binary file] {view.mime}, {view.size} bytes (not shown)"
    if view.kind == "text" and view.symbols is not None:
        return _render_code(view, start=start, budget=budget, command=command)
    if view.kind == "text":
        count = _line_count(view.doc.lines)
        check_start(view.path, count, start, command)
        rendered = plain.render_text(view.doc.lines, start=start, budget=budget)
    elif view.block:
        block = resolve_block(view, view.block)
        if start and not block.start <= start < block.end:  # else the whole block shows, as if --from were not given
            raise StringError(
                "INVALID_PAYLOAD",
                f"--from {start + 1} is outside {view.label}, which is source lines {block.start + 1}-{block.end}",
                f"Give --from {block.start + 1} to {block.end}, or read it whole: {command} {view.label}",
            )
        rendered = plain.render_block(view.doc, block, start=start, budget=budget)
        count = view.index.line_count
    else:
        check_start(view.path, view.index.line_count, start, command)
        rendered = plain.render_document(view.doc, start=start, budget=budget, missing_env=missing_env,
                                         load_include=load_include, identity=view.path, unfold=unfold,
                                         setup=setup)
        count = view.index.line_count
    view.auto_shortcuts = rendered.shortcuts
    text = rendered.text
    if rendered.next_line is not None:
        hint = plain.cut_hint(view.label, rendered, count, budget)
        if command != "/open":
            hint = hint.replace("Read on: /open ", f"Read on: {command} ")
        text = f"{text}\n\n{hint}"
    if view.encoding == "utf-8":
        return text
    from stringsh.workspace import LEGACY_ENCODINGS, is_ambiguous, legacy_note  # (text decoding's module, which a
    # page shown from the cache never loads)

    if view.encoding not in LEGACY_ENCODINGS:
        return text
    ambiguous = is_ambiguous(view.doc.text.encode(view.encoding))  # one character a byte: the file's bytes again
    return f"{text}\n\n{legacy_note(view.path, view.encoding, ambiguous)}"


def _render_code(view: DocumentView, *, start: int, budget: int, command: str) -> str:
    """A source file: a symbol's lines numbered as the file's, or the text with the outline under its first page."""
    from stringsh.render.code.views import outline, render_symbol, resolve_symbol

    assert view.symbols is not None
    count = _line_count(view.doc.lines)
    if view.block:
        symbol = resolve_symbol(view.symbols, view.path, view.block)
        return render_symbol(view.doc.lines, symbol, view.label, start=start, budget=budget, command=command,
                             total=count)
    check_start(view.path, count, start, command)
    rendered = plain.render_text(view.doc.lines, start=start, budget=budget)
    text = rendered.text
    if rendered.next_line is not None:
        hint = plain.cut_hint(view.label, rendered, count, budget)
        text = f"{text}\n\n{hint.replace('Read on: /open ', f'Read on: {command} ')}"
    return text if start else f"{text}\n\n{outline(view.symbols, view.path)}"


def check_start(path: str, count: int, start: int, command: str) -> None:
    """`--from` past the last line would show nothing at all: say how long the file is instead."""
    if start and start >= count:
        raise StringError("INVALID_PAYLOAD", f"{path} has {count} lines; --from {start + 1} is past the end",
                          f"Read it from the start: {command} {path}")


def _line_count(lines: list[str]) -> int:
    return len(lines) - 1 if lines and lines[-1] == "" else len(lines)


def numbered(lines: list[str], *, first_number: int = 1, start: int = 0, budget: int = 0) -> tuple[str, int | None]:
    """`N | text` lines, numbers right-aligned to the widest; returns the text and the index to read on from.

    With a budget, output also stops at `plain.MAX_CHARS` characters (a huge line is cut).
    """
    count = len(lines)
    end = count if budget <= 0 else min(count, start + budget)
    width = len(str(first_number + count - 1)) if count else 1
    out: list[str] = []
    chars = 0
    for i in range(start, end):
        line = lines[i]
        if budget > 0 and chars + len(line) > plain.MAX_CHARS:
            if out:
                return "\n".join(out), i
            line = line[: plain.MAX_CHARS] + f" … (line cut at {plain.MAX_CHARS} characters)"
            out.append(f"{first_number + i:>{width}} | {line}")
            return "\n".join(out), (i + 1 if i + 1 < count else None)
        out.append(f"{first_number + i:>{width}} | {line}")
        chars += len(line) + width + 4
    return "\n".join(out), (end if end < count else None)
