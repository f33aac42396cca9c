"""What makes running git in an untrusted repository safe: the environment and the config overrides.

The workspace writes `.git/config` (and files it includes), `.gitattributes` and hooks; any of them can name a
program git would run (a filter, fsmonitor, a pager, an external diff, a credential helper, receive-pack...). The
environment is built from scratch (no inherited GIT_* variable but the user's identity), system config is off, the
global config is the user's own (`$XDG_CONFIG_HOME/git/config`, `~/.gitconfig`, then stringsh's `<config>/gitconfig`,
as trusted as their policy) or nothing, and every key that could run a program, in any scope (includes
followed), is overridden in the command-line scope, which git reads last. The overrides travel as
GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n (git 2.31+), not `-c`: `-c` splits at the first `=`, so a
driver named `a=b` (`[filter "a=b"]`) could not be overridden. Hooks are disabled with `core.hooksPath=/dev/null`
(a path under /dev/null can never exist; an empty value would make git look for `/<hook>`).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from stringsh.userdirs import config_dir

#: Always set in the command-line scope, whatever the config says.
FIXED = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.pager=cat",
    "core.editor=true",
    "core.askPass=",
    "core.sshCommand=ssh -o BatchMode=yes",
    "core.alternateRefsCommand=true",
    "credential.helper=",  # an empty value empties the helper list read so far (every scope, every URL)
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "log.showSignature=false",
    "color.ui=false",
    "advice.detachedHead=false",
    "http.sslVerify=true",
    "submodule.recurse=false",  # a submodule's own config and attributes were never read for overrides
    "push.recurseSubmodules=no",
    "status.submoduleSummary=false",
    "core.quotePath=false",
)

#: Keys (lower case, subsection in the middle) whose value is a program, and what replaces it; a key in any
#: config scope matching one of these is overridden with the same spelling, so URL- or driver-specific keys lose.
#: (`diff.external` is not here: an empty value is run; every diff-making call passes `--no-ext-diff`. Nor are
#: `remote.*.receivepack`/`uploadpack`: the first value wins, so push passes `--receive-pack=git-receive-pack`, and
#: nothing else reaches a remote: GIT_ALLOW_PROTOCOL is empty, no lazy fetch.)
DANGEROUS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"filter\..+\.(clean|smudge|process)"), ""),
    (re.compile(r"filter\..+\.required"), "false"),
    (re.compile(r"diff\..+\.(textconv|command)"), "true"),
    (re.compile(r"merge\..+\.driver"), "true"),
    (re.compile(r"gpg(\..+)?\.program"), "false"),
    (re.compile(r"gpg\.ssh\.defaultkeycommand"), "false"),
    (re.compile(r"credential\..+\.helper"), ""),
    (re.compile(r"core\.gitproxy"), ""),
    (re.compile(r"uploadpack\.packobjectshook"), ""),
)

#: Network settings that could send a push (and its credentials) through someone else's proxy or CA: overridden
#: from the repository, kept from the user's own gitconfig.
NETWORK: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"remote\..+\.proxy"), ""),
    (re.compile(r"http\.(.+\.)?proxy"), ""),
    (re.compile(r"http\..+\.sslverify"), "true"),
    (re.compile(r"http\.(.+\.)?sslcainfo"), ""),
    (re.compile(r"http\.(.+\.)?sslcapath"), ""),
)

#: Environment variables passed through from stringsh's own environment (nothing GIT_*).
PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
#: ... and for `push` only, which talks to the network the user configured.
PASSED_PUSH = ("SSH_AUTH_SOCK", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
               "GIT_SSL_CAINFO", "SSL_CERT_FILE", "SSL_CERT_DIR")

#: The identity variables git reads before any config: the user's own, passed through as set.
PASSED_IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
                   "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL")

#: Transports: none for local subcommands (no lazy fetch from a promisor remote), these for push (no plain http:
#: a credential would travel in clear; no `ext::`, `fd::` or remote helpers a repository could name).
PUSH_PROTOCOLS = "file:https:ssh"


class ConfigEntry(NamedTuple):
    scope: str  # "global", "local", "worktree", "command"
    key: str  # lower-cased section and name, subsection as written
    value: str


def user_gitconfig() -> Path:
    """The user's own git settings for stringsh (identity, credential helpers): `<config>/gitconfig`."""
    return config_dir() / "gitconfig"


