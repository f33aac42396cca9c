"""Which workspaces the user trusts: `stringsh trust` records the sha256 of the workspace's `stringsh.toml`
(or `-` for a folder without one) with the root's real path, in `<config>/trusted-workspaces` (direnv's
`allow` model). Trust holds while the file's bytes are the recorded ones; any change lapses it.

The record file is one workspace a line, `<sha256 hex or ->` TAB `<real path>`, mode 0600, replaced atomically.
A record file not owned by the user, or writable by others, is ignored (nothing is trusted)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from stringsh.errors import StringError
from stringsh.userdirs import config_dir, exclusive, write_private

TRUST_FILE = "trusted-workspaces"
NO_FILE = "-"
HEADER = "# Workspaces trusted with 'stringsh trust': sha256 of stringsh.toml (- for none) TAB real path\n"
MAX_BYTES = 4 * 1024 * 1024


def trust_file() -> Path:
    return config_dir() / TRUST_FILE


def digest(data: bytes | None) -> str:
    """The recorded form of a workspace policy's bytes (`-` when the workspace has none)."""
    if data is None:
        return NO_FILE
    import hashlib

    return hashlib.sha256(data).hexdigest()


def records() -> dict[str, str]:
    """Real path -> recorded digest; empty when the file is missing or cannot be believed."""
    try:
        fd = os.open(trust_file(), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return {}
        data = os.read(fd, MAX_BYTES)
    finally:
        os.close(fd)
    found: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").split("\n"):  # "\n" only: a path may hold U+2028, never a "\n"
        if line and not line.startswith("#") and "\t" in line:
            recorded, path = line.split("\t", 1)
            found[path] = recorded
    return found


def is_trusted(root: Path, policy_bytes: bytes | None) -> bool:
    """Whether the user trusted this folder with exactly this `stringsh.toml` (or with none)."""
    return records().get(str(root.resolve())) == digest(policy_bytes)


def recorded(root: Path) -> str | None:
    return records().get(str(root.resolve()))


def record(root: Path, policy_bytes: bytes | None) -> None:
    path = str(root.resolve())
    if any(ord(char) < 32 or ord(char) == 127 or char in "\x85\u2028\u2029" for char in path):
        raise StringError(
            "INVALID_PATH",
            f"A folder whose name holds a control character or line break cannot be trusted: {path!r}",
            "Rename the folder, then run stringsh trust again.",
        )
    with exclusive(_lock_file()):
        entries = records()
        entries[path] = digest(policy_bytes)
        _write(entries)


def revoke(root: Path) -> bool:
    with exclusive(_lock_file()):
        entries = records()
        if entries.pop(str(root.resolve()), None) is None:
            return False
        _write(entries)
    return True


def _lock_file() -> Path:
    return config_dir() / f".{TRUST_FILE}.lock"


def _write(entries: dict[str, str]) -> None:
    text = HEADER + "".join(f"{digest}\t{path}\n" for path, digest in sorted(entries.items()))
    write_private(trust_file(), text.encode("utf-8"))
