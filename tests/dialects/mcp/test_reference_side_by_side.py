"""Side by side with the reference MCP filesystem server (`@modelcontextprotocol/server-filesystem`, installed from
the npm registry by reference_server.py): the same tool call, from the official SDK's stdio client, on copies of the
same bytes. Each case asserts what stringsh leaves on disk AND what the reference really leaves, as observed with
the pinned version, so the comparison stays honest: where the reference keeps the bytes too (a BOM on an LF file,
a symlink escape refused), the test says so instead of claiming a difference.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from tests.conftest import unavailable
from tests.dialects.mcp.reference_server import InstallError, install, reference_command, stringsh_command

pytestmark = pytest.mark.needs("node", "npm")

#: One call: the tool and its arguments, built from the folder the server serves (absolute paths, as MCP clients
#: send them to the reference server).
Request = tuple[str, Callable[[Path], dict[str, Any]]]


@pytest.fixture(scope="session")
def reference_js() -> Path:
    try:
        return install()
    except InstallError as exc:
        unavailable(f"the reference MCP server could not be installed from the npm registry: {exc}")


async def _serve(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
    with open(os.devnull, "w") as quiet, anyio.fail_after(120):  # the reference prints a banner on stderr
        async with stdio_client(params, errlog=quiet) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [await session.call_tool(name, arguments) for name, arguments in calls]


def side_by_side(tmp_path: Path, reference_js: Path, files: dict[str, bytes], requests: list[Request],
                 outside: Path | None = None) -> dict[str, tuple[Path, list[CallToolResult]]]:
    """Each server over its own copy of `files` (and of the `outside` folder's symlinks, made by the caller after
    this writes the files), the same requests in order: {"stringsh"|"reference": (its folder, its results)}."""
    env = {key: value for key, value in os.environ.items()
           if key.startswith(("STRINGSH_", "XDG_")) or key in ("PYTHONPATH", "HOME")}
    out: dict[str, tuple[Path, list[CallToolResult]]] = {}
    for name in ("stringsh", "reference"):
        root = tmp_path / name
        root.mkdir()
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        if outside is not None:
            os.symlink(outside / "secret.txt", root / "link.txt")
            os.symlink(outside, root / "linkdir")
        command, args = stringsh_command(root) if name == "stringsh" else reference_command(reference_js, root)
        params = StdioServerParameters(command=command, args=args, env=env, cwd=root)
        calls = [(tool, arguments(root)) for tool, arguments in requests]
        out[name] = (root, anyio.run(_serve, params, calls))
    return out


def text(result: CallToolResult) -> str:
    return "".join(part.text for part in result.content if part.type == "text")


def edit(rel: str, old: str, new: str) -> Request:
    return "edit_file", lambda root: {"path": str(root / rel), "edits": [{"oldText": old, "newText": new}]}


#: (file bytes, the edit's oldText and newText, stringsh's bytes after it, the reference's bytes after the same edit)
FIDELITY = {
    "crlf": (b"alpha\r\nbeta\r\ngamma\r\n", "beta", "BETA", b"alpha\r\nBETA\r\ngamma\r\n", b"alpha\nBETA\ngamma\n"),
    "mixed": (b"alpha\r\nbeta\ngamma\r\n", "beta", "BETA", b"alpha\r\nBETA\ngamma\r\n", b"alpha\nBETA\ngamma\n"),
    # Two lines sent with LF, as models write them, against a CRLF file: both match; only stringsh keeps CRLF.
    "crlf-multiline": (b"alpha\r\nbeta\r\ngamma\r\n", "alpha\nbeta", "ALPHA\nBETA", b"ALPHA\r\nBETA\r\ngamma\r\n",
                       b"ALPHA\nBETA\ngamma\n"),
    "bom-crlf": (b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma\r\n", "beta", "BETA", b"\xef\xbb\xbfalpha\r\nBETA\r\ngamma\r\n",
                 b"\xef\xbb\xbfalpha\nBETA\ngamma\n"),
    # The reference keeps a UTF-8 BOM (node reads it as U+FEFF and writes it back): the same bytes on both sides.
    "bom": (b"\xef\xbb\xbfalpha\nbeta\ngamma\n", "beta", "BETA", b"\xef\xbb\xbfalpha\nBETA\ngamma\n",
            b"\xef\xbb\xbfalpha\nBETA\ngamma\n"),
}


@pytest.mark.parametrize("case", sorted(FIDELITY))
def test_edit_keeps_line_endings_and_bom_where_the_reference_rewrites_them(
    tmp_path: Path, reference_js: Path, case: str
) -> None:
    original, old, new, ours, theirs = FIDELITY[case]
    runs = side_by_side(tmp_path, reference_js, {"doc.txt": original}, [edit("doc.txt", old, new)])
    for name, expected in (("stringsh", ours), ("reference", theirs)):
        root, (result,) = runs[name]
        assert not result.is_error, (name, text(result))
        assert (root / "doc.txt").read_bytes() == expected, name
    if case != "bom":
        assert ours != theirs


def test_edit_of_a_latin1_file_the_reference_corrupts_a_byte_it_was_not_asked_to_touch(
    tmp_path: Path, reference_js: Path
) -> None:
    """The reference decodes as UTF-8 and writes U+FFFD over the é; stringsh edits the file in Latin-1, its own
    encoding, so the é stays the byte it was."""
    original = b"caf\xe9\nbeta\n"
    runs = side_by_side(tmp_path, reference_js, {"menu.txt": original}, [edit("menu.txt", "beta", "BETA")])
    root, (result,) = runs["reference"]
    assert not result.is_error
    assert (root / "menu.txt").read_bytes() == b"caf\xef\xbf\xbd\nBETA\n"
    root, (result,) = runs["stringsh"]
    assert not result.is_error, text(result)
    assert (root / "menu.txt").read_bytes() == b"caf\xe9\nBETA\n"


def test_edit_of_a_utf16_file_the_reference_cannot_match(tmp_path: Path, reference_js: Path) -> None:
    """A UTF-16 file with a BOM: stringsh edits it in UTF-16 (BOM and CRLF kept); the reference reads the bytes as
    UTF-8 and finds nothing."""
    original = "\ufeffalpha\r\nbeta\r\n".encode("utf-16-le")
    runs = side_by_side(tmp_path, reference_js, {"wide.txt": original}, [edit("wide.txt", "beta", "BETA")])
    root, (result,) = runs["reference"]
    assert result.is_error
    assert text(result) == "Could not find exact match for edit:\nbeta"
    assert (root / "wide.txt").read_bytes() == original
    root, (result,) = runs["stringsh"]
    assert not result.is_error, text(result)
    assert (root / "wide.txt").read_bytes() == "\ufeffalpha\r\nBETA\r\n".encode("utf-16-le")


def test_secret_file_the_reference_reads_stringsh_refuses(tmp_path: Path, reference_js: Path) -> None:
    secret = b"API_KEY=sk-live-0123456789abcdef\n"
    read = ("read_text_file", lambda root: {"path": str(root / ".env")})
    runs = side_by_side(tmp_path, reference_js, {".env": secret}, [read])
    _, (result,) = runs["reference"]
    assert not result.is_error
    assert text(result) == secret.decode()
    _, (result,) = runs["stringsh"]
    assert result.is_error
    assert text(result) == (f"ERROR(SECRET_DENIED): Access to a secret file is denied: {tmp_path / 'stringsh' / '.env'}"
                            "\nThe policy's secret deny list covers this path.")


def test_symlink_escape_refused_by_both(tmp_path: Path, reference_js: Path) -> None:
    """Since CVE-2025-53109's fix the reference refuses a symlink out of its folder too: both refuse, for a read,
    a write through a file link and a write through a folder link, and nothing outside changes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"outside\n")
    requests: list[Request] = [
        ("read_text_file", lambda root: {"path": str(root / "link.txt")}),
        ("write_file", lambda root: {"path": str(root / "link.txt"), "content": "pwned\n"}),
        ("write_file", lambda root: {"path": str(root / "linkdir" / "new.txt"), "content": "pwned\n"}),
    ]
    runs = side_by_side(tmp_path, reference_js, {}, requests, outside=outside)
    _, results = runs["reference"]
    assert [text(result) for result in results] == [
        f"Access denied - symlink target outside allowed directories: {outside / 'secret.txt'} not in "
        f"{tmp_path / 'reference'}",
        f"Access denied - symlink target outside allowed directories: {outside / 'secret.txt'} not in "
        f"{tmp_path / 'reference'}",
        f"Access denied - symlink target outside allowed directories: {outside} not in {tmp_path / 'reference'}",
    ]
    ours = tmp_path / "stringsh"
    _, results = runs["stringsh"]
    assert [result.is_error for result in results] == [True, True, True]
    assert [text(result) for result in results] == [
        f"ERROR(INVALID_PATH): Path leaves the workspace through a symlink: {path}\nSymlinks are followed only while "
        "they point inside the workspace." for path in (ours / "link.txt", ours / "link.txt", ours / "linkdir/new.txt")
    ]
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (outside / "secret.txt").read_bytes() == b"outside\n"


def test_reference_server_is_the_pinned_version(reference_js: Path) -> None:
    """The assertions above describe this version; a new pin must re-check them."""
    package = reference_js.parents[1] / "package.json"
    assert '"version": "2026.8.31"' in package.read_text()
    assert shutil.which("node")
