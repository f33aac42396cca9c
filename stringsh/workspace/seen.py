"""The stale-write guard's memory: which files a topic has read, by content hash.

`/open` and `/edit` call `mark_seen` after reading a file; the commands that overwrite a whole file check it
through `stringsh.documents.guard.require_seen`. Content hashes, not mtimes, so a touch or a same-bytes rewrite
by a formatter never trips the guard, while any real change does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.escapes import SURROGATE

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


def _key(workspace: Workspace, path: str) -> str | None:
    if SURROGATE.search(path):  # a name that is not UTF-8 (an undo put it back): no request can name it to write
        return None
    info = workspace.stat(path)
    return None if info is None else info.rel


def mark_seen(session_seen: dict[str, str], workspace: Workspace, rel: str, sha256: str | None = None) -> None:
    """Record that this topic has read `rel` as it is now (pass `sha256` of the bytes read to avoid a re-read)."""
    key = _key(workspace, rel)
    if key is None:
        return
    digest = sha256 if sha256 is not None else workspace.fingerprint(rel)
    if digest is not None:
        session_seen[key] = digest


def is_seen_unchanged(session_seen: dict[str, str], workspace: Workspace, rel: str) -> bool:
    """True when this topic read `rel` and its bytes have not changed since."""
    key = _key(workspace, rel)
    if key is None or key not in session_seen:
        return False
    return session_seen[key] == workspace.fingerprint(rel)


def seen_sha256(session_seen: dict[str, str], workspace: Workspace, rel: str) -> str | None:
    """The hash this topic read, to pass as `expected_sha256` so a change in between is a CONFLICT."""
    key = _key(workspace, rel)
    return None if key is None else session_seen.get(key)
