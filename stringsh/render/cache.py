"""The index cache, keyed by content hash: in memory for every topic of a dispatcher, on disk under `.stringsh/cache/`.

A repeat open of an unchanged file, even from a new `stringsh -c` process, loads a small marshal blob instead of
scanning the text again. The cache is an optimisation only: a missing, stale or corrupt entry is rebuilt silently.
Below the workspace root the cache folders are opened without following symlinks, so a planted `.stringsh` link
never leads reads or writes out of the workspace.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stringsh.render.index import INDEX_VERSION, DocIndex, build_index

try:  # hashlib's own BLAKE2b and compare_digest: importing hashlib or hmac loads OpenSSL (~5 ms) a repeat open
    from _blake2 import blake2b  # never needs
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover - another Python implementation
    from hashlib import blake2b
    from hmac import compare_digest

MEMORY_ENTRIES = 64
#: Version of a mask entry's layout (the redactor's patterns are in its name, see `lookup_mask`).
MASK_VERSION = 3
#: (0-based line, the line as masked) of every line a redactor changes; [] when it changes none.
Mask = list[tuple[int, str]]
#: A mask record: whether the text's bytes are UTF-8 without a BOM, and its `Mask`.
MaskRecord = tuple[bool, Mask]
MAC_BYTES = 32
#: Documents smaller than this are indexed faster than a disk entry is written; they stay in memory only.
DISK_MIN_BYTES = 16 * 1024
#: An entry larger than this was not written by stringsh (an index is a small fraction of its document's size).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: Version of an identity entry's layout (`lookup_identity`).
IDENTITY_VERSION = 1
#: The racy window, as git's index has one: a file whose ctime or mtime is not this much older than the moment its
#: bytes were read and hashed may change again without changing its identity (a coarse clock tick, a file system
#: that keeps whole seconds or, as FAT, two), so its identity is never recorded; the next whole read records it.
RACY_NS = 2_000_000_000

#: Gives the secret that signs disk entries, or None (then there is no disk cache). Called once, on the first disk
#: access, so opening small documents never creates or reads the key.
KeySource = Callable[[], "bytes | None"]


class IndexCache:
    """sha256 → DocIndex; safe to share between topics and threads."""

    def __init__(
        self, directory: Path | str | None, *, key: KeySource | None = None, base: Path | str | None = None
    ) -> None:
        """`key` signs disk entries (without one the cache is memory only); `base`, when given, is a trusted folder
        above `directory`: the folders between are never symlinks."""
        self.directory = Path(directory) if directory is not None else None
        self.base = Path(base) if base is not None else None
        self._key_source = key
        self._key: bytes | None = None
        self._key_read = False
        self._memory: OrderedDict[str, DocIndex] = OrderedDict()
        self._masks: OrderedDict[tuple[str, str], MaskRecord] = OrderedDict()
        self._lock = threading.Lock()

    def signing_key(self) -> bytes | None:
        """The key disk entries are signed with, asked of the key source once."""
        with self._lock:
            if not self._key_read:
                self._key = self._key_source() if self._key_source is not None else None
                self._key_read = True
            return self._key

    def _name(self, sha256: str) -> str | None:
        if self.directory is None or len(sha256) < 16 or not sha256.isalnum():
            return None
        return f"{sha256}.v{INDEX_VERSION}.idx"

    def _open_directory(self, create: bool) -> int:
        """A descriptor of the cache folder, reached from `base` one folder at a time without following symlinks."""
        assert self.directory is not None
        if self.base is None:
            if create:
                self.directory.mkdir(parents=True, exist_ok=True)
            return os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
        from stringsh.workspace import open_folders

        base = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY)
        try:
            return open_folders(base, self.directory.relative_to(self.base).parts, create=create)
        finally:
            os.close(base)

    def lookup(self, sha256: str) -> DocIndex | None:
        """The index of a content hash from memory or disk, None when it was never built."""
        with self._lock:
            index = self._memory.get(sha256)
            if index is not None:
                self._memory.move_to_end(sha256)
                return index
        index = self._load(sha256)
        if index is not None:
            with self._lock:
                self._memory[sha256] = index
                while len(self._memory) > MEMORY_ENTRIES:
                    self._memory.popitem(last=False)
        return index

    def get(self, sha256: str, text: str, lines: list[str] | None = None) -> DocIndex:
        """The index of a text, built (and stored) on a miss."""
        index = self.lookup(sha256)
        if index is None:
            index = build_index(text, lines)
            self.put(sha256, index, len(text))
        return index

    def put(self, sha256: str, index: DocIndex, size: int) -> None:
        """Remember an index computed elsewhere (a block edit updates the old one instead of re-scanning)."""
        if size >= DISK_MIN_BYTES:
            self._store(sha256, index)
        with self._lock:
            self._memory[sha256] = index
            while len(self._memory) > MEMORY_ENTRIES:
                self._memory.popitem(last=False)

    def _load(self, sha256: str) -> DocIndex | None:
        name = self._name(sha256)
        data = self._load_blob(name) if name is not None else None
        try:
            return self._decode(data) if data is not None else None
        except (ValueError, TypeError):
            return None

    def _decode(self, data: Any) -> DocIndex:
        """An entry's index from its marshalled tuple (a cache of another index kind overrides this)."""
        return DocIndex.from_tuple(data)

    def _store(self, sha256: str, index: DocIndex) -> None:
        name = self._name(sha256)
        if name is not None:
            self._store_blob(name, index.to_tuple())

    # -- masks: which lines a redactor changes ------------------------------------------------------------------
    def lookup_mask(self, sha256: str, redactor_key: str, size: int | None = None) -> MaskRecord | None:
        """Whether the bytes of `sha256` are UTF-8 without a BOM and the lines `redactor_key`'s redactor changes in
        their text (`(line, masked line)`, [] for none); None when never worked out. The hash pins the bytes (and so
        the text), the key the patterns. `size` (of the text or its bytes), when under DISK_MIN_BYTES, says no disk
        entry can exist (`put_mask` keeps none): only memory is looked in."""
        memo = (sha256, redactor_key)
        with self._lock:
            mask = self._masks.get(memo)
        if mask is not None or (size is not None and size < DISK_MIN_BYTES):
            return mask
        name = self._mask_name(sha256, redactor_key)
        data = self._load_blob(name) if name is not None else None
        if (not isinstance(data, tuple) or len(data) != 3 or data[0] != MASK_VERSION or not isinstance(data[1], bool)
                or not isinstance(data[2], list)):
            return None
        mask = (data[1], data[2])
        with self._lock:
            self._masks[memo] = mask
            while len(self._masks) > MEMORY_ENTRIES:
                self._masks.popitem(last=False)
        return mask

    def put_mask(self, sha256: str, redactor_key: str, mask: MaskRecord, size: int) -> None:
        """Remember what the redactor changes in a text (see `lookup_mask`)."""
        name = self._mask_name(sha256, redactor_key)
        if name is not None and size >= DISK_MIN_BYTES:
            self._store_blob(name, (MASK_VERSION, *mask))
        with self._lock:
            self._masks[(sha256, redactor_key)] = mask
            while len(self._masks) > MEMORY_ENTRIES:
                self._masks.popitem(last=False)

    def _mask_name(self, sha256: str, redactor_key: str) -> str | None:
        name = self._name(sha256)
        if name is None or len(redactor_key) < 16 or not redactor_key.isalnum():
            return None
        return f"{sha256}.m{redactor_key[:32]}.idx"

    # -- identities: a file's stat as the content hash read from it ---------------------------------------------
    def lookup_identity(self, rel: str, identity: tuple[int, ...]) -> str | None:
        """The sha256 recorded for `rel` when the file had exactly `identity` (device, inode, size, mtime, ctime:
        `identity_of` in workspace/ops/read.py), None otherwise. Disk only, signed like every entry: a running
        process keeps the views it read."""
        if len(identity) != 5 or identity[2] < DISK_MIN_BYTES:
            return None  # (a small file is read whole: none is recorded, and none is looked for on disk)
        name = self._identity_name(rel)
        data = self._load_blob(name) if name is not None else None
        if (not isinstance(data, tuple) or len(data) != 5 or data[0] != IDENTITY_VERSION or data[1] != rel
                or data[2] != tuple(identity) or not isinstance(data[3], str) or not isinstance(data[4], int)
                or len(identity) != 5 or max(identity[3], identity[4]) >= data[4] - RACY_NS):
            return None
        return data[3]

    def put_identity(self, rel: str, identity: tuple[int, ...], sha256: str, read_ns: int) -> bool:
        """Record that `rel`, with `identity` as it was opened at `read_ns` (before its bytes were read), holds the
        bytes of `sha256`; never for a racy file (see RACY_NS). True when recorded."""
        name = self._identity_name(rel)
        if name is None or len(identity) != 5 or max(identity[3], identity[4]) >= read_ns - RACY_NS:
            return False
        self._store_blob(name, (IDENTITY_VERSION, rel, tuple(identity), sha256, read_ns))
        return True

    # -- line counts: a file paged in windows costs a read of it all to count its lines -------------------------
    def lookup_lines(self, rel: str) -> tuple[tuple[int, ...], int] | None:
        """The identity `rel` had when its lines were counted, and the count: the read compares the identity with
        the file it opens, and trusts the count only for exactly that file. Signed like every entry."""
        name = self._identity_name(rel, "l")
        data = self._load_blob(name) if name is not None else None
        if (not isinstance(data, tuple) or len(data) != 5 or data[0] != IDENTITY_VERSION or data[1] != rel
                or not isinstance(data[2], tuple) or len(data[2]) != 5
                or not all(isinstance(value, int) for value in data[2]) or not isinstance(data[3], int)
                or not isinstance(data[4], int) or max(data[2][3], data[2][4]) >= data[4] - RACY_NS):
            return None
        return data[2], data[3]

    def put_lines(self, rel: str, identity: tuple[int, ...], lines: int, read_ns: int) -> bool:
        """Record `rel`'s line count as counted from a read begun at `read_ns` of the file with `identity`; never for
        a racy file (see RACY_NS). True when recorded."""
        name = self._identity_name(rel, "l")
        if name is None or len(identity) != 5 or max(identity[3], identity[4]) >= read_ns - RACY_NS:
            return False
        self._store_blob(name, (IDENTITY_VERSION, rel, tuple(identity), lines, read_ns))
        return True

    def _identity_name(self, rel: str, kind: str = "s") -> str | None:
        if self.directory is None:
            return None
        from stringsh.workspace import builtin_sha256 as sha256  # (loaded at start-up; hashlib loads OpenSSL)

        return f"{sha256(rel.encode('utf-8', 'surrogatepass')).hexdigest()}.{kind}{IDENTITY_VERSION}.idx"

    # -- signed blobs ---------------------------------------------------------------------------------------------
    def _load_blob(self, name: str) -> Any:
        """The marshalled value of a disk entry when its signature verifies, else None."""
        if self.directory is None:
            return None
        try:
            folder = self._open_directory(create=False)
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
            finally:
                os.close(folder)
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ENTRY_BYTES:
                    return None  # a FIFO, device or huge file planted here is a miss, never waited on or read whole
                data = os.read(fd, info.st_size + 1)  # one read: entries are replaced whole, never grown in place
            finally:
                os.close(fd)
            key = self.signing_key()
            whole = memoryview(data)  # (slices of a 700 KB entry are not copied)
            mac, payload = whole[:MAC_BYTES], whole[MAC_BYTES:]
            if key is None or not compare_digest(mac, _mac(key, name, payload)):
                return None  # not written by this user's stringsh (a file shipped in a repository): never trusted
            return _unmarshalled(payload)
        except (OSError, ValueError, EOFError, TypeError):
            return None

    def _store_blob(self, name: str, value: Any) -> None:
        key = self.signing_key() if self.directory is not None else None
        if key is None:
            return
        tmp = f".idx-{os.urandom(8).hex()}"  # (os.urandom: the secrets module is a slower import for the same)
        try:
            folder = self._open_directory(create=True)
        except (OSError, ValueError):
            return  # a read-only or full disk, or a planted link: it only costs speed
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
            with os.fdopen(fd, "wb") as handle:
                payload = marshal.dumps(value)
                handle.write(_mac(key, name, payload) + payload)
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
        finally:
            os.close(folder)


def _unmarshalled(payload: bytes | memoryview) -> Any:
    """marshal.loads with the cyclic collector paused: a 10 MB page's entry is some 50,000 tuples and lists, and the
    collector would otherwise look at them every 700 (twice as slow), where data loaded from marshal holds no cycle.
    A collector some other thread paused is left as it was."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return marshal.loads(payload)
    finally:
        if paused:
            gc.enable()


def _mac(key: bytes, name: str, payload: bytes | memoryview) -> bytes:
    """Keyed BLAKE2b (its MAC mode, RFC 7693) of the entry's name, a NUL and its payload (fed as is, never copied)."""
    mac = blake2b(name.encode() + b"\0", key=key, digest_size=MAC_BYTES)
    mac.update(payload)
    return mac.digest()
