"""The reference MCP filesystem server (`@modelcontextprotocol/server-filesystem`, from the npm registry), installed
once per user outside the repository, and how to start it and stringsh's server the same way.

Shared by tests/dialects/mcp/test_reference_side_by_side.py and bench/mcp.py, so both measure the same pinned
version. The install goes to `$XDG_CACHE_HOME/stringsh-tests/` (read when this module is imported, before the
tests' autouse fixture points XDG_CACHE_HOME at a temporary folder), never into the repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The version the side-by-side test asserts against: its edits write LF and keep a BOM (see the test).
PACKAGE = "@modelcontextprotocol/server-filesystem"
VERSION = "2026.8.31"
USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "stringsh-tests"


class InstallError(RuntimeError):
    """npm could not fetch the reference server (offline, registry down): the caller skips or fails loudly."""


def entry_point(folder: Path) -> Path:
    return folder / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist" / "index.js"


def install(cache: Path = USER_CACHE) -> Path:
    """The installed server's `dist/index.js`; npm runs only the first time (into a temporary folder renamed into
    place, so two test runs at once never see half an install)."""
    final = cache / f"server-filesystem-{VERSION}"
    if entry_point(final).is_file():
        return entry_point(final)
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not installed (apt-get install -y nodejs npm)")
    cache.mkdir(parents=True, exist_ok=True)
    staging = cache / f".server-filesystem-{VERSION}.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    argv = [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--loglevel=error",
            f"{PACKAGE}@{VERSION}"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0 or not entry_point(staging).is_file():
            raise InstallError(f"`{' '.join(argv[1:])}` failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")
        try:
            staging.rename(final)
        except OSError:  # another run installed it first
            if not entry_point(final).is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entry_point(final)


def reference_command(index_js: Path, root: Path) -> tuple[str, list[str]]:
    """How an MCP client's configuration starts the reference server over one allowed folder."""
    node = shutil.which("node") or "node"
    return node, [str(index_js), str(root)]


def stringsh_command(root: Path) -> tuple[str, list[str]]:
    """How an MCP client's configuration starts `stringsh mcp` over one workspace folder."""
    return sys.executable, ["-m", "stringsh", "--root", str(root), "mcp"]
