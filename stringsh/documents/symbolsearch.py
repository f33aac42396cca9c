"""`/symbols`: definitions and identifier occurrences across the workspace, on the engine's confined walk.

The walk is /grep's, asked of the engine (`Workspace.search_walk`): the same confinement, secrets, `.stringsh/` and
`.git/` skipped, `.gitignore`, walk limits and read limit, under the grep permission, one audit record. A file is
parsed only when its bytes hold the name asked for; an index is remembered by the file's identity and stat (and by
content in the symbol cache), so a second search reads and parses only what changed. When many files are not known
yet (a first search), the engine's own grep (`Workspace.grep`, ripgrep when installed) names the files that hold
the name, under the same walk and limits, and only those are read; the files it passes over are remembered, per
name, as not holding it.

Names are matched as they are shown, secrets masked: a function named after a token is `***REDACTED***` to every
query (a glob, a part of a qualified id, `--refs`' exact name, the ranking), so a masked name is never found, or
ranked, a character at a time; the mask itself can be searched for (such a query reads every file).
"""

from __future__ import annotations

import fnmatch
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.documents.symbolstore import kick, store_for
from stringsh.errors import StringError
from stringsh.render.code.index import SymbolIndex, build_symbols
from stringsh.render.code.languages import language_of
from stringsh.render.code.occurrences import occurrences
from stringsh.workspace import decode

if TYPE_CHECKING:
    from stringsh.render.code.index import Symbol
    from stringsh.workspace import SearchFile, SearchWalk, Traversal, Workspace

#: Files remembered by stat between searches (each entry is one file's symbol rows).
REMEMBERED_FILES = 200_000
#: Files not known yet after which a search asks the engine's grep which of them hold the name.
PREFILTER_AFTER = 256
#: Names whose files-without-them are remembered (the oldest name is dropped first).
REMEMBERED_NAMES = 32


@dataclass(frozen=True)
class Hit:
    path: str
    symbol: Symbol


@dataclass(frozen=True)
class Ref:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    text: str  # the line, masked
    role: str = "use"  # render/code/occurrences.py ROLES
    container: str = ""  # the id of the innermost symbol holding it, as shown; "" at top level
    via: str = ""  # qualified and member access: what is before the name (`json`, `self`), as shown


@dataclass
class SearchResult:
    path: str
    hits: list[Hit] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    files: int = 0  # files with a result
    indexed: int = 0  # source files parsed or found indexed
    truncated: bool = False
    one_file: bool = False
    traversal: Traversal | None = None


#: (path, device, inode, size, mtime, the masking's identity): words are kept as masked, so as the policy masks.
Key = tuple[str, int, int, int, int, int]
#: What is kept of a file: its whitespace-separated runs as shown (lowercased, once each: every word is inside one;
#: a secret's are the mask's), and its text and index once it was parsed.
Entry = tuple[bytes, "str | None", "SymbolIndex | None"]
#: A run of word characters (bytes of UTF-8 letters outside ASCII count): the part of a query a file must hold.
WORDS = re.compile(rb"[\w\x80-\xff]+")


class Remembered:
    """(path, device, inode, size, mtime) → what a search learnt of the file, for later searches in one process:
    a file whose words cannot hold the name is not read again while it is unchanged."""

    def __init__(self) -> None:
        self._entries: OrderedDict[Key, Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key) -> Entry | None:
        return self._entries.get(key)  # one dict read: atomic, and never waits on a writer

    def put(self, key: Key, entry: Entry) -> None:
        with self._lock:
            self._entries[key] = entry
            while len(self._entries) > REMEMBERED_FILES:
                self._entries.popitem(last=False)


REMEMBERED = Remembered()


class Absent:
    """needle → the files (by identity and stat) the engine's grep found not holding it, for later searches of the
    same name in one process: such a file is passed over, unread, while it is unchanged."""

    def __init__(self) -> None:
        self._names: OrderedDict[bytes, set[Key]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, needle: bytes) -> set[Key]:
        with self._lock:
            found = self._names.pop(needle, None)
            self._names[needle] = found = found if found is not None else set()
            while len(self._names) > REMEMBERED_NAMES:
                self._names.popitem(last=False)
            return found


ABSENT = Absent()


