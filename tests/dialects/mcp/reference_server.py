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
from collections.abc import Callable
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
    """The installed server's `dist/index.js` (npm runs only the first time)."""
    installed = npm_install(cache, f"server-filesystem-{VERSION}", [f"{PACKAGE}@{VERSION}"],
                            lambda folder: entry_point(folder).is_file(), timeout=600)
    return entry_point(installed)


def npm_install(cache: Path, name: str, packages: list[str], ready: Callable[[Path], bool], timeout: int) -> Path:
    """`cache/name`, holding `packages` from the npm registry once `ready` says so: npm runs only the first time,
    into a staging folder renamed into place, so two runs at once never see half an install."""
    final = cache / name
    if ready(final):
        return final
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not installed (apt-get install -y nodejs npm)")
    cache.mkdir(parents=True, exist_ok=True)
    staging = cache / f".{name}.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    argv = [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--loglevel=error", *packages]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        if proc.returncode != 0 or not ready(staging):
            raise InstallError(f"`{' '.join(argv[1:])}` failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")
        try:
            staging.rename(final)
        except OSError:  # another run installed it first
            if not ready(final):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final


def reference_command(index_js: Path, root: Path) -> tuple[str, list[str]]:
    """How an MCP client's configuration starts the reference server over one allowed folder."""
    node = shutil.which("node") or "node"
    return node, [str(index_js), str(root)]


def stringsh_command(root: Path) -> tuple[str, list[str]]:
    """How an MCP client's configuration starts `stringsh mcp` over one workspace folder."""
    return sys.executable, ["-m", "stringsh", "--root", str(root), "mcp"]
