"""/stat reports a symbolic link as a link (the contract's `type`, plus `symlink`), from the link itself: its target
named only when it stays inside its root and is no secret, never followed out of the root."""

from __future__ import annotations

import os
from pathlib import Path

from tests.commands.test_roots import roots, run  # noqa: F401  (the fixture)
from tests.conftest import script_replies

WHEN = 1_700_000_000_000_000_000
STAMP = "modified 2023-11-14 22:13:20 UTC"


def links(ws: Path) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("hi\n")
    (ws / ".env").write_text("TOKEN=1\n")
    (ws.parent / "outside.txt").write_text("out\n")
    for name, target in (("ln", "docs/a.md"), ("dl", "docs"), ("abs", "/etc/passwd"), ("rel", "../outside.txt"),
                         ("dead", "nothing"), ("sec", ".env"), ("docs/up", "../docs/a.md")):
        os.symlink(target, ws / name)
    os.mkfifo(ws / "fifo")
    for path in [*ws.rglob("*"), ws / "docs"]:
        os.utime(path, ns=(WHEN, WHEN), follow_symlinks=False)


def test_stat_reports_a_link_as_a_link(ws: Path) -> None:
    links(ws)
    os.chmod(ws / "fifo", 0o600)
    script = "".join(f"/stat {p}\n" for p in ("ln", "dl", "abs", "rel", "dead", "sec", "docs/up", "fifo", "dl/a.md",
                                               "ln/", "docs/a.md"))
    assert script_replies(ws, script) == [
        f"re: /stat ln\nln: symlink → docs/a.md (file), {STAMP}",
        f"re: /stat dl\ndl: symlink → docs (folder), {STAMP}",
        f"re: /stat abs\nabs: symlink, leading out of the workspace (not followed), {STAMP}",
        f"re: /stat rel\nrel: symlink, leading out of the workspace (not followed), {STAMP}",
        f"re: /stat dead\ndead: symlink, dangling (its target does not exist), {STAMP}",
        f"re: /stat sec\nsec: symlink, target not shown (a secret or stringsh's own state), {STAMP}",
        f"re: /stat docs/up\ndocs/up: symlink → docs/a.md (file), {STAMP}",
        f"re: /stat fifo\nfifo: other (not a file, folder or link), 0 bytes, mode 0600, {STAMP}",
        f"re: /stat dl/a.md\ndocs/a.md: file, 3 bytes, mode 0644, {STAMP}",  # a link on the way is followed
        f"re: /stat ln/\ndocs/a.md: file, 3 bytes, mode 0644, {STAMP}",  # `link/` names what it leads to
        f"re: /stat docs/a.md\ndocs/a.md: file, 3 bytes, mode 0644, {STAMP}",
    ]


def test_stat_of_a_link_never_leaks_or_follows(ws: Path) -> None:
    links(ws)
    assert script_replies(ws, "/stat .env\n/stat abs/x\n/stat ../outside.txt\n") == [
        "re: /stat .env\nERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
        "The policy's secret deny list covers this path.",
        "re: /stat abs/x\nERROR(INVALID_PATH): Path leaves the workspace through a symlink: abs/x\n"
        "Symlinks are followed only while they point inside the workspace.",
        "re: /stat ../outside.txt\nERROR(INVALID_PATH): Path escapes the workspace root: ../outside.txt\n"
        "Use a path inside the workspace.",
    ]


def test_stat_of_a_link_in_another_root(roots: Path) -> None:  # noqa: F811
    os.symlink("guide.md", roots / "docs" / "ln")
    os.symlink(".env", roots / "docs" / "sl")
    os.symlink("../ws", roots / "docs" / "tows")
    for name in ("ln", "sl", "tows"):
        os.utime(roots / "docs" / name, ns=(WHEN, WHEN), follow_symlinks=False)
    assert run(roots, "/stat docs:ln\n/stat docs:sl\n/stat docs:tows\n") == (
        f"re: /stat docs:ln\ndocs:ln: symlink → docs:guide.md (file), {STAMP}\n"
        f"re: /stat docs:sl\ndocs:sl: symlink, target not shown (a secret or stringsh's own state), {STAMP}\n"
        f"re: /stat docs:tows\ndocs:tows: symlink, leading out of the workspace (not followed), {STAMP}\n"
    )
