"""One topic's documents: the open view, its history, and every step that replaces or re-reads it.

Commands ask this service instead of touching `session.document`, `session.history` or `session.seen` themselves,
so the rules live once: a view read is a file seen (the stale-write guard), a view left behind is remembered for
/back (bounded, and a dropped view stops being watched), a view written by this topic is updated, not stale.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from stringsh.documents import partguard
from stringsh.errors import StringError, is_a_folder
from stringsh.render.view import DocumentView, ViewLoader, current_if_fresh, resolve_block
from stringsh.workspace import mark_seen

if TYPE_CHECKING:
    from pathlib import Path

    from stringsh.documents.host import WorkspaceHost
    from stringsh.documents.state import DocumentState
    from stringsh.render.document import Document
    from stringsh.render.plain import IncludeLoader
    from stringsh.session import Session
    from stringsh.workspace import FileInfo, Workspace

#: Views kept for /back; each holds its text, so the list is bounded.
HISTORY_LIMIT = 20
NO_DOCUMENT = "No document open."
#: A page's setup document when it names none with `[!requirements](path)`: this file beside it.
REQUIREMENTS_FILE = "requirements.md"
OPEN_HINT = "Open one with /open <path>."


class DocumentService:
    """The documents of one topic (`session`) in one workspace (`host`: the dispatcher, seen only as a
    `WorkspaceHost`); cheap to make per command."""

    def __init__(self, host: WorkspaceHost, session: Session) -> None:
        self.host = host
        self.session = session

    @property
    def workspace(self) -> Workspace:
        return self.host.workspace

    @property
    def root(self) -> Path:
        return self.host.root

    @property
    def state(self) -> DocumentState:
        return self.host.documents

    @property
    def topic(self) -> str:
        return self.session.topic

    @property
    def loader(self) -> ViewLoader:
        state = self.state
        return ViewLoader(self.workspace, self.root, state.index_cache, state.watcher if state.watching else None,
                          self.topic)

    # the open view -----------------------------------------------------------------------------------------------

    def current_or_none(self) -> DocumentView | None:
        return self.session.document

    def current(self, message: str = NO_DOCUMENT, hint: str | None = OPEN_HINT) -> DocumentView:
        """The open view; INVALID_TARGET with the caller's wording when nothing is open."""
        view = self.session.document
        if view is None:
            raise StringError("INVALID_TARGET", message, hint)
        return view

    @property
    def folder(self) -> str:
        """The topic's folder (root-relative, "" for the root): the one `/open <folder>` entered, else the open
        document's, else the root."""
        if self.session.cwd_override is not None:
            return self.session.cwd_override
        view = self.session.document
        return view.folder if view is not None else ""

    def enter_folder(self, rel: str) -> None:
        """`/open <folder>`: relative paths now start there (String's cwd override) until a document opens."""
        self.session.cwd_override = "" if rel in ("", ".") else rel.rstrip("/")

    def resolve_path(self, target: str) -> str:
        """A relative path is looked up beside the open document, then in the folder `/open <folder>` entered (as
        String does: a page's own links stay its own), then from the workspace root."""
        workspace = self.workspace
        view = self.session.document
        folders = [view.folder] if view is not None else []  # "" for a page at the root: it still comes first
        if self.session.cwd_override:
            folders.append(self.session.cwd_override)
        if not target.startswith("/"):
            for folder in dict.fromkeys(folders):
                beside = posixpath.normpath(posixpath.join(folder, target)) if folder else posixpath.normpath(target)
                if not beside.startswith("../") and _exists(workspace, beside):
                    return workspace.relative(beside, reading=True)
        return workspace.relative(target, reading=True)  # reading: a shell reply's spool file can be opened

    # opening and leaving ----------------------------------------------------------------------------------------

    def load(self, rel: str, *, watch: bool = True) -> DocumentView:
        """A fresh view of a file (indexed through the workspace's cache, watched unless `watch` is False)."""
        return self.loader.load(rel, watch=watch)

    def open_file(self, path: str, info: FileInfo, block: str | None) -> DocumentView:
        """Make the file at `path` (stat'ed as `info`) the open document, showing `block`; history as /open keeps it.

        An unchanged open view of the same file is reused rather than read again. The view left goes to history
        unless it showed the same file and block (`/open file` then `/open file#block` can go /back, as in String);
        `/open #block` (`show_block`) makes no entry.
        """
        session = self.session
        previous = session.document
        fresh = current_if_fresh(previous, self.workspace, info.rel)
        view = fresh.with_block(block) if fresh is not None else self.load(path)
        view.block = block
        if block:
            try:
                resolve_block(view, block)
            except StringError:
                if fresh is None:
                    view.close()
                raise
        self.mark_seen(view)
        if previous is not None:
            if previous.path != view.path or previous.block != block:  # `/open file#block`, too, as String does
                self._push_history(previous, view)
            elif previous.watcher is not view.watcher:
                previous.close()
        session.document = view
        session.cwd_override = None  # a document opened: its folder is the topic's again, as in String
        return view

    def show_block(self, block: str | None) -> DocumentView:
        """`#block` of the open document (None: the whole of it); no history entry, and nothing is re-read."""
        view = self.current()
        if not block:
            return view.with_block(None)
        resolve_block(view, block)
        self.session.document = shown = view.with_block(block)
        return shown

    def navigate(self, view: DocumentView) -> None:
        """Make a view not read from a file (a page a server returned) the open one; the old one goes to history."""
        previous = self.session.document
        if previous is not None:
            self._push_history(previous, view)
        self.session.document = view
        self.session.cwd_override = None

    def _push_history(self, previous: DocumentView, current: DocumentView) -> None:
        """Remember the previous view; the oldest entries are dropped (and stop being watched) past HISTORY_LIMIT."""
        history = self.session.history
        history.append(previous)
        while len(history) > HISTORY_LIMIT:
            oldest = history.pop(0)
            if all(view.watcher is not oldest.watcher for view in (current, *history)):
                oldest.close()

    def reload(self, view: DocumentView) -> DocumentView:
        """The view read again (a remote page fetched again); block and watch carry over, a file read is seen."""
        fresh = view.reload(self.loader)
        if not fresh.remote:
            self.mark_seen(fresh)
        return fresh

    def reload_current(self) -> DocumentView:
        """Re-read (or fetch again) the open view and keep the fresh one open, block included."""
        self.session.document = fresh = self.reload(self.current())
        return fresh

    def back(self) -> DocumentView:
        """Return to the previous view, re-read; when it is gone or unreadable, what was read before."""
        session = self.session
        if not session.history:
            raise StringError("INVALID_TARGET", "No previous page in history.")
        previous = session.history.pop()
        try:
            view = self.reload(previous)
        except StringError:
            view = previous  # gone or unreadable now: show what was read before, as String does
        current = session.document
        if current is not None and current.watcher is not view.watcher:
            current.close()
        session.document = view
        if view.block and view.kind == "markdown" and view.doc.resolve(view.block) is None:
            view.block = None
        return view

    def refresh(self) -> DocumentView:
        """Re-read the open document; it is replaced even when its block is gone (BLOCK_NOT_FOUND then)."""
        fresh = self.reload(self.current())
        block, fresh.block = fresh.block, None
        self.session.document = fresh  # the next /refresh shows the document even if the block is gone
        if block:
            resolve_block(fresh, block)
            self.session.document = fresh = fresh.with_block(block)
        return fresh

    def close_all(self) -> None:
        """Forget the open view and the history, and stop watching their files."""
        session = self.session
        views = [session.document, *session.history] if session.document is not None else list(session.history)
        for view in views:
            view.close()
        session.document = None
        session.cwd_override = None
        session.history.clear()

    # reading for an edit, and after a write ---------------------------------------------------------------------

    def read_for_edit(self, path: str) -> DocumentView:
        """The text of `path` as it is now (the open view when unchanged, else read unwatched); never binary."""
        workspace = self.workspace
        info = workspace.stat(path)
        if info is None:
            raise workspace.not_found(path, path)
        if info.is_dir:
            raise is_a_folder(info.rel)
        fresh = current_if_fresh(self.session.document, workspace, info.rel)
        view = fresh or self.load(path, watch=False)
        if view.kind == "binary":
            raise StringError("BINARY_FILE", f"Binary file: {view.path} ({view.mime}, {view.size} bytes)")
        from stringsh.workspace import LEGACY_ENCODINGS, is_ambiguous, refuse_ambiguous

        if view.encoding in LEGACY_ENCODINGS and is_ambiguous(view.doc.text.encode(view.encoding)):
            raise refuse_ambiguous(view.path)  # Latin-1 or cp1252 kept, but not where parts are UTF-8
        return view

    def mark_seen(self, view: DocumentView) -> None:
        """This topic has read the view's file as the view holds it (for the stale-write guard)."""
        mark_seen(self.session.seen, self.workspace, view.path, view.sha256)
        if view.kind != "binary" and not view.remote:
            partguard.remember(self.session, view.path, view.doc)

    def after_write(self, rel: str, sha256: str, written: Document | None = None) -> None:
        """This topic wrote the file: it has seen it, and an open view of it is updated so it is not stale.

        `written` is the document as written (a block edit knows it), which saves reading the file back.
        """
        workspace = self.workspace
        mark_seen(self.session.seen, workspace, rel, sha256)
        if written is not None:
            partguard.remember(self.session, rel, written)
        else:
            partguard.forget(self.session, rel)  # the text written is not at hand: `seen` alone guards it
        current = self.session.document
        if current is None or current.path != rel:
            return
        info = workspace.stat(rel) if written is not None else None
        if written is not None and info is not None:
            fresh = current.replace(doc=written, size=info.size, mtime_ns=info.mtime_ns, auto_shortcuts={})
        else:
            fresh = self.load(rel, watch=current.watcher is None)
        fresh.watcher = fresh.watcher or current.watcher
        if fresh.watcher is not None:
            fresh.watcher.changed.clear()
        index = fresh.symbols if fresh.symbols is not None else fresh.doc  # a source file's blocks are its symbols
        fresh.block = current.block if current.block and index.resolve(current.block) else None
        self.session.document = fresh
        if written is None and fresh.sha256 == sha256:
            partguard.remember(self.session, rel, fresh.doc)

    def requirements_file(self, view: DocumentView) -> str | None:
        """The page's setup document, as `/open` takes it from the page: its `[!requirements](path)` line, else a
        `requirements.md` beside it (String auto-detects that sibling). Named in `Setup:` hints; None when neither."""
        if view.kind != "markdown" or view.remote:
            return None
        if view.index.requirements:
            return view.index.requirements
        sibling = posixpath.join(view.folder, REQUIREMENTS_FILE) if view.folder else REQUIREMENTS_FILE
        if view.path != sibling and _exists(self.workspace, sibling):
            return REQUIREMENTS_FILE
        return None

    def unfold_navs(self, view: DocumentView) -> dict[str, list[str]]:
        """Menus of a whole page this topic has not seen yet, name -> entry lines to show unfolded above it (String
        shows each menu file's entries once per topic, then only names it). They count as seen from now on; a menu
        file that cannot be read stays folded."""
        if view.kind != "markdown" or view.block or not view.index.menus:
            return {}
        from stringsh.documents.shortcuts import page_menus
        from stringsh.nav.menus import first_view_lines

        seen = self.session.seen_navs
        unfolded: dict[str, list[str]] = {}
        for menu in page_menus(self, view):
            if menu.error is None and menu.path not in seen:
                seen.add(menu.path)
                unfolded[menu.name] = first_view_lines(menu)
        return unfolded

    def default_action_output(self, view: DocumentView) -> str | None:
        """Front matter `default: <action>` of a whole local page: that action's output, to show after the page;
        None when there is none. The action machinery is imported only for pages that name one."""
        if view.kind != "markdown" or view.block or view.remote:
            return None
        name = view.index.front_matter.get("default")
        if not isinstance(name, str) or not name.strip():
            return None
        from stringsh.documents.actions import run_default

        return run_default(self, view, name)

    def include_loader(self, view: DocumentView) -> IncludeLoader | None:
        """Loads `[!include:id](path)` targets relative to the including document, through the engine; None for a
        remote page (it includes no local file)."""
        if view.remote:
            return None
        from stringsh.render.document import Document, is_markdown

        workspace, topic, cache = self.workspace, self.topic, self.state.index_cache

        def load(path: str, base: str) -> tuple[str, Document]:
            base = base or view.path
            target = posixpath.normpath(posixpath.join(posixpath.dirname(base), path)) if path else base
            rel = workspace.relative(target)
            text_file = workspace.read_text(rel, topic=topic)
            text = workspace.redact_lines(text_file.text)  # an include is shown, never edited: mask it at the source
            sha256 = text_file.sha256 if text == text_file.text else ""  # a masked text is indexed as itself
            if not is_markdown(text_file.rel):
                return text_file.rel, Document(text, sha256)
            return text_file.rel, Document.parse(text, sha256, cache)

        return load


def _exists(workspace: Workspace, path: str) -> bool:
    """Whether `path` names something reachable; a refused path is simply not a candidate here."""
    try:
        return workspace.stat(path) is not None
    except StringError:
        return False
