"""Whether the shell runs in bubblewrap, and why not; and, when it does not, the best-effort refusal of a command
that names a secret path.

The sandbox is on by default wherever bubblewrap runs. It is off only when the user said so (`[shell] sandbox =
false` in their own, `--policy` or a trusted workspace's file, or `--no-sandbox`; an untrusted workspace cannot,
layers.py) or when bubblewrap is missing or cannot run here and the policy did not ask for it by name (asked for
by name, a missing bwrap is an error: providers.require_bwrap). An unsandboxed shell reads what its user can, so
a command that names a path on the secret deny list (`cat .env`, `base64 ./.env`, `< .env`, `cp .env x`) is
refused with SECRET_DENIED. That is a scan of the command's words, not a boundary: globs (`cat .e*`), variables,
command substitution built from pieces and scripts defeat it; only the sandbox masks the file itself.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.policy import Policy
    from stringsh.workspace.secrets import SecretMatcher
    from stringsh.workspace.shell.providers import BwrapProbe

#: Where a word of a command is cut further to find the paths inside it (`--file=.env`, `$(cat .env)`, `a:.env`).
INNER = re.compile(r"[\s=`$(){}:,;<>|&'\"]+")


class SandboxChoice(NamedTuple):
    """`sandbox`: "bubblewrap" or "none"; `why_not`: why the shell is not sandboxed (None when it is)."""

    sandbox: str
    why_not: str | None = None


def choose_sandbox(policy: Policy, probe: BwrapProbe | None = None) -> SandboxChoice:
    """The sandbox the shell runs in under `policy`: bubblewrap when asked for, or by default where it works."""
    from stringsh.workspace.layers import NO_SANDBOX, shown_path
    from stringsh.workspace.shell.providers import BwrapProbe

    if not policy.shell.sandbox:
        by = policy.sandbox_set_by
        return SandboxChoice("none", by if by == NO_SANDBOX else f"[shell] sandbox = false in {shown_path(Path(by))}")
    if policy.sandbox_set_by:
        return SandboxChoice("bubblewrap")  # asked for by name: a missing bwrap is an error, never a fallback
    path = shutil.which("bwrap")
    if path is None:
        return SandboxChoice("none", "bwrap is not installed")
    problem = (probe or BwrapProbe()).problem(path)
    if problem is not None:
        first = (problem.splitlines() or ["it failed"])[0][:200]
        return SandboxChoice("none", f"bwrap cannot run here: {first}")
    return SandboxChoice("bubblewrap")


def shell_note(sandbox: str, why_not: str | None) -> str | None:
    """What the start-up line adds when the shell is not sandboxed, None when it is."""
    if sandbox != "none" or why_not is None:
        return None
    return (f"shell not sandboxed ({why_not}): it runs with your rights; commands naming a secret path are "
            "refused (best effort)")


def named_secret(command: str, matcher: SecretMatcher, root: Path, cwd: Path | None = None) -> str | None:
    """The first word of `command` that names a path the deny list covers, or None. `root` is the workspace,
    `cwd` the folder the command runs in (relative words are also checked from there)."""
    here = _inside(Path(cwd), root) if cwd is not None else ""
    for word in _words(command):
        for candidate in _paths(word, root, here or ""):
            if candidate and matcher.denied(candidate):
                return word
    return None


def refuse_named_secret(command: str, matcher: SecretMatcher, root: Path, cwd: Path | None, why_not: str) -> None:
    """SECRET_DENIED when an unsandboxed command names a secret path (`why_not` says why it is unsandboxed)."""
    word = named_secret(command, matcher, root, cwd)
    if word is not None:
        raise StringError(
            "SECRET_DENIED",
            f"The command names a secret file: {word}",
            f"The shell is not sandboxed ({why_not}), so a command naming a path on the secret deny list is refused.",
        )


def _words(command: str) -> list[str]:
    """The command's words as bash would split them (quotes removed, `<`, `|`, `;` apart), each also cut at the
    characters that join paths to other text; a command shlex cannot split (an open quote) is cut at them all."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = [command]
    words: list[str] = []
    for token in tokens:
        words.append(token)
        words += [part for part in INNER.split(token) if part and part != token]
    return words


def _paths(word: str, root: Path, here: str) -> list[str]:
    """The root-relative paths a word may name: as written, from the shell's folder when it names something there
    (so `cat` is no path), and inside an absolute path (under the root, or the whole path: `~/.ssh/id_rsa`)."""
    text = os.path.expanduser(word.strip()) if word.startswith("~") else word.strip()
    if not text or (text.startswith("-") and "/" not in text):
        return []
    if text.startswith("/"):
        inside = _inside(Path(text), root)
        return [_clean(inside)] if inside is not None else [_clean(text)]
    found = bool(here) and os.path.lexists(root / here / text)  # from the shell's folder: only what is there
    return [_clean(text), _clean(posixpath.join(here, text))] if found else [_clean(text)]


def _inside(path: Path, root: Path) -> str | None:
    """`path` relative to the root (lexically, as the shell would write it), or None when it is not under it."""
    normal = Path(posixpath.normpath(str(path)))
    for base in {root, root.resolve()}:
        if normal == base:
            return ""
        if normal.is_relative_to(base):
            return normal.relative_to(base).as_posix()
    return None


def _clean(text: str) -> str:
    """A path the matcher can take: normalised, no leading `/`, `./` or `../` (a secret's name is what counts)."""
    parts = [part for part in posixpath.normpath(text).split("/") if part not in ("", ".", "..")]
    return "/".join(parts)
