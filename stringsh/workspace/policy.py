"""The policy: roots, permissions, limits, secrets, change budgets and shell settings, from `stringsh.toml`.

Safe defaults when no file exists; any unknown key or wrong type is an error so a typo never weakens a rule.
Every table and key is optional:

    [[roots]]                      # the first root is the workspace; default: the start folder, read_write
    id = "main"
    path = "."                     # relative to the start folder
    mode = "read_write"            # or "read_only"

    [permissions]                  # read list_dir stat glob grep write edit patch delete mkdir move revert shell
    delete = false

    [limits]                       # max_read_bytes max_write_bytes max_patch_bytes max_results max_line_bytes
    max_write_bytes = 1048576      # max_walk_entries max_walk_files

    [secrets]
    deny_globs = ["*.secret"]      # added to the built-in list (.env, .env.*, keys, .ssh, .netrc, cloud creds)
    allow_globs = ["id_rsa.demo"]  # exceptions, added to .env.example / .env.sample / *.pub
    redact_regexes = ["token-[0-9a-f]{32}"]
    allow_hardlinks = false

    [changes]                      # what a change set may touch, and how much
    allow_globs = ["**"]           # fnmatch on the resolved path; `*` also matches `/`
    max_files = 200
    max_loc = 200000               # lines of new content per change set

    [shell]
    timeout = 120.0
    output_cap = 51200
    sandbox = false
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.secrets import (
    DEFAULT_ALLOW_GLOBS,
    DEFAULT_DENY_GLOBS,
    DEFAULT_REDACT_REGEXES,
    Redactor,
    SecretMatcher,
)

POLICY_FILE = "stringsh.toml"
ROOT_ID = r"^[A-Za-z0-9._-]{1,64}$"  # compiled only when a policy file names roots
MODES = ("read_only", "read_write")


# The sections are immutable NamedTuples rather than frozen dataclasses: every command, `/ls` included, loads
# the policy, and on Python 3.11 a frozen dataclass costs about five times as much to define.


class Root(NamedTuple):
    id: str
    path: Path
    mode: str = "read_write"


class Permissions(NamedTuple):
    read: bool = True
    list_dir: bool = True
    stat: bool = True
    glob: bool = True
    grep: bool = True
    write: bool = True
    edit: bool = True
    patch: bool = True
    delete: bool = True
    mkdir: bool = True
    move: bool = True
    revert: bool = True
    shell: bool = True


class Limits(NamedTuple):
    max_read_bytes: int = 8 * 1024 * 1024
    max_write_bytes: int = 8 * 1024 * 1024
    max_patch_bytes: int = 1024 * 1024
    max_results: int = 2000
    max_line_bytes: int = 4096
    max_walk_entries: int = 500_000
    max_walk_files: int = 200_000


class Secrets(NamedTuple):
    deny_globs: tuple[str, ...] = DEFAULT_DENY_GLOBS
    allow_globs: tuple[str, ...] = DEFAULT_ALLOW_GLOBS
    redact_regexes: tuple[str, ...] = DEFAULT_REDACT_REGEXES
    replacement: str = "***REDACTED***"
    #: Hard links can alias a secret outside the root that no path rule sees; refuse them unless allowed.
    allow_hardlinks: bool = False


class Changes(NamedTuple):
    allow_globs: tuple[str, ...] = ("**",)
    max_files: int = 200
    max_loc: int = 200_000


class Shell(NamedTuple):
    timeout: float = 120.0
    output_cap: int = 50 * 1024
    sandbox: bool = False


class Policy(NamedTuple):
    roots: tuple[Root, ...]
    permissions: Permissions = Permissions()
    limits: Limits = Limits()
    secrets: Secrets = Secrets()
    changes: Changes = Changes()
    shell: Shell = Shell()
    source: Path | None = None

    @classmethod
    def default(cls, root: str | Path) -> Policy:
        return cls(roots=(Root("main", Path(root).resolve(), "read_write"),))

    @property
    def root(self) -> Root:
        return self.roots[0]

    def matcher(self) -> SecretMatcher:
        return SecretMatcher(self.secrets.deny_globs, self.secrets.allow_globs)

    def redactor(self) -> Redactor:
        return Redactor(self.secrets.redact_regexes, self.secrets.replacement)


def _bad(source: Path, problem: str) -> StringError:
    return StringError(
        "INVALID_PAYLOAD",
        f"Bad policy file {source}: {problem}",
        "Fix the file, or remove it to use the safe defaults.",
    )


def _section(cls: Any, table: Any, name: str, source: Path, base: Any = None) -> Any:
    """Build a section from a TOML table, checking every key and type."""
    if not isinstance(table, dict):
        raise _bad(source, f"[{name}] must be a table")
    known = cls._fields
    values: dict[str, Any] = {}
    defaults = (base if base is not None else cls())._asdict()
    for key, value in table.items():
        if key not in known:
            raise _bad(source, f"unknown key {key!r} in [{name}] (known: {', '.join(sorted(known))})")
        expected = defaults[key]
        if isinstance(expected, bool):
            ok = isinstance(value, bool)
        elif isinstance(expected, int | float):
            ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
            if ok and isinstance(expected, int):
                ok = isinstance(value, int)
        elif isinstance(expected, tuple):
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            value = tuple(value)
        else:
            ok = isinstance(value, str)
        if not ok:
            raise _bad(source, f"{name}.{key} has the wrong type ({type(value).__name__})")
        values[key] = value
    return cls(**{**defaults, **values})


def _roots(raw: Any, source: Path, workspace_root: Path) -> tuple[Root, ...]:
    if not isinstance(raw, list) or not raw:
        raise _bad(source, "[[roots]] must be a non-empty array of tables")
    roots: list[Root] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _bad(source, f"roots[{index}] must be a table")
        extra = set(item) - {"id", "path", "mode"}
        if extra:
            raise _bad(source, f"unknown key {sorted(extra)[0]!r} in roots[{index}]")
        rid, path, mode = item.get("id", f"root{index}"), item.get("path"), item.get("mode", "read_write")
        if not isinstance(rid, str) or not re.match(ROOT_ID, rid):
            raise _bad(source, f"roots[{index}].id must match [A-Za-z0-9._-]{{1,64}}")
        if not isinstance(path, str) or not path or "\x00" in path:
            raise _bad(source, f"roots[{index}].path must be a non-empty string")
        if mode not in MODES:
            raise _bad(source, f"roots[{index}].mode must be one of {', '.join(MODES)}")
        resolved = (workspace_root / path).resolve() if not Path(path).is_absolute() else Path(path).resolve()
        if not resolved.is_dir():
            raise _bad(source, f"roots[{index}].path {path!r} is not a directory")
        if any(r.id == rid for r in roots):
            raise _bad(source, f"duplicate root id {rid!r}")
        roots.append(Root(rid, resolved, mode))
    return tuple(roots)


def parse_policy(text: str, source: Path, workspace_root: Path) -> Policy:
    import tomllib  # only when a policy file exists

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _bad(source, f"not valid TOML ({exc})") from None
    known = {"roots", "permissions", "limits", "secrets", "changes", "shell"}
    extra = set(data) - known
    if extra:
        raise _bad(source, f"unknown section {sorted(extra)[0]!r} (known: {', '.join(sorted(known))})")
    roots = _roots(data["roots"], source, workspace_root) if "roots" in data else Policy.default(workspace_root).roots
    secrets_table = dict(data.get("secrets", {})) if isinstance(data.get("secrets", {}), dict) else None
    if secrets_table is None:
        raise _bad(source, "[secrets] must be a table")
    # Deny globs add to the defaults: a policy file can relax the list only through allow_globs.
    base = Secrets()
    secrets = _section(Secrets, secrets_table, "secrets", source)
    if "deny_globs" in secrets_table:
        secrets = secrets._replace(deny_globs=base.deny_globs + secrets.deny_globs)
    if "allow_globs" in secrets_table:
        secrets = secrets._replace(allow_globs=base.allow_globs + secrets.allow_globs)
    for pattern in secrets.redact_regexes:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _bad(source, f"secrets.redact_regexes: {pattern!r} is not a valid regex ({exc})") from None
    return Policy(
        roots=roots,
        permissions=_section(Permissions, data.get("permissions", {}), "permissions", source),
        limits=_section(Limits, data.get("limits", {}), "limits", source),
        secrets=secrets,
        changes=_section(Changes, data.get("changes", {}), "changes", source),
        shell=_section(Shell, data.get("shell", {}), "shell", source),
        source=source,
    )


def load_policy(root: str | Path, policy_file: Path | None = None) -> Policy:
    """`policy_file` wins; otherwise `stringsh.toml` in the root; otherwise the defaults."""
    workspace_root = Path(root).resolve()
    source = Path(policy_file) if policy_file is not None else workspace_root / POLICY_FILE
    if policy_file is None and not source.exists():
        return Policy.default(workspace_root)
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _bad(source, "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(source, f"cannot be read ({exc})") from None
    return parse_policy(text, source, workspace_root)