class Prefilter:
    """The files that may hold `needle` under one searched path: asked of `Workspace.grep` (case-insensitive, the
    same walk, limits and secrets as /grep) once PREFILTER_AFTER files were not known; None until then, or when
    grep's results ran out (then every file is read, as without it)."""

    def __init__(self, ws: Workspace, needle: bytes | None, path: str, topic: str | None) -> None:
        self.ws, self.path, self.topic = ws, path, topic
        self.needle = needle.decode("utf-8", "surrogatepass") if needle is not None else None
        self.absent = ABSENT.of(needle) if needle is not None else set()
        self.unknown = 0
        self.holding: set[str] | None = None
        self.asked = needle is None

    def skips(self, rel: str, key: Key | None, stored: bool = False) -> bool:
        """Whether the file surely lacks the name (grep passed over it, now or in an earlier search); a file the
        symbol index holds as it is (`stored`) is known."""
        if key is not None and key in self.absent:
            return True
        if stored or (key is not None and REMEMBERED.get(key) is not None):
            return False
        self.unknown += 1
        if not self.asked and self.unknown >= PREFILTER_AFTER:
            self.asked = True
            found = self.ws.grep(self.needle or "", self.path, ignore_case=True, topic=self.topic)
            self.holding = None if found.truncated else {line.path for line in found.lines}
        if self.holding is None or rel in self.holding:
            return False
        if key is not None:
            self.absent.add(key)
        return True


def needle_of(query: str, meets_mask: Callable[[str], bool] | None = None) -> bytes | None:
    """The longest run of word characters of the query, lowercased: every file with a match holds it (a
    qualified `Parser.parse` need not be written so in the file, its parts are). None when it may overlap the mask
    (`meets_mask`): a masked name holds it where the file does not."""
    parts = [part for part in WORDS.findall(query.lower().encode("utf-8", "surrogatepass"))]
    needle = max(parts, key=len) if parts else None
    if needle is not None and meets_mask is not None and meets_mask(needle.decode("utf-8", "surrogatepass")):
        return None
    return needle


class Matcher:
    """A test of (qualified id, name): a glob (`*`, `?`, `[`) matches the name or qualified id, case-insensitively;
    other text is a case-insensitive part of the qualified id. `raw_first`: a name masking changes can match only if
    its own text does (a plain query that cannot meet the mask: its match in masked text lies outside every mask),
    so its own text is tested first and only a match is masked and tested again."""

    def __init__(self, query: str, meets_mask: Callable[..., bool]) -> None:
        self.folded = query.lower()
        self.glob = any(c in query for c in "*?[")
        self.raw_first = not self.glob and not meets_mask(query, ignore_case=True)

    def __call__(self, qualified: str, name: str) -> bool:
        if self.glob:
            return fnmatch.fnmatchcase(name.lower(), self.folded) or fnmatch.fnmatchcase(qualified.lower(),
                                                                                        self.folded)
        return self.folded in qualified.lower()


