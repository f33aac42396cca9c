"""Multi-root policies through the real program: `id:path` in every command, read_only roots refuse every change,
each root confined on its own."""

from __future__ import annotations

import os
from pathlib import Path
from shlex import quote

import pytest

from stringsh.protocol.response import cut_header, re_line
from tests.conftest import SHELL_ENV_INFO, info_setup, run_stringsh

RO_HINT = "A read_only root is never changed; /info lists the roots and their modes."


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    """tmp/ws (the workspace, main), tmp/docs (read_only), tmp/scratch (read_write), tmp/docs2 (no root: a
    sibling sharing docs' prefix), and tmp/p.toml naming the three roots."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.md").write_text("hi\n")
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n\ntext\n")
    (tmp_path / "docs" / "sub" / "y.txt").write_text("y\n")
    (tmp_path / "docs" / ".env").write_text("SECRET=1\n")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "docs2").mkdir()
    (tmp_path / "docs2" / "x").write_text("not a root\n")
    (tmp_path / "p.toml").write_text(
        f'[[roots]]\nid = "main"\npath = "{tmp_path / "ws"}"\n'
        f'[[roots]]\nid = "docs"\npath = "{tmp_path / "docs"}"\nmode = "read_only"\n'
        f'[[roots]]\nid = "scratch"\npath = "{tmp_path / "scratch"}"\n'
    )
    return tmp_path


def policy_layers(base: Path, policy: str = "p.toml") -> str:
    """What `/info` names as the policy `run` applies."""
    from stringsh.workspace import shown_path

    return f"defaults + --policy {shown_path(base / policy)}"


def run(base: Path, script: str, policy: str = "p.toml") -> str:
    proc = run_stringsh(["--policy", str(base / policy), "run", "--keep-going", "-"], base / "ws", script)
    return proc.stdout.decode()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file's bytes (stringsh's own `.stringsh/` aside)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".stringsh" not in p.relative_to(folder).parts}


def echoed(request: str) -> str:
    """The `re:` line of a request (long ones are cut)."""
    return "re: " + cut_header(request)


def test_every_command_names_a_root(roots: Path) -> None:
    script = (
        "/ls\n/ls docs:\n/ls docs:sub\n/open docs:guide.md\n/write scratch:notes/x.txt hello\n"
        "/append scratch:notes/x.txt more\n/open scratch:notes/x.txt\n/ls main:\n/open main:a.md\n"
        "/undo\n/undo\n/ls scratch:\n"
    )
    assert run(roots, script) == (
        "re: /ls\nListing ./\n---\n  a.md\n"
        "re: /ls docs:\nListing docs:\n---\n  sub/\n  guide.md\n"
        "re: /ls docs:sub\nListing docs:sub/\n---\n  y.txt\n"
        "re: /open docs:guide.md\nOpened docs:guide.md\n---\n# Guide\n\ntext\n"
        "re: /write scratch:notes/x.txt hello\nCreated: scratch:notes/x.txt (6 bytes, 1 line)\n"
        "re: /append scratch:notes/x.txt more\nAppended to: scratch:notes/x.txt (now 11 bytes)\n"
        "re: /open scratch:notes/x.txt\nOpened scratch:notes/x.txt\n---\nhello\nmore\n"
        "re: /ls main:\nListing ./\n---\n  a.md\n"
        "re: /open main:a.md\nOpened a.md\n---\nhi\n"
        "re: /undo\nUndo: reverted scratch:notes/x.txt (1 line)\n"
        "re: /undo\nUndo: deleted scratch:notes/x.txt (was newly created), removed its new empty folder scratch:notes\n"
        "re: /ls scratch:\nListing scratch:\n---\n(empty)\n"
    )
    assert tree(roots / "scratch") == {}


def test_a_read_only_root_refuses_every_change(roots: Path) -> None:
    before = tree(roots / "docs")
    refused = "ERROR(NOT_PERMITTED): Root docs is read_only: {} cannot be changed.\n" + RO_HINT + "\n"
    script = (
        "/open docs:guide.md\n/edit docs:guide.md#guide <<X\n# Guide\n\nchanged\nX\n"
        "/edit docs:guide.md <<X\nall new\nX\n/append docs:guide.md more\n/write --force docs:guide.md gone\n"
        "/write docs:new.txt x\n/write docs:sub/deeper/new.txt x\n"
        f"/write {quote(f'{roots}/docs/abs.txt')} x\n/undo\n"
    )
    assert run(roots, script) == (
        "re: /open docs:guide.md\nOpened docs:guide.md\n---\n# Guide\n\ntext\n"
        "re: /edit docs:guide.md#guide\n" + refused.format("docs:guide.md")
        + "re: /edit docs:guide.md\n" + refused.format("docs:guide.md")
        + "re: /append docs:guide.md more\n" + refused.format("docs:guide.md")
        + "re: /write --force docs:guide.md gone\n" + refused.format("docs:guide.md")
        + "re: /write docs:new.txt x\n" + refused.format("docs:new.txt")
        + "re: /write docs:sub/deeper/new.txt x\n" + refused.format("docs:sub/deeper/new.txt")
        + echoed(f"/write {quote(f'{roots}/docs/abs.txt')} x") + "\n" + refused.format(f"{roots}/docs/abs.txt")
        + "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.\n"
    )
    assert tree(roots / "docs") == before


def test_roots_do_not_leak_into_each_other(roots: Path) -> None:
    """`..`, absolute paths, sibling prefixes and symlinks never cross from one root to another: a symlink into
    another root is refused like any escaping link (name the root instead); secrets are denied in every root."""
    os.symlink("../docs/guide.md", roots / "scratch" / "rel.md")
    os.symlink(roots / "docs" / "guide.md", roots / "scratch" / "abs.md")
    os.symlink(roots / "docs", roots / "ws" / "docslink")
    os.symlink(roots / "docs2", roots / "scratch" / "prefix")
    before = {name: tree(roots / name) for name in ("ws", "docs", "scratch", "docs2")}
    script = (
        "/open docs:../ws/a.md\n/open docs:sub/../../ws/a.md\n/write scratch:../docs/evil.md x\n"
        "/open scratch:rel.md\n/write --force scratch:abs.md x\n/open docslink/guide.md\n/ls scratch:prefix\n"
        f"/ls {quote(f'{roots}/docs2')}\n/open docs:.env\n/ls -a docs:\n/open docs:/etc/passwd\n"
    )
    leaves = "ERROR(INVALID_PATH): Path leaves root scratch through a symlink: {}\n" \
        "Symlinks are followed only while they point inside root scratch.\n"
    assert run(roots, script) == (
        "re: /open docs:../ws/a.md\nERROR(INVALID_PATH): Path escapes root docs: docs:../ws/a.md\n"
        "Use a path inside root docs.\n"
        "re: /open docs:sub/../../ws/a.md\nERROR(INVALID_PATH): Path escapes root docs: docs:sub/../../ws/a.md\n"
        "Use a path inside root docs.\n"
        "re: /write scratch:../docs/evil.md x\nERROR(INVALID_PATH): Path escapes root scratch: "
        "scratch:../docs/evil.md\nUse a path inside root scratch.\n"
        "re: /open scratch:rel.md\n" + leaves.format("scratch:rel.md")
        + "re: /write --force scratch:abs.md x\n" + leaves.format("scratch:abs.md")
        + "re: /open docslink/guide.md\nERROR(INVALID_PATH): Path leaves the workspace through a symlink: "
        "docslink/guide.md\nSymlinks are followed only while they point inside the workspace.\n"
        "re: /ls scratch:prefix\n" + leaves.format("scratch:prefix")
        + re_line(f"/ls {quote(f'{roots}/docs2')}", None)
        + f"\nERROR(FILE_NOT_ALLOWED): Path is outside the workspace: {roots}/docs2\n"
        f"Only paths under {roots}/ws can be used, or under another root (/info lists them).\n"
        "re: /open docs:.env\nERROR(SECRET_DENIED): Access to a secret file is denied: docs:.env\n"
        "The policy's secret deny list covers this path.\n"
        "re: /ls -a docs:\nListing docs:\n---\n  sub/\n  guide.md\n"
        "re: /open docs:/etc/passwd\nERROR(NOT_FOUND): File not found: docs:/etc/passwd\n/ls shows what is there.\n"
    )
    assert {name: tree(roots / name) for name in before} == before


def test_names_that_look_like_roots(roots: Path) -> None:
    """An unknown id is an ordinary name in the workspace; a workspace file named `docs:x` is `./docs:x`."""
    (roots / "ws" / "docs:x").write_text("colon\n")
    (roots / "ws" / "nope:y").write_text("plain\n")
    script = "/open ./docs:x\n/open docs:x\n/open nope:y\n/ls nope:\n/write scratch: x\n/write main: x\n/open :x\n"
    assert run(roots, script) == (
        "re: /open ./docs:x\nOpened ./docs:x\n---\ncolon\n"
        "re: /open docs:x\nERROR(NOT_FOUND): File not found: docs:x\n/ls shows what is there.\n"
        "re: /open nope:y\nOpened nope:y\n---\nplain\n"
        "re: /ls nope:\nERROR(NOT_FOUND): Not found\nNo such folder: nope:\n"
        "re: /write scratch: x\nERROR(INVALID_TARGET): Is a directory: scratch:\nUse /ls scratch:\n"
        "re: /write main: x\nERROR(INVALID_TARGET): Is a directory: .\nUse /ls .\n"
        "re: /open :x\nERROR(NOT_FOUND): File not found: :x\n/ls shows what is there.\n"
    )
    assert tree(roots / "scratch") == {}


def test_a_nested_root_names_its_own_files(roots: Path) -> None:
    """A read_only root inside the workspace: its files are named by it and cannot be changed, whichever root
    the path went through (a symlink into it included); a root holding the workspace reaches the workspace's
    files by their own names and rules."""
    vendor = roots / "ws" / "vendor"
    vendor.mkdir()
    (vendor / "lib.md").write_text("lib\n")
    os.symlink("vendor/lib.md", roots / "ws" / "link.md")
    (roots / "nested.toml").write_text(
        f'[[roots]]\nid = "main"\npath = "{roots / "ws"}"\n'
        f'[[roots]]\nid = "vendor"\npath = "{vendor}"\nmode = "read_only"\n'
        f'[[roots]]\nid = "up"\npath = "{roots}"\n'
    )
    script = (
        "/open vendor/lib.md\n/open link.md\n/write vendor/new.md x\n/write --force link.md x\n"
        "/write up:ws/vendor/new.md x\n/write --force up:nested.toml x\n/write up:ws/.stringsh/x x\n"
        "/write up:ws/b.md b\n/undo\n"
    )
    assert run(roots, script, "nested.toml") == (
        "re: /open vendor/lib.md\nOpened vendor:lib.md\n---\nlib\n"
        "re: /open link.md\nOpened vendor:lib.md\n---\nlib\n"
        "re: /write vendor/new.md x\nERROR(NOT_PERMITTED): Root vendor is read_only: vendor/new.md cannot be "
        f"changed.\n{RO_HINT}\n"
        "re: /write --force link.md x\nERROR(NOT_PERMITTED): Root vendor is read_only: link.md cannot be "
        f"changed.\n{RO_HINT}\n"
        "re: /write up:ws/vendor/new.md x\nERROR(NOT_PERMITTED): Root vendor is read_only: up:ws/vendor/new.md "
        f"cannot be changed.\n{RO_HINT}\n"
        "re: /write --force up:nested.toml x\nERROR(NOT_PERMITTED): up:nested.toml is the workspace's policy and "
        "cannot be changed through stringsh\n"
        "A session never changes its own policy; edit the policy file outside stringsh.\n"
        "re: /write up:ws/.stringsh/x x\nERROR(NOT_PERMITTED): .stringsh/ is stringsh's own state and cannot be "
        "used: up:ws/.stringsh/x\nUse a path outside it; /changes and /undo reach what stringsh keeps there.\n"
        "re: /write up:ws/b.md b\nCreated: b.md (2 bytes, 1 line)\n"
        "re: /undo\nUndo: deleted b.md (was newly created)\n"
    )
    assert sorted(os.listdir(vendor)) == ["lib.md"] and not (roots / "ws" / "b.md").exists()


def test_info_lists_the_roots(roots: Path) -> None:
    assert run(roots, "/info\n") == (
        "re: /info\nSession info\n---\ntopic:     main\n"
        f"root:      {roots}/ws\n"
        f"roots:     main:     read_write  {roots}/ws  (the workspace: paths without a root name)\n"
        f"           docs:     read_only   {roots}/docs\n"
        f"           scratch:  read_write  {roots}/scratch\n"
        f"cwd:       ./\nfile:      (none open)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n"
        f"{info_setup(roots / 'ws', policy=policy_layers(roots))}\n"
    )


@pytest.mark.needs("bwrap")
def test_the_sandbox_binds_read_only_roots_read_only(roots: Path) -> None:
    """`!cmd` under the sandbox sees a read_only root (under /tmp too) but cannot change it; a read_write root
    is writable; each root's secrets are masked."""
    policy = (roots / "p.toml").read_text() + "[shell]\nsandbox = true\n"
    (roots / "sandboxed.toml").write_text(policy)
    docs = roots / "docs"
    guide, scratch = quote(f"{docs}/guide.md"), quote(f"{roots}/scratch/s.txt")
    script = (
        f"!cat {guide}; echo x >> {guide} || echo refused; cat {quote(f'{docs}/.env')} || echo masked\n"
        f"!echo new > {scratch} && cat {scratch}\n"
    )
    out = run(roots, script, "sandboxed.toml")
    assert "# Guide\n\ntext\n" in out and "refused\n" in out and "masked\n" in out and "SECRET" not in out
    assert (docs / "guide.md").read_text() == "# Guide\n\ntext\n"
    assert (roots / "scratch" / "s.txt").read_text() == "new\n"


