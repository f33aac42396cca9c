"""`/symbols` answered from the persistent symbol index (symbolstore.py): which files a search can skip, load or
read by their rows, and the whole-workspace answer from the last walk of a running process's indexer.

Everything here gives what the walk-and-parse search of symbolsearch.py gives for the same tree: the same files
counted, in the same order, the same hits and occurrences; whatever the index cannot say (a row it cannot read, a
name touching the mask) is left to that search.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from stringsh.documents import symbolsearch
from stringsh.documents.symbolsearch import Hit, Matcher, Ref, SearchResult, _refs
from stringsh.errors import StringError
from stringsh.render.code.index import SymbolIndex, build_symbols
from stringsh.render.code.languages import language_of
from stringsh.workspace import decode

if TYPE_CHECKING:
    from stringsh.documents.symbolstore import Identity, Row, Snapshot, Stored, Walked
    from stringsh.workspace import SearchFile, SearchWalk, Workspace


def answer_walked(ws: Workspace, walking: SearchWalk, walked: Walked, snapshot: Snapshot, query: str, refs: bool,
                   needles: tuple[bytes | None, bytes | None], masking: int, most: int) -> SearchResult | None:
    """A search of the whole workspace answered from the last walk of the indexer of a running process (nothing
    changed since, the watcher says): the same files in the same order, counted as that walk counted them, each
    held in the index or this process's memory by the identity the walk saw. Every file in the answer is met again
    through the engine (`walking.files(rel)`: the confiner's rules, its identity now): one that changed makes this
    None, and the search walks the tree instead."""
    started = time.monotonic()
    shown = ws.redactor
    wanted = None if refs else Matcher(query, shown.meets_mask)
    needle, defines = needles
    masked = refs and shown.meets_mask(query)
    result = SearchResult(".")
    stopped = None
    for rel, key, held, counts in walked.files:
        if held == "never":
            continue  # unreadable as text: a search never counts it
        stored = snapshot.known(rel, key) if held == "stored" else None
        text, index = None, None
        if held == "stored":
            got = from_index(snapshot, stored, needle, defines, refs) if stored is not None else None
            if got is False:
                continue
            if got is None:
                return None
            index = got if isinstance(got, SymbolIndex) else None
        else:
            entry = symbolsearch.REMEMBERED.get((rel, *key, masking))
            if entry is None or entry[1] is None or entry[2] is None:
                return None
            words, text, index = entry
            if needle is not None and needle not in words:
                continue
        result.indexed += 1
        before = len(result.refs) + len(result.hits)
        hits = [] if index is None or refs else hits_in(rel, index, wanted, shown, stored)  # type: ignore[arg-type]
        rows = ref_rows(snapshot, stored, query, masked) if refs and stored is not None else None
        if hits or (refs and rows != []):
            with _again(walking, rel, key) as found:
                if found is None:
                    return None
                if refs and stored is not None:
                    stored_refs(ws, found, query, rows, stored, snapshot, result, most)
                elif refs:
                    _refs(ws, rel, text, index, query, result, most)  # type: ignore[arg-type]
        result.hits += hits
        if len(result.refs) + len(result.hits) > before:
            result.files += 1
        if len(result.hits) + len(result.refs) >= most:
            result.truncated, stopped = True, counts
            walking.stop("results")
            break
    done = walked.final if stopped is None else stopped._replace(scan_limit_reached=True,
                                                                  scan_limit_reason="results")
    result.traversal = done._replace(elapsed_ms=int((time.monotonic() - started) * 1000))
    return result


@contextlib.contextmanager
def _again(walking: SearchWalk, rel: str, key: Identity) -> Iterator[SearchFile | None]:
    """The file at `rel` met again through the engine while the block runs (readable there), None when it is
    refused or is no longer the file the walk saw."""
    try:
        files = iter(walking.files(rel))
    except StringError:
        yield None
        return
    try:
        found = next(files, None)
        yield found if found is not None and found.key == key else None
    finally:
        files.close()  # type: ignore[attr-defined]


def hits_in(rel: str, index: SymbolIndex, wanted: Matcher, shown: Callable[[str], str], stored: Stored | None,
            ) -> list[Hit]:
    """The file's definitions the query matches, as shown (a file the index holds as plain: no byte of it can be
    masked, so each name is shown as it is)."""
    plain = stored is not None and stored.plain
    if plain or wanted.raw_first:
        return [Hit(rel, index.symbol(i)) for i, row in enumerate(index.rows)
                if wanted(row[0], row[1]) and (plain or wanted(shown(row[0]), shown(row[1])))]
    return [Hit(rel, index.symbol(i)) for i, row in enumerate(index.rows) if wanted(shown(row[0]), shown(row[1]))]


def ref_rows(snapshot: Snapshot, stored: Stored, name: str, masked: bool) -> list[Row] | None:
    """The index's occurrences of `name` in a file; None when only the file's text can say (`masked`: a name
    touching the mask is compared as each identifier is shown)."""
    return None if masked else snapshot.occurrences(stored, name)


def defines_of(query: str, needle: bytes | None, refs: bool) -> bytes | None:
    """What every qualified name a definitions search matches holds, lowercased (a file whose definitions lack it
    has no hit; None when that cannot be said): the query itself, or a glob's longest literal run (not through a
    `[…]` class)."""
    if refs:
        return None
    if any(c in query for c in "*?["):
        return None if "[" in query else needle
    return query.lower().encode("utf-8", "surrogatepass")


def from_index(snapshot: Snapshot, stored: Stored, needle: bytes | None, defines: bytes | None,
                refs: bool) -> SymbolIndex | bool | None:
    """A file the symbol index holds as the walk met it: False when its words lack the needle (not counted), True
    when it counts but holds nothing to load (no definition can match; a `--refs` search reads occurrences
    instead), its symbol index otherwise, None when the index cannot give it (the file is then read as before)."""
    if needle is not None and needle not in stored.words:
        return False
    if refs or (defines is not None and defines not in stored.defined):
        return True
    return snapshot.store.index(stored)


def stored_refs(ws: Workspace, found: SearchFile, name: str, rows: list[Row] | None, stored: Stored,
                snapshot: Snapshot, result: SearchResult, most: int) -> None:
    """`--refs` in a file the index holds: a file whose rows hold no occurrence of `name` is passed over unread;
    another is read now for its lines, each occurrence's role by scope taken from its row while its bytes are the
    indexed ones (else parsed, as without the index)."""
    shown = ws.redactor
    if shown(name) != name or rows == []:
        return
    raw = found.read()
    if raw is None:
        return
    try:
        text = decode(raw, found.rel)[0]
    except StringError:
        return
    indexed = hashlib.sha256(raw).hexdigest() == stored.sha256
    if rows is not None and indexed:
        lines = text.split("\n")
        for line, column, role, container, via in rows:
            if len(result.refs) >= most:
                return
            result.refs.append(Ref(found.rel, line, column, ws.redact_lines(lines[line - 1].rstrip("\r")), role,
                                   shown(container), shown(via)))
        return
    index = snapshot.store.index(stored) if indexed else None
    if index is None:
        language = language_of(found.rel, text)
        assert language is not None
        index = build_symbols(text, language)
    _refs(ws, found.rel, text, index, name, result, most)
