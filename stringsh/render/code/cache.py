"""Symbol indexes in the signed index cache: the markdown cache's memory, disk folder, key and checks, with
entries of their own (keyed by content hash and language, so a `.h` read as C and as C++ never mix)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from stringsh.render.cache import IndexCache
from stringsh.render.code.index import SYMBOL_VERSION, SymbolIndex, build_symbols, encode_source

#: Asked on a miss before parsing (set by the documents layer's persistent symbol index, symbolstore.py):
#: (sha256 of the bytes, language) → the index a running process's indexer already made of that content, or None.
_elsewhere: Callable[[str, str], SymbolIndex | None] | None = None


def look_elsewhere(lookup: Callable[[str, str], SymbolIndex | None] | None) -> None:
    global _elsewhere
    _elsewhere = lookup


class SymbolCache(IndexCache):
    """(sha256, language) → SymbolIndex; made beside a workspace's markdown cache (`symbol_cache`)."""

    def _name(self, sha256: str) -> str | None:
        if self.directory is None or len(sha256) < 16 or not sha256.isalnum():
            return None
        return f"{sha256}.v{SYMBOL_VERSION}.sym"

    def _decode(self, data: tuple[Any, ...]) -> SymbolIndex:  # type: ignore[override]
        return SymbolIndex.from_tuple(data)

    def symbols(self, text: str, language: str, sha256: str = "") -> SymbolIndex:
        """The index of a text, from the cache or built (and stored) on a miss."""
        data = None
        if not sha256:
            data = encode_source(text)
            sha256 = hashlib.sha256(data).hexdigest()
        key = f"{sha256}{language}"
        found = self.lookup(key)
        if not isinstance(found, SymbolIndex) and _elsewhere is not None:
            found = _elsewhere(sha256, language)
            if found is not None:
                self.put(key, found, len(text))
        if not isinstance(found, SymbolIndex):
            found = build_symbols(text, language, data)
            # a parse past its time budget is remembered in memory only: a busy moment does not outlive the process
            self.put(key, found, 0 if found.unparsed else len(text))  # type: ignore[arg-type]
        return found


_MEMORY_ONLY = SymbolCache(None)


def symbol_cache(markdown: IndexCache | None) -> SymbolCache:
    """The symbol cache beside a workspace's markdown cache: same folder, key and trusted base (made once per
    markdown cache); a process-wide memory-only one without it."""
    if markdown is None:
        return _MEMORY_ONLY
    found = markdown.__dict__.get("_symbols")
    if found is None:
        found = SymbolCache(markdown.directory, key=markdown.signing_key, base=markdown.base)
        markdown.__dict__["_symbols"] = found
    return found