def test_help_says_how_a_path_names_a_root(roots: Path) -> None:
    out = run(roots, "/help ls\n/help info\n")
    assert "`id:path` names a path in\nthe root `id` in this and every other command" in out
    assert "When the policy names more than one root, `roots:` lists each" in out


def test_relative_paths_stay_in_the_root_of_the_folder_or_page(roots: Path) -> None:
    """After `/open docs:` relative paths start in that root, and a page of another root opens its own links
    there; `..` past that root's top is refused, never the workspace's file."""
    (roots / "docs" / "links.md").write_text("# Links\n\nSee [y](sub/y.txt).\n")
    (roots / "ws" / "sub").mkdir()
    (roots / "ws" / "sub" / "y.txt").write_text("the workspace's y\n")
    script = "/open docs:\n/ls sub\n/info\n/open docs:links.md\n/open sub/y.txt\n/open docs:../ws/sub/y.txt\n"
    assert run(roots, script) == (
        "re: /open docs:\nListing docs:\n---\n  sub/\n  guide.md\n  links.md\n"
        "re: /ls sub\nListing docs:sub/\n---\n  y.txt\n"
        "re: /info\nSession info\n---\ntopic:     main\n"
        f"root:      {roots}/ws\n"
        f"roots:     main:     read_write  {roots}/ws  (the workspace: paths without a root name)\n"
        f"           docs:     read_only   {roots}/docs\n"
        f"           scratch:  read_write  {roots}/scratch\n"
        f"cwd:       docs:\nfile:      (none open)\nhistory:   0 entries\nvars:      (none)\n{SHELL_ENV_INFO}\n"
        f"{info_setup(roots / 'ws', policy=policy_layers(roots))}\n"
        "re: /open docs:links.md\nOpened docs:links.md\n---\n# Links\n\nSee [y](sub/y.txt).\n"
        "re: /open sub/y.txt\nOpened docs:sub/y.txt\n---\ny\n"
        "re: /open docs:../ws/sub/y.txt\nERROR(INVALID_PATH): Path escapes root docs: docs:../ws/sub/y.txt\n"
        "Use a path inside root docs.\n"
    )