def search(ws: Workspace, query: str, paths: list[str], *, refs: bool = False, limit: int | None = None,
           topic: str | None = None) -> SearchResult:
    """Definitions matching `query` (or, with `refs`, identifiers named exactly `query`) under `paths`."""
    op = "symbols --refs" if refs else "symbols"
    walking = ws.search_walk(paths, command=f"{op} {query}", topic=topic)  # NOT_PERMITTED before a bad query
    if not query:
        raise StringError("INVALID_PAYLOAD", "/symbols needs a name or pattern", "Example: /symbols parse src")
    most = ws.policy.limits.max_results if limit is None else max(1, min(limit, ws.policy.limits.max_results))
    shown = ws.redactor
    needle = needle_of(query, lambda text: shown.meets_mask(text, ignore_case=True))
    wanted = None if refs else Matcher(query, shown.meets_mask)
    result = SearchResult(paths[0] if len(paths) == 1 else ".")
    masking = hash((shown.sources, shown.replacement))
    from stringsh.documents.symbolindexed import answer_walked, defines_of, from_index, hits_in, ref_rows, stored_refs

    kick(ws)
    indexed = store_for(ws) if query else None
    defines = None if shown.meets_mask(query, ignore_case=True) else defines_of(query, needle, refs)
    masked = refs and shown.meets_mask(query)
    with walking:
        snapshot = indexed.snapshot() if indexed is not None else None
        seen = _seen(paths)
        for path in paths:
            searched = walking.files(path)
            if len(paths) == 1:
                result.path, result.one_file = searched.rel, searched.one_file
                walked = indexed.live() if indexed is not None and searched.rel == "." else None
                if walked is not None and snapshot is not None:
                    fast = answer_walked(ws, walking, walked, snapshot, query, refs, (needle, defines), masking,
                                          most)
                    if fast is not None:
                        fast.path, fast.one_file = result.path, result.one_file
                        result = fast
                        break
            prefilter = Prefilter(ws, needle, path, topic)
            for found in searched:
                if not _new_source(found.rel, seen):
                    continue
                key = _key(found, masking)
                stored = snapshot.known(found.rel, found.key) if snapshot is not None else None
                if prefilter.skips(found.rel, key, stored is not None):
                    continue
                held = from_index(snapshot, stored, needle, defines, refs) \
                    if stored is not None and (key is None or REMEMBERED.get(key) is None) else None
                if held is False:
                    continue  # the file's words do not hold the name
                text, index = None, held if isinstance(held, SymbolIndex) else None
                if held is None:
                    stored = None
                    loaded = _load(ws, found, key, needle)
                    if loaded is None:
                        continue
                    text, index = loaded
                result.indexed += 1
                before = len(result.refs) + len(result.hits)
                if refs and stored is not None:
                    rows = ref_rows(snapshot, stored, query, masked)  # type: ignore[arg-type]
                    stored_refs(ws, found, query, rows, stored, snapshot, result, most)  # type: ignore[arg-type]
                elif refs:
                    _refs(ws, found.rel, text, index, query, result, most)  # type: ignore[arg-type]
                elif index is not None:
                    result.hits += hits_in(found.rel, index, wanted, shown, stored)  # type: ignore[arg-type]
                if len(result.refs) + len(result.hits) > before:
                    result.files += 1
                if len(result.hits) + len(result.refs) >= most:
                    result.truncated = True
                    walking.stop("results")
                    break
            if result.truncated:
                break
        if result.traversal is None:  # else answered from the indexer's walk, counted as it counted
            result.traversal = walking.traversal()
    return _ranked(result, query, most, shown)  # stable: path order within


def _ranked(result: SearchResult, query: str, most: int, shown: Callable[[str], str]) -> SearchResult:
    query_folded = query.lower()
    result.hits.sort(key=lambda hit: _rank(shown(hit.symbol.name), shown(hit.symbol.qualified), query, query_folded))
    del result.hits[most:]
    del result.refs[most:]
    return result


def _seen(paths: list[str]) -> set[str] | None:
    """The files met so far, when several paths may reach one file twice (it is searched once); None for one."""
    return set() if len(paths) > 1 else None


def _new_source(rel: str, seen: set[str] | None) -> bool:
    """Whether `rel` is a source file not met yet under another of the paths (and now met)."""
    if language_of(rel) is None or (seen is not None and rel in seen):
        return False
    if seen is not None:
        seen.add(rel)
    return True


def _sources(ws: Workspace, walking: SearchWalk, paths: list[str], needle: bytes | None, masking: int,
             topic: str | None, result: SearchResult) -> Iterator[tuple[str, str, SymbolIndex]]:
    """(path, text, symbol index) of each source file under `paths` whose words may hold `needle`, once each, in
    walk order; `result` learns what the paths are (one file, or a folder)."""
    seen = _seen(paths)
    for path in paths:
        searched = walking.files(path)
        if seen is None:
            result.path, result.one_file = searched.rel, searched.one_file
        prefilter = Prefilter(ws, needle, path, topic)
        for found in searched:
            if not _new_source(found.rel, seen):
                continue
            key = _key(found, masking)
            if prefilter.skips(found.rel, key):
                continue
            loaded = _load(ws, found, key, needle)
            if loaded is not None:
                yield found.rel, *loaded


