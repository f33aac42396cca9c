"""The policy: roots, permissions, limits, secrets, change budgets and shell settings, from TOML files.

Safe defaults when no file exists; any unknown key, wrong type or out-of-range value is an error so a typo never
weakens a rule. Which files apply, and how far a workspace's own file is believed, is layers.py's business.
Every table and key is optional:

    [[roots]]                      # the first root is the workspace; default: the start folder, read_write
    id = "main"
    path = "."                     # relative to the start folder
    mode = "read_write"            # or "read_only"
    [[roots]]                      # more roots: paths name them `docs:guide.md` (roots.py); extra roots widen,
    id = "docs"                    # so a workspace's own stringsh.toml may add only read_only ones inside it
    path = "../docs"               # unless trusted (layers.py)
    mode = "read_only"

    [permissions]                  # read list_dir stat glob grep write edit patch delete mkdir move revert shell
    delete = false

    [limits]                       # max_read_bytes max_write_bytes max_patch_bytes max_results max_line_bytes
    max_write_bytes = 1048576      # max_walk_entries max_walk_files

    [secrets]                      # globs: globs.py semantics (root-relative, `*` stays in a folder, `**`)
    deny_globs = ["*.secret"]      # added to the built-in list (.env, .env.*, keys, .ssh, .netrc, cloud creds)
    allow_globs = ["id_rsa.demo"]  # exceptions, added to .env.example / .env.sample / *.pub
    redact_regexes = ["token-[0-9a-f]{32}"]
    allow_hardlinks = false

    [changes]                      # what a change set may touch, and how much (checked before any write)
    allow_globs = ["**"]           # root-relative globs, globs.py semantics (`*` stays in a folder, `**` does not)
    deny_globs = ["vendor/**"]     # never changed, even when allowed; added to the layer below's (default: none)
    max_files = 200
    max_loc = 200000               # lines per change set: a whole-file change counts every line of its new
                                   # content, a patch (/patch, hunks) the lines it adds and removes

    [shell]
    timeout = 120.0
    output_cap = 51200
    sandbox = true                 # default: bubblewrap where it runs (else unsandboxed, said at start-up);
                                   # set true, a missing bwrap is an error; false runs the shell unsandboxed

    [shell_environment]            # what shells get of stringsh's environment (envpolicy.py): a core set
    inherit = "core"               # (PATH, HOME, LANG, …), "all" or "none"; never a name like *KEY*, *SECRET*,
    include = ["MYAPP_*"]          # *TOKEN*, *PASSWORD*, *CREDENTIAL* unless written out whole in `include` or
    exclude = ["AWS_*"]            # `set`; include, exclude and set add to the layer below's; a workspace's own
    set = { CI = "1" }             # file may only exclude more or inherit less unless trusted

    [journal]                      # how much undo history the change journal keeps (keep.py), whichever is less:
    keep_changes = 1000            # the newest change sets (the newest one is always kept)
    keep_bytes = 134217728         # bytes of previous file content (128 MiB); older change sets are pruned, to 90%
    state_dir = "/var/lib/me/st"   # where the journal, audit log and lock live (absolute or `~`); only your own
                                   # policy or --policy may set it (a workspace's never); STRINGSH_STATE_DIR wins

    [operator]                     # OPERATOR_CMD changes (write, patch, applyEdits, delete, copy, move):
    confirm = "prompt"             # ask a person (none to ask: refused), "allow" them, or "deny" them all

    [git]                          # folders outside the roots the workspace's repository may lead to (a `.git`
    allow_outside = ["~/src/main"] # file's gitdir:, commondir, alternates): absolute or `~` paths; adds to the
                                   # layer below's; a workspace's own file may not add one unless trusted

Globs and other roots. The secret globs (deny and allow, built-in and yours) are one list for every root, matched
against the path inside the root the path names, never against its `id:`: `private/**` denies
`docs:private/k.txt` as well as `private/k.txt`, and `docs:private/**` matches nothing (a root has no secret
list of its own). `[changes].allow_globs` is matched against the path as replies show it: bare for the workspace
root (even when typed `main:src/a.py`), `id:path` for another root, where `id:` and the first name form one
component. So `src/**` covers the workspace's `src/` only, `scratch:notes/**` root scratch's `notes/`,
`scratch:*` (or `scratch:**`) everything in root scratch, and a pattern without `/` (`*.md`, `**`) a name at any
depth in every root; `scratch:**/*.md` is no globstar (it means `scratch:*` then one folder's `*.md`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.envpolicy import Environment, parse_environment
from stringsh.workspace.secrets import (
    DEFAULT_ALLOW_GLOBS,
    DEFAULT_DENY_GLOBS,
    DEFAULT_REDACT_REGEXES,
    SecretMatcher,
)

if TYPE_CHECKING:
    from stringsh.workspace.redact import Redactor

POLICY_FILE = "stringsh.toml"
ROOT_ID = r"[A-Za-z0-9._-]{1,64}"  # fullmatch: `$` would accept a trailing newline
MODES = ("read_only", "read_write")
MAX_POLICY_BYTES = 1024 * 1024
MAX_PATTERNS = 256
MAX_PATTERN_BYTES = 1024
MiB = 1024 * 1024
#: Upper bounds of every number (the lower bound is 1): a limit above these is a mistake, not a setting.
CAPS: dict[str, float] = {
    "max_read_bytes": 256 * MiB, "max_write_bytes": 256 * MiB, "max_patch_bytes": 64 * MiB,
    "max_results": 1_000_000, "max_line_bytes": MiB, "max_walk_entries": 10_000_000, "max_walk_files": 10_000_000,
    "max_files": 100_000, "max_loc": 10_000_000, "timeout": 24 * 3600.0, "output_cap": 64 * MiB,
    "keep_changes": 1_000_000, "keep_bytes": 64 * 1024 * MiB,
}
#: `[operator] confirm`, from the most to the least permissive: a workspace's untrusted file may only move right.
CONFIRM_MODES = ("allow", "prompt", "deny")
#: Ordinary text a redaction pattern must not match: it would mask everything, not secrets.
ORDINARY = ("", "a", "Z", "0", " ", ".", "\n")


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
    deny_globs: tuple[str, ...] = ()
    max_files: int = 200
    max_loc: int = 200_000


class Shell(NamedTuple):
    timeout: float = 120.0
    output_cap: int = 50 * 1024
    sandbox: bool = True


class JournalKeep(NamedTuple):
    keep_changes: int = 1000
    keep_bytes: int = 128 * MiB


class Operator(NamedTuple):
    confirm: str = "prompt"


class Git(NamedTuple):
    allow_outside: tuple[str, ...] = ()


class Policy(NamedTuple):
    roots: tuple[Root, ...]
    permissions: Permissions = Permissions()
    limits: Limits = Limits()
    secrets: Secrets = Secrets()
    changes: Changes = Changes()
    shell: Shell = Shell()
    journal: JournalKeep = JournalKeep()
    #: The last policy file applied (the one a change through the workspace must never touch).
    source: Path | None = None
    #: Whether the user trusts this workspace: its `stringsh.toml` hash (or the folder, when it has none) is
    #: recorded by `stringsh trust` and unchanged since (trust.py).
    trusted: bool = False
    #: Every policy file in force, resolved, in the order applied (user config, --policy, workspace).
    files: tuple[Path, ...] = ()
    #: What the start-up line says: the layers applied, and the workspace settings ignored as widening.
    layers: tuple[str, ...] = ("defaults",)
    ignored: tuple[str, ...] = ()
    operator: Operator = Operator()
    git: Git = Git()
    #: Who set `[shell] sandbox`: a policy file's path, `--no-sandbox`, or "" for the built-in default (on where
    #: bubblewrap runs, else off with a note: shell/sandboxing.py).
    sandbox_set_by: str = ""
    #: `[journal] state_dir`: the state folder instead of the user's (userdirs.state_dir); "" keeps that one.
    state_dir: str = ""
    #: `[shell_environment]`: what the shells get of stringsh's own environment (shell/environment.py).
    environment: Environment = Environment()

    @classmethod
    def default(cls, root: str | Path) -> Policy:
        return cls(roots=(Root("main", Path(root).resolve(), "read_write"),))

    @property
    def root(self) -> Root:
        return self.roots[0]

    def matcher(self) -> SecretMatcher:
        return SecretMatcher(self.secrets.deny_globs, self.secrets.allow_globs)

    def redactor(self) -> Redactor:
        """The built-in patterns (workspace/redact.py) plus this policy's own; the default regexes are among the
        built-ins already. Compiled on first use, not at start-up."""
        from stringsh.workspace.redact import Redactor

        extra = [p for p in self.secrets.redact_regexes if p not in DEFAULT_REDACT_REGEXES]
        return Redactor(extra, self.secrets.replacement)


def _bad(source: Path, problem: str) -> StringError:
    return StringError(
        "INVALID_PAYLOAD",
        f"Bad policy file {source}: {problem}",
        "Fix the file, or remove it to use the safe defaults.",
    )


def _check_number(value: float, name: str, key: str, source: Path) -> None:
    cap = CAPS[key]
    low = 0 if key == "timeout" else 1
    if not (low < value if key == "timeout" else low <= value) or value > cap:
        raise _bad(source, f"{name}.{key} = {value} is out of range ({'above 0' if low == 0 else '1'} to {cap:g})")


def _check_globs(values: tuple[str, ...], name: str, source: Path) -> None:
    from stringsh.workspace.globs import normalise

    if len(values) > MAX_PATTERNS:
        raise _bad(source, f"{name} has {len(values)} patterns (at most {MAX_PATTERNS})")
    for glob in values:
        if len(glob.encode("utf-8", "replace")) > MAX_PATTERN_BYTES or "\x00" in glob or "\n" in glob:
            raise _bad(source, f"{name}: {glob[:40]!r} is too long or holds a NUL or newline")
        if ".." in glob.split("/"):
            raise _bad(source, f"{name}: {glob!r} has a '..' component (patterns are relative to the root)")
        if not normalise(glob):
            raise _bad(source, f"{name}: {glob!r} names no path")


def _check_regexes(values: tuple[str, ...], source: Path) -> None:
    if len(values) > MAX_PATTERNS:
        raise _bad(source, f"secrets.redact_regexes has {len(values)} patterns (at most {MAX_PATTERNS})")
    for pattern in values:
        if not pattern or len(pattern.encode("utf-8", "replace")) > MAX_PATTERN_BYTES:
            raise _bad(source, f"secrets.redact_regexes: {pattern[:40]!r} is empty or longer than 1 KiB")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise _bad(source, f"secrets.redact_regexes: {pattern!r} is not a valid regex ({exc})") from None
        if any(compiled.fullmatch(text) for text in ORDINARY):
            raise _bad(source, f"secrets.redact_regexes: {pattern!r} matches ordinary text (it would mask everything)")


def _section(cls: Any, table: Any, name: str, source: Path, base: Any = None) -> Any:
    """Build a section over `base` from a TOML table, checking every key, type and range."""
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
        if key in CAPS:
            _check_number(value, name, key, source)
        elif isinstance(value, tuple) and key.endswith("_globs"):
            _check_globs(value, f"{name}.{key}", source)
        elif key == "replacement" and (len(value) > 256 or "\n" in value):
            raise _bad(source, "secrets.replacement must be one line of at most 256 characters")
        elif name == "operator" and key == "confirm" and value not in CONFIRM_MODES:
            raise _bad(source, f"operator.confirm = {value[:40]!r} is not one of prompt, allow, deny")
        values[key] = value
    return cls(**{**defaults, **values})


def _git(raw: Any, source: Path, base: Git) -> Git:
    """`[git] allow_outside`: absolute (or `~`) folders, added to the layer below's (a file cannot drop one)."""
    section = _section(Git, raw, "git", source, base)
    if not isinstance(raw, dict) or "allow_outside" not in raw:
        return section
    if len(section.allow_outside) > MAX_PATTERNS:
        raise _bad(source, f"git.allow_outside has {len(section.allow_outside)} entries (at most {MAX_PATTERNS})")
    for entry in section.allow_outside:
        if not entry or len(entry) > 4096 or "\x00" in entry or "\n" in entry or not (
                os.path.isabs(entry) or entry.startswith("~")):
            raise _bad(source, f"git.allow_outside: {entry[:40]!r} is not an absolute path")
    return Git(allow_outside=base.allow_outside + section.allow_outside)


