"""A file's block ids as `#` accepts them (`/open path#id`, `/edit path#Symbol`), read through the engine for
completion: a markdown file's markers and headings, a source file's symbols, nothing for other files. Shared by
the REPL's completion (repl/sources.py) and MCP's `completion/complete` (dialects/mcp/completion.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.render.document import Document, is_markdown

if TYPE_CHECKING:
    from stringsh.documents.state import DocumentState
    from stringsh.render.code.index import SymbolIndex
    from stringsh.render.index import DocIndex
    from stringsh.workspace import TextFile, Workspace

#: Files bigger than this are not indexed for completion (the user can still type the id).
MAX_INDEX_CHARS = 2 * 1024 * 1024


def read_small(workspace: Workspace, path: str, topic: str) -> TextFile | None:
    """The file's text for completion, None when it cannot be read or is too big to index while typing."""
    try:
        text_file = workspace.read_text(path, topic=topic)
    except (StringError, OSError, ValueError):
        return None
    return text_file if len(text_file.text) <= MAX_INDEX_CHARS else None


def file_index(workspace: Workspace, documents: DocumentState, path: str, topic: str
               ) -> DocIndex | SymbolIndex | None:
    """The index of a markdown or source file read through the engine (its confinement and secret rules)."""
    if not is_markdown(path):
        return _symbols(workspace, documents, path, topic)  # a source file's blocks are its symbols
    text_file = read_small(workspace, path, topic)
    if text_file is None:
        return None
    return Document.parse(text_file.text, text_file.sha256, documents.index_cache).index


def _symbols(workspace: Workspace, documents: DocumentState, path: str, topic: str) -> SymbolIndex | None:
    from stringsh.render.code.suffixes import language_of

    language = language_of(path)
    text_file = read_small(workspace, path, topic) if language is not None else None
    if language is None or text_file is None:
        return None
    from stringsh.render.code.cache import symbol_cache

    cache = symbol_cache(documents.index_cache)
    return cache.symbols(text_file.text, language_of(path, text_file.text) or language, text_file.sha256)