def sources(ws: Workspace, name: str, paths: list[str], *, command: str,
            topic: str | None = None) -> tuple[list[tuple[str, str, SymbolIndex]], Traversal]:
    """Every source file under `paths` that may hold the identifier `name` (its path, text and symbol index), on
    the same walk, prefilter and memory as `search`: the candidates references.py reads by scope."""
    walking = ws.search_walk(paths, command=command, topic=topic)
    masking = hash((ws.redactor.sources, ws.redactor.replacement))
    needle = needle_of(name, lambda text: ws.redactor.meets_mask(text, ignore_case=True))
    with walking:
        found = list(_sources(ws, walking, paths, needle, masking, topic, SearchResult(".")))
        return found, walking.traversal()


def _rank(name: str, qualified: str, query: str, folded: str) -> int:
    """Exact names first, then the same name in another case, then qualified ids ending in it, then the rest (the
    name and qualified id as shown)."""
    if name == query or qualified == query:
        return 0
    if name.lower() == folded:
        return 1
    return 2 if qualified.lower().endswith("." + folded) else 3


def _load(ws: Workspace, found: SearchFile, key: Key | None, needle: bytes | None,
          symbols: bool = True) -> tuple[str, SymbolIndex | None] | None:
    """The file's text and symbol index (None without `symbols`: a `--refs` search parses for identifiers only),
    None when its words as shown cannot hold the name (or it cannot be read as text); what is learnt is kept by the
    file's stat for the next search. Only a file masking may change is decoded before its words are known: a name
    must not be found (nor the file counted as indexed) by a secret's text."""
    entry = REMEMBERED.get(key) if key is not None else None
    if entry is not None:
        words, text, index = entry
        if needle is not None and needle not in words:
            return None
        if text is not None and (index is not None or not symbols):
            return text, index
    raw = found.read()
    if raw is None:
        return None
    text: str | None = None
    shown = raw
    if ws.redactor.may_mask(raw):
        try:
            text = decode(raw, found.rel)[0]
        except StringError:
            return None
        shown = ws.redact_lines(text).encode("utf-8", "surrogatepass")
    words = b"\n".join(set(shown.lower().split()))  # whitespace-separated runs hold every word (fast in C)
    if needle is not None and needle not in words:
        if key is not None:
            REMEMBERED.put(key, (words, None, None))
        return None
    if text is None:
        try:
            text = decode(raw, found.rel)[0]
        except StringError:
            return None
    language = language_of(found.rel, text)
    assert language is not None
    index = build_symbols(text, language) if symbols else None
    if key is not None:
        REMEMBERED.put(key, (words, text, index))
    return text, index


def remember(ws: Workspace, found: SearchFile) -> bool:
    """Keep in this process's memory what a search learns of a file masking changes (its words, text and index,
    all as shown), as a search would: such a file is never stored in the symbol index. False when it cannot be."""
    shown = ws.redactor
    key = _key(found, hash((shown.sources, shown.replacement)))
    loaded = _load(ws, found, key, None) if key is not None else None
    return loaded is not None and loaded[1] is not None


def _key(found: SearchFile, masking: int) -> Key | None:
    key = found.key
    return (found.rel, *key, masking) if key is not None else None


def _refs(ws: Workspace, rel: str, text: str, index: SymbolIndex, name: str, result: SearchResult,
          most: int) -> None:
    """Identifiers spelled `name` as shown, each with its role by scope and its containing symbol
    (render/code/occurrences.py: syntactic, definitions included; an identifier masking changes is its mask, never
    its own text). Within the parse's time budget (a file past it has no identifiers, as it has no symbols)."""
    shown = ws.redactor
    if shown(name) != name:
        return  # a name that is itself a secret: no identifier is shown so
    if shown.meets_mask(name):  # the mask's own text: each identifier compared as it is shown
        found = [o for o in occurrences(text, index.language, index.symbols) if shown(o.name) == name]
    else:  # an identifier shown as `name` is spelled so, and masking leaves it alone
        found = occurrences(text, index.language, index.symbols, (name,))
    if not found:
        return
    lines = text.split("\n")
    for occurrence in found:
        if len(result.refs) >= most:
            return
        line = ws.redact_lines(lines[occurrence.line - 1].rstrip("\r"))
        result.refs.append(Ref(rel, occurrence.line, occurrence.column, line, occurrence.role,
                               shown(occurrence.container), shown(occurrence.via)))