def test_search_in_another_root_keeps_that_roots_secrets_and_state_out(roots: Path) -> None:
    """The walk matches a root's paths as that root sees them: `docs:/keys/k` is `keys/k` to the secret globs."""
    (roots / "docs" / "keys").mkdir()
    (roots / "docs" / "keys" / "k.txt").write_text("needle key\n")
    (roots / "docs" / ".stringsh").mkdir()
    (roots / "docs" / ".stringsh" / "j").write_text("needle state\n")
    (roots / "docs" / ".env").write_text("needle=1\n")
    (roots / "docs" / "guide.md").write_text("needle guide\n")
    with (roots / "p.toml").open("a") as policy:
        policy.write('[secrets]\ndeny_globs = ["keys/**"]\n')
    assert run(roots, "/grep needle docs:\n/glob ** docs:\n") == (
        "re: /grep needle docs:\nGrep \"needle\" in docs:/: 1 match in 1 file\n---\n"
        "docs:/guide.md:1: needle guide\n\n1 match in 1 file\n"
        "re: /glob ** docs:\nGlob ** in docs:/: 2 files, by path\n---\n"
        "docs:/guide.md\ndocs:/sub/y.txt\n\n2 files\n"
    )


def test_folder_operations_stay_inside_the_workspace_root(roots: Path) -> None:
    """/mkdir /mv /cp /rm do not cross roots yet: naming another root, or holding a nested one, changes nothing."""
    (roots / "ws" / "vendor").mkdir()
    (roots / "ws" / "vendor" / "v.txt").write_text("v\n")
    nested = f'[[roots]]\nid = "vendor"\npath = "{roots / "ws" / "vendor"}"\nmode = "read_only"\n'
    (roots / "p2.toml").write_text((roots / "p.toml").read_text() + nested)
    before = {name: tree(roots / name) for name in ("ws", "docs", "scratch")}
    requests = ["/rm docs:guide.md", "/mkdir scratch:new", "/mv a.md scratch:a.md", "/rm -r vendor",
                "/cp docs:guide.md g.md"]
    named = ["docs:guide.md", "scratch:new", "scratch:a.md", "vendor", "docs:guide.md"]
    assert run(roots, "".join(f"{r}\n" for r in requests), policy="p2.toml") == "".join(
        f"{echoed(request)}\nERROR(INVALID_TARGET): Refusing {path}: /mkdir, /mv, /cp and /rm work inside the "
        "workspace root only, and this path names or holds another root.\n"
        "Nothing was changed; /write, /edit and /undo work in every root (/info lists them).\n"
        for request, path in zip(requests, named, strict=True)
    )
    assert {name: tree(roots / name) for name in ("ws", "docs", "scratch")} == before