def user_git_files() -> list[Path]:
    """The user's own git config files, in git's order (a later one wins): `$XDG_CONFIG_HOME/git/config` (or
    `~/.config/git/config`), `~/.gitconfig`, then stringsh's `<config>/gitconfig`; only those that exist."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    try:
        home: Path | None = Path.home()
    except RuntimeError:  # no HOME and no password entry
        home = None
    candidates = [Path(xdg) / "git" / "config"] if os.path.isabs(xdg) else []
    if home is not None:
        candidates += [] if candidates else [home / ".config" / "git" / "config"]
        candidates.append(home / ".gitconfig")
    candidates.append(user_gitconfig())
    return [path for path in candidates if os.path.isfile(path)]


def _quoted(path: Path) -> str:
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def global_config_file(state: Path) -> str:
    """The global config git reads: the user's one file, or one file including each of theirs in order
    (`state/git-global.config`, outside every workspace, rewritten only when the list changes), or /dev/null. An
    included file's own `~` means the HOME git runs with (stringsh's, empty): `include.path = ~/x` in them is
    not followed, a relative include is."""
    files = user_git_files()
    if len(files) < 2:
        return str(files[0]) if files else "/dev/null"
    text = "# Written by stringsh: the user's own git config files, for /git.\n[include]\n" + "".join(
        f"\tpath = {_quoted(path.resolve())}\n" for path in files)
    target = state / "git-global.config"
    try:
        if target.read_text(encoding="utf-8", errors="replace") == text:
            return str(target)
    except OSError:
        pass
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = target.with_name(f".git-global.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, target)
    return str(target)


def user_credentials() -> Path:
    """Credentials for `/git push` in git-credential-store format: `<config>/git-credentials` (0600)."""
    return config_dir() / "git-credentials"


def base_env(root: Path, state: Path, *, push: bool = False, global_config: bool = True) -> dict[str, str]:
    """The whole environment git runs with: nothing inherited but the basics, no pager, editor, prompt or askpass,
    no system config, the user's own git config (or nothing) as the global one, the user's identity variables."""
    env = {name: os.environ[name] for name in PASSED if name in os.environ}
    if push:
        env.update({name: os.environ[name] for name in PASSED_PUSH if name in os.environ})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update({name: os.environ[name] for name in PASSED_IDENTITY if name in os.environ})
    home = str(state / "git-home")  # never created: no ~/.gitconfig, ~/.config/git/attributes or ignore
    env.update({
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "GIT_DIR": str(root / ".git"),
        "GIT_WORK_TREE": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": global_config_file(state) if global_config else "/dev/null",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_EDITOR": "true",
        "GIT_SEQUENCE_EDITOR": "true",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "",  # set and empty: neither core.askPass nor SSH_ASKPASS is tried
        "SSH_ASKPASS_REQUIRE": "never",
        "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
        "GIT_ALLOW_PROTOCOL": PUSH_PROTOCOLS if push else "",
        "GIT_LITERAL_PATHSPECS": "1",  # a path is a path: no `:(magic)`, no globs
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
        "NO_COLOR": "1",
        "TERM": "dumb",
    })
    return env


def parse_config(listing: bytes) -> list[ConfigEntry]:
    """`git config --list --null --show-scope --includes` output: scope NUL key LF value NUL, repeated."""
    fields = listing.decode("utf-8", "surrogateescape").split("\0")
    entries = []
    for scope, item in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = item.partition("\n")
        entries.append(ConfigEntry(scope, key, value))
    return entries


def _lower_key(key: str) -> str:
    """Section and name are case-insensitive, the subsection is not: lower the first and last parts only."""
    section, _, rest = key.partition(".")
    middle, _, name = rest.rpartition(".")
    return f"{section.lower()}.{middle}.{name.lower()}" if middle else f"{section.lower()}.{name.lower()}"


Override = tuple[str, str]


def overrides(entries: Iterable[ConfigEntry]) -> list[Override]:
    """(key, value) for every config key that names a program, after the fixed ones."""
    pairs: list[Override] = [(key, value) for key, _, value in (item.partition("=") for item in FIXED)]
    seen: set[str] = set()
    for entry in entries:
        key = _lower_key(entry.key)
        if key in seen:
            continue
        rules = DANGEROUS if entry.scope == "global" else DANGEROUS + NETWORK
        for pattern, safe in rules:
            if pattern.fullmatch(key.lower()):
                seen.add(key)
                pairs.append((entry.key, safe))
                break
    return pairs


def push_helpers(entries: Iterable[ConfigEntry]) -> list[Override]:
    """The credential helpers the user configured for stringsh, to follow the reset: the store file
    `<config>/git-credentials`, then the global-scope helpers of `entries` (the runner passes those of
    `<config>/gitconfig` only)."""
    pairs: list[Override] = []
    store = user_credentials()
    if store.is_file():
        pairs.append(("credential.helper", f"store --file={shlex.quote(str(store))}"))
    for entry in entries:
        key = _lower_key(entry.key)
        if entry.scope == "global" and key.startswith("credential.") and key.endswith(".helper") and entry.value:
            pairs.append((entry.key, entry.value))
    return pairs


def config_env(pairs: Iterable[Override]) -> dict[str, str]:
    """The pairs as command-line-scope config variables (any key spelling, `=` in a subsection included)."""
    env: dict[str, str] = {}
    count = 0
    for count, (key, value) in enumerate(pairs, 1):
        env[f"GIT_CONFIG_KEY_{count - 1}"] = key
        env[f"GIT_CONFIG_VALUE_{count - 1}"] = value
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def identity_env(entries: Iterable[ConfigEntry]) -> Mapping[str, str]:
    """Author and committer from the effective user.name/user.email (git reads them itself outside a sandbox;
    inside one the user's gitconfig is hidden, so they travel as variables)."""
    found: dict[str, str] = {}
    for entry in entries:
        key = _lower_key(entry.key)
        if key in ("user.name", "user.email"):
            found[key] = entry.value
    env: dict[str, str] = {}
    if "user.name" in found:
        env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = found["user.name"]
    if "user.email" in found:
        env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = found["user.email"]
    return env