def _roots(raw: Any, source: Path, workspace_root: Path) -> tuple[Root, ...]:
    if not isinstance(raw, list) or not raw:
        raise _bad(source, "[[roots]] must be a non-empty array of tables")
    if len(raw) > 64:
        raise _bad(source, "[[roots]] names more than 64 roots")
    roots: list[Root] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _bad(source, f"roots[{index}] must be a table")
        extra = set(item) - {"id", "path", "mode"}
        if extra:
            raise _bad(source, f"unknown key {sorted(extra)[0]!r} in roots[{index}]")
        rid, path, mode = item.get("id", f"root{index}"), item.get("path"), item.get("mode", "read_write")
        if not isinstance(rid, str) or not re.fullmatch(ROOT_ID, rid):
            raise _bad(source, f"roots[{index}].id must match [A-Za-z0-9._-]{{1,64}}")
        if not isinstance(path, str) or not path or "\x00" in path or "\n" in path or len(path) > 4096:
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


def parse_policy(text: str, source: Path, workspace_root: Path, base: Policy | None = None) -> Policy:
    """The policy `text` makes of `base` (the defaults when None): what it names replaces, globs and regexes add."""
    import tomllib  # only when a policy file exists

    base = base if base is not None else Policy.default(workspace_root)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _bad(source, f"not valid TOML ({exc})") from None
    known = {"roots", "permissions", "limits", "secrets", "changes", "shell", "journal", "operator", "git",
             "shell_environment"}
    extra = set(data) - known
    if extra:
        raise _bad(source, f"unknown section {sorted(extra)[0]!r} (known: {', '.join(sorted(known))})")
    roots = _roots(data["roots"], source, workspace_root) if "roots" in data else base.roots
    secrets_table = dict(data.get("secrets", {})) if isinstance(data.get("secrets", {}), dict) else None
    if secrets_table is None:
        raise _bad(source, "[secrets] must be a table")
    # Deny globs, allow globs and redaction patterns add to what the layer below had: a file cannot drop one.
    secrets = _section(Secrets, secrets_table, "secrets", source, base.secrets)
    for key in ("deny_globs", "allow_globs", "redact_regexes"):
        if key in secrets_table:
            secrets = secrets._replace(**{key: getattr(base.secrets, key) + getattr(secrets, key)})
    if "redact_regexes" in secrets_table:
        _check_regexes(tuple(secrets_table["redact_regexes"]), source)
    changes = _section(Changes, data.get("changes", {}), "changes", source, base.changes)
    if isinstance(data.get("changes"), dict) and "deny_globs" in data["changes"]:  # adds, like the secret denies
        changes = changes._replace(deny_globs=base.changes.deny_globs + changes.deny_globs)
    limits = _section(Limits, data.get("limits", {}), "limits", source, base.limits)
    journal_table = dict(data.get("journal", {})) if isinstance(data.get("journal", {}), dict) else None
    if journal_table is None:
        raise _bad(source, "[journal] must be a table")
    state_dir = journal_table.pop("state_dir", base.state_dir)
    if not isinstance(state_dir, str) or (state_dir and not os.path.isabs(os.path.expanduser(state_dir))):
        raise _bad(source, "journal.state_dir must be an absolute folder path (or start with ~)")
    if limits.max_walk_files > limits.max_walk_entries:
        raise _bad(source, "limits.max_walk_files must not be above limits.max_walk_entries")
    return base._replace(
        roots=roots,
        permissions=_section(Permissions, data.get("permissions", {}), "permissions", source, base.permissions),
        limits=limits,
        secrets=secrets,
        changes=changes,
        shell=_section(Shell, data.get("shell", {}), "shell", source, base.shell),
        journal=_section(JournalKeep, journal_table, "journal", source, base.journal),
        operator=_section(Operator, data.get("operator", {}), "operator", source, base.operator),
        git=_git(data.get("git", {}), source, base.git),
        environment=parse_environment(data.get("shell_environment", {}), source, base.environment),
        source=source,
        sandbox_set_by=str(source) if "sandbox" in data.get("shell", {}) else base.sandbox_set_by,
        state_dir=state_dir,
    )


def read_policy_file(source: Path, *, inside: Path | None = None) -> str:
    """A policy file's text, read like any untrusted file: a regular file (a FIFO must not hang start-up), at
    most 1 MiB; with `inside` (the workspace root), a symlink must stay inside that folder."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    target = source
    if inside is not None and source.is_symlink():
        target = source.resolve()
        if not target.is_relative_to(inside.resolve()):
            raise StringError(
                "NOT_PERMITTED",
                f"Policy file {source} is a symlink to a file outside the workspace: {target}",
                "Replace the link with the file itself, or give a policy of your own with --policy FILE.",
            )
    if inside is not None:
        flags |= os.O_NOFOLLOW  # checked (or resolved) above: a link swapped in since is refused, not followed
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        raise _bad(source, "file not found") from None
    except OSError as exc:
        raise _bad(source, f"cannot be read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _bad(source, "not a regular file")
        data = os.read(fd, MAX_POLICY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_POLICY_BYTES:
        raise _bad(source, f"larger than {MAX_POLICY_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(source, f"cannot be read ({exc})") from None
