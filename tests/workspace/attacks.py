"""The confinement attack catalogue (docs/hazards.md, A and B, file cases), as data.

Each case names the path a hostile or careless caller gives, how to prepare the workspace, and the refusal
code every path API must give. `{root}` is the workspace root, `{tmp}` the folder around it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Attack:
    id: str
    path: str
    code: str
    setup: Callable[[Path, Path], None] | None = None

    def target(self, root: Path) -> str:
        return self.path.format(root=root, tmp=root.parent.parent)


def link(name: str, target: str) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.format(root=root, tmp=tmp), path)

    return make


def chain(*steps: Callable[[Path, Path], None]) -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        for step in steps:
            step(root, tmp)

    return make


def touch(name: str, text: str = "x\n") -> Callable[[Path, Path], None]:
    def make(root: Path, tmp: Path) -> None:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)

    return make


ATTACKS: list[Attack] = [
    # A1 sibling prefixes (CVE-2025-53110)
    Attack("A1-proj2", "{tmp}/ws/proj2/x", "FILE_NOT_ALLOWED"),
    Attack("A1-proj_backup", "{tmp}/ws/proj_backup/x", "FILE_NOT_ALLOWED"),
    Attack("A1-proj-old", "{tmp}/ws/proj-old/x", "FILE_NOT_ALLOWED"),
    Attack("A1-projectile", "{tmp}/ws/projectile/x", "FILE_NOT_ALLOWED"),
    Attack("A1-proj.bak", "{tmp}/ws/proj.bak/x", "FILE_NOT_ALLOWED"),
    Attack("A1-parent-folder", "{tmp}/ws", "FILE_NOT_ALLOWED"),
    # A2 traversal
    Attack("A2-abs-dotdot", "{root}/../../etc/passwd", "INVALID_PATH"),
    Attack("A2-rel-dotdot", "a/../../x", "INVALID_PATH"),
    Attack("A2-double-slash-dotdot", "{root}//../x", "INVALID_PATH"),
    Attack("A2-bare-dotdot", "..", "INVALID_PATH"),
    Attack("A2-dotdot-sibling", "../proj2/x", "INVALID_PATH"),
    Attack("A2-deep-dotdot", "sub/./../../../etc/passwd", "INVALID_PATH"),
    # A3 in-root symlinks that leave the root (CVE-2025-53109)
    Attack("A3-file-link", "ln", "INVALID_PATH", link("ln", "{tmp}/etc/passwd")),
    Attack("A3-dir-link-new-file", "ln_dir/new.txt", "INVALID_PATH", link("ln_dir", "{tmp}/outside/dir")),
    Attack("A3-dir-link-existing", "ln_out/secret.txt", "INVALID_PATH", link("ln_out", "{tmp}/outside")),
    # A4 chains, relative escapes, dangling create targets
    Attack("A4-chain", "a", "INVALID_PATH", chain(link("b", "{tmp}/outside/secret.txt"), link("a", "b"))),
    Attack("A4-relative-escape", "rel", "INVALID_PATH", link("rel", "../../outside/secret.txt")),
    Attack("A4-nested-relative-escape", "d/e/rel", "INVALID_PATH", link("d/e/rel", "../../../../outside/secret.txt")),
    Attack("A4-dangling-outside", "dangle", "INVALID_PATH", link("dangle", "{tmp}/outside/created-by-attack.txt")),
    Attack("A4-dangling-relative", "dangle2", "INVALID_PATH", link("dangle2", "../../outside/new-by-attack.txt")),
    Attack("A4-loop", "loop1", "INVALID_PATH", chain(link("loop1", "loop2"), link("loop2", "loop1"))),
    Attack("A4-self-loop", "self/x", "INVALID_PATH", link("self", "self")),
    Attack("A4-target-dotdot-escape", "up/outside/secret.txt", "INVALID_PATH", link("up", "{root}/..")),
    Attack(
        "A4-link-via-link-escape", "me/up2/secret.txt", "INVALID_PATH",
        chain(link("me", "{root}"), link("up2", "../../outside")),
    ),
    # A7 NUL and length
    Attack("A7-nul", "a\x00b", "INVALID_PATH"),
    Attack("A7-long-path", "/".join(["d" * 200] * 25), "INVALID_PATH"),
    Attack("A7-long-name", "n" * 300, "INVALID_PATH"),
    # A10 deny rule bypass through an in-root alias (CVE-2026-25724)
    Attack("A10-alias-env", "alias", "SECRET_DENIED", chain(touch(".env", "K=1\n"), link("alias", ".env"))),
    Attack(
        "A10-abs-alias-env", "alias2", "SECRET_DENIED", chain(touch(".env", "K=1\n"), link("alias2", "{root}/.env"))
    ),
    Attack("A10-dir-alias-ssh", "cfg/id_rsa", "SECRET_DENIED", chain(touch(".ssh/id_rsa"), link("cfg", ".ssh"))),
    Attack("A10-alias-state", "st/journal.db", "NOT_PERMITTED", link("st", ".stringsh")),
    # A11 protected paths that do not exist yet must not be creatable (CVE-2026-25725)
    Attack("A11-new-env", ".env", "SECRET_DENIED"),
    Attack("A11-new-env-local", "config/.env.local", "SECRET_DENIED"),
    Attack("A11-new-ssh", ".ssh/authorized_keys", "SECRET_DENIED"),
    Attack("A11-dangling-to-env", "future", "SECRET_DENIED", link("future", ".env.production")),
    Attack("A11-state-dir", ".stringsh/journal.db", "NOT_PERMITTED"),
    Attack("A11-state-dir-dotted", "./x/../.stringsh/audit.log", "NOT_PERMITTED"),
    Attack("A11-engine-temp-name", "sub/.~stringsh-1-0.tmp", "NOT_PERMITTED"),
    # A9 case variants (the deny list folds case)
    Attack("A9-ENV", ".ENV", "SECRET_DENIED", touch(".ENV", "K=1\n")),
    Attack("A9-Env-Local", "sub/.Env.Local", "SECRET_DENIED"),
    # B1 secret files read by name
    Attack("B1-env", ".env", "SECRET_DENIED", touch(".env", "AWS_SECRET_ACCESS_KEY=abc\n")),
    Attack("B1-nested-env", "config/.env", "SECRET_DENIED", touch("config/.env", "K=1\n")),
    Attack("B1-private-key", "keys/id_ed25519", "SECRET_DENIED", touch("keys/id_ed25519")),
    Attack("B1-pem", "certs/server.pem", "SECRET_DENIED", touch("certs/server.pem")),
    Attack("B1-netrc", ".netrc", "SECRET_DENIED", touch(".netrc")),
    Attack("B1-aws", "home/.aws/credentials", "SECRET_DENIED", touch("home/.aws/credentials")),
    Attack("B1-ssh-dir", ".ssh", "SECRET_DENIED", touch(".ssh/config")),
    # B3 /proc aliases
    Attack("B3-proc-environ", "/proc/self/environ", "FILE_NOT_ALLOWED"),
    Attack("B3-proc-cwd-env", "/proc/self/cwd/.env", "FILE_NOT_ALLOWED"),
    Attack("B3-link-to-proc", "penv", "INVALID_PATH", link("penv", "/proc/self/environ")),
    Attack("B3-link-to-proc-cwd", "pcwd/notes.txt", "INVALID_PATH", link("pcwd", "/proc/self/cwd")),
]

#: Names that look dangerous but are literal names inside the root: they must work and stay inside.
LITERALS: list[tuple[str, str]] = [
    ("A2-percent-dotdot", "%2e%2e/x"),
    ("A2-inner-dot", "sub/./x"),  # a trailing `sub/.` names a folder: writes refuse it (test_write.py)
    ("A7-unicode-spaces", "dossier été/notes – v2 ✓.md"),
    ("A9-drive-relative", "C:x"),
    ("A9-drive-root", "C:\\x"),
    ("A9-unc", "\\\\srv\\share\\x"),
    ("A9-mixed-separators", "a\\..\\..\\x"),
    ("A9-ads", "README.md:x"),
    ("B2-brace-glob", "{.env.local,zzz.ts}"),
    ("B4-env-example", ".env.example"),
    ("B4-env-sample", "config/.env.sample"),
    ("pub-key", "keys/id_rsa.pub"),
]
