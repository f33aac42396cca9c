"""The attack catalogue (docs/hazards.md, A and B) through the MCP tools, on a real `stringsh mcp` over stdio: sibling
prefixes (CVE-2025-53110), `..`, symlinks out of the root and their chains and dangling targets (CVE-2025-53109),
hard links, NUL bytes and long paths, secrets by every tool, the policy file, and the root through a symlink."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.client import Client, stdio_session

SIBLINGS = ("proj2", "proj_backup", "proj-old", "projectile", "proj.bak")
SECRET = "ERROR(SECRET_DENIED): Access to a secret file is denied: {path}\n" \
         "The policy's secret deny list covers this path."
VIA_LINK = "ERROR(INVALID_PATH): Path leaves the workspace through a symlink: {path}\n" \
           "Symlinks are followed only while they point inside the workspace."


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mcpattack").resolve()
    proj, outside = base / "proj", base / "outside"
    (proj / "sub").mkdir(parents=True)
    outside.mkdir()
    for sibling in SIBLINGS:
        (base / sibling).mkdir()
        (base / sibling / "x").write_text("sibling\n")
    (outside / "secret.txt").write_text("OUTSIDE\n")
    (outside / "hl.txt").write_text("hard\n")
    (proj / "ln").symlink_to("/etc/passwd")
    (proj / "ln_dir").symlink_to("../outside")
    (proj / "a").symlink_to("b")
    (proj / "b").symlink_to("../outside/secret.txt")
    (proj / "dangling").symlink_to("../outside/newfile")
    (proj / "h").hardlink_to(outside / "hl.txt")
    (proj / ".env").write_text("KEY=1\n")
    (proj / ".env.local").write_text("KEY=2\n")
    (proj / ".env.example").write_text("EX=1\n")
    (proj / "creds.txt").write_text('aws = "AKIAIOSFODNN7EXAMPLE"\n')
    (proj / "sub" / "x").write_text("ok\n")
    (base / "link_to_proj").symlink_to("proj")
    return base


@pytest.fixture(scope="module")
def client(base: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(base / "proj", env=env) as session:
        yield session


@pytest.mark.parametrize("sibling", SIBLINGS)
def test_sibling_prefixes_are_outside(client: Client, base: Path, sibling: str) -> None:
    path = str(base / sibling / "x")
    assert client.error("read_text_file", {"path": path}) == (
        f"ERROR(FILE_NOT_ALLOWED): Path is outside the workspace: {path}\n"
        f"Only paths under {base / 'proj'} can be used.")
    assert client.error("write_file", {"path": path, "content": "pwned"}).startswith("ERROR(FILE_NOT_ALLOWED): ")
    assert client.error("create_directory", {"path": str(base / sibling / "new")}).startswith(
        "ERROR(FILE_NOT_ALLOWED): ")
    assert client.error("move_file", {"source": "sub/x", "destination": path}).startswith("ERROR(FILE_NOT_ALLOWED): ")
    assert (base / sibling / "x").read_text() == "sibling\n" and not (base / sibling / "new").exists()


@pytest.mark.parametrize("path", ["{proj}/../proj_backup/x", "{proj}/../../etc/passwd", "sub/../../outside/secret.txt",
                                  "{proj}//../proj2/x", "../outside/secret.txt"])
def test_traversal_is_refused(client: Client, base: Path, path: str) -> None:
    path = path.format(proj=base / "proj")
    assert client.error("read_text_file", {"path": path}) == (
        f"ERROR(INVALID_PATH): Path escapes the workspace root: {path}\nUse a path inside the workspace.")


def test_odd_but_harmless_paths(client: Client) -> None:
    assert client.text("read_text_file", {"path": "sub/x/."}) == "ok\n"
    assert client.error("read_text_file", {"path": "%2e%2e/outside/secret.txt"}) == (
        "ERROR(NOT_FOUND): File not found: %2e%2e/outside/secret.txt\n"
        'list_directory {"path": "."} shows what is there.')  # a literal name
    assert client.error("read_text_file", {"path": "sub/x\x00.txt"}) == (
        "ERROR(INVALID_PATH): Path contains a NUL byte.\nRemove the NUL byte from the path.")
    assert client.error("read_text_file", {"path": "a" * 5000}) == (
        "ERROR(INVALID_PATH): Path is longer than 4096 bytes.")


@pytest.mark.parametrize(("tool", "arguments", "shown"), [
    ("read_text_file", {"path": "ln"}, "ln"),
    ("get_file_info", {"path": "ln"}, "ln"),
    ("read_text_file", {"path": "a"}, "a"),  # a -> b -> ../outside/secret.txt
    ("write_file", {"path": "ln_dir/new.txt", "content": "x"}, "ln_dir/new.txt"),
    ("write_file", {"path": "dangling", "content": "x"}, "dangling"),  # the 'wx' create-through-a-link case
    ("list_directory", {"path": "ln_dir"}, "ln_dir"),
    ("search_files", {"path": "ln_dir", "pattern": "*"}, "ln_dir"),
    ("move_file", {"source": "sub/x", "destination": "ln_dir/x"}, "ln_dir/x"),
])
def test_symlinks_out_of_the_root_are_refused(client: Client, base: Path, tool: str, arguments: dict[str, object],
                                              shown: str) -> None:
    assert client.error(tool, arguments) == VIA_LINK.format(path=shown)
    assert sorted(path.name for path in (base / "outside").iterdir()) == ["hl.txt", "secret.txt"]
    assert (base / "proj" / "sub" / "x").exists()


def test_a_hard_link_is_refused(client: Client, env: dict[str, str]) -> None:
    """The hint names the user's own policy: an untrusted workspace's stringsh.toml cannot allow hard links."""
    own = Path(env["STRINGSH_CONFIG_DIR"]) / "policy.toml"
    assert client.error("read_text_file", {"path": "h"}) == (
        "ERROR(SECRET_DENIED): Refusing a hard-linked file (it may alias a file outside the workspace): h\n"
        f"To allow hard links, set [secrets] allow_hardlinks = true in your own policy ({own}); the workspace's "
        "stringsh.toml cannot widen it.")


@pytest.mark.parametrize(("tool", "arguments", "shown"), [
    ("read_text_file", {"path": ".env"}, ".env"),
    ("read_text_file", {"path": ".env.local"}, ".env.local"),
    ("read_media_file", {"path": ".env"}, ".env"),
    ("get_file_info", {"path": ".env"}, ".env"),
    ("write_file", {"path": ".env", "content": "x"}, ".env"),
    ("edit_file", {"path": ".env", "edits": [{"oldText": "KEY", "newText": "K"}]}, ".env"),
    ("move_file", {"source": ".env", "destination": "public.txt"}, ".env"),
    ("move_file", {"source": "sub/x", "destination": ".env.prod"}, ".env.prod"),
])
def test_secrets_are_denied_by_every_tool(client: Client, base: Path, tool: str, arguments: dict[str, object],
                                          shown: str) -> None:
    assert client.error(tool, arguments) == SECRET.format(path=shown)
    assert (base / "proj" / ".env").read_text() == "KEY=1\n" and not (base / "proj" / "public.txt").exists()


def test_secrets_never_show_in_listings_searches_or_contents(client: Client, base: Path) -> None:
    proj = base / "proj"
    assert client.text("read_multiple_files", {"paths": [".env", "sub/x"]}) == (
        ".env: ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n---\nsub/x:\nok\n\n")
    assert client.text("search_files", {"path": ".", "pattern": "{.env.local,zzz.ts}"}) == "No matches found"
    assert client.text("search_files", {"path": ".", "pattern": "**/.env*"}) == str(proj / ".env.example")
    listing = client.text("list_directory", {"path": "."})
    assert ".env\n" not in listing + "\n" and ".env.local" not in listing and "[FILE] .env.example" in listing
    assert '".env"' not in client.text("directory_tree", {"path": ".", "excludePatterns": []})
    assert client.text("read_text_file", {"path": ".env.example"}) == "EX=1\n"
    assert client.text("read_text_file", {"path": "creds.txt"}) == 'aws = "***REDACTED***"\n'
    assert client.error("read_text_file", {"path": "/proc/self/environ"}).startswith("ERROR(FILE_NOT_ALLOWED): ")


def test_the_policy_file_cannot_be_written(client: Client, base: Path) -> None:
    assert client.error("write_file", {"path": "stringsh.toml", "content": "[permissions]\n"}).startswith(
        "ERROR(NOT_PERMITTED): stringsh.toml is the workspace's policy")
    assert not (base / "proj" / "stringsh.toml").exists()


def test_a_root_named_through_a_symlink_accepts_both_spellings(base: Path, env: dict[str, str]) -> None:
    with stdio_session(base / "link_to_proj", env=env) as session:
        assert session.text("read_text_file", {"path": str(base / "link_to_proj" / "sub" / "x")}) == "ok\n"
        assert session.text("read_text_file", {"path": str(base / "proj" / "sub" / "x")}) == "ok\n"
        assert session.error("read_text_file", {"path": str(base / "link_to_proj2" / "x")}).startswith(
            "ERROR(FILE_NOT_ALLOWED): ")
        linked = base / "link_to_proj" / "sub"
        session.text("write_file", {"path": str(linked / "w.bin"), "content": "w"})
        assert session.text("move_file", {"source": str(linked / "w.bin"), "destination": str(linked / "v.bin")}
                            ).startswith("Successfully moved ")
        assert session.call("read_media_file", {"path": str(linked / "v.bin")}).content[0].type == "resource"
        assert (base / "proj" / "sub" / "v.bin").read_text() == "w"
