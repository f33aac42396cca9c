"""`[shell_environment]`: which of stringsh's own environment variables the shells it starts receive, as Codex's
`shell_environment_policy` decides it (inherit, exclude patterns, set), plus `include` for names past the core set.

    [shell_environment]
    inherit = "core"               # "core" (default: PATH, HOME, USER, LANG, LC_*, TZ, TMPDIR, …), "all" or "none"
    include = ["MYAPP_*", "GITHUB_TOKEN"]   # also passed (adds to the layer below's); a name that looks like a
                                   # secret (*KEY*, *SECRET*, *TOKEN*, *PASSWORD*, *CREDENTIAL*) only when written
                                   # out whole, never through a pattern or `inherit = "all"`
    exclude = ["AWS_*"]            # never passed, whatever else says so (adds to the layer below's)
    set = { CI = "1" }             # these values, whatever the environment holds

Patterns are case-insensitive globs (`*`, `?`, `[…]`) over names. The environment itself is built in one place,
shell/environment.py. A workspace's untrusted `stringsh.toml` may only narrow: exclude more, or inherit less;
an `include`, a `set` or a wider `inherit` waits for `stringsh trust` (layers.py names it as ignored).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from stringsh.errors import StringError

#: From the widest to the narrowest: an untrusted workspace may only move right.
INHERIT = ("all", "core", "none")
#: A name or glob over names: letters, digits, `_`, and the glob characters.
PATTERN = re.compile(r"[A-Za-z0-9_*?\[\]!-]{1,256}")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,255}")
KEYS = ("inherit", "include", "exclude", "set")
MAX_ENTRIES = 256
MAX_VALUE = 32 * 1024


class Environment(NamedTuple):
    """One policy's `[shell_environment]`; `set` is (name, value) pairs in the order written."""

    inherit: str = "core"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    set: tuple[tuple[str, str], ...] = ()


#: The built-in rule: the core set, nothing included, excluded or set.
DEFAULT_ENVIRONMENT = Environment()


def _bad(source: Path, problem: str) -> StringError:
    return StringError("INVALID_PAYLOAD", f"Bad policy file {source}: shell_environment.{problem}",
                       "Fix the file, or remove it to use the safe defaults.")


def parse_environment(raw: Any, source: Path, base: Environment) -> Environment:
    """The section `raw` makes of `base`: `inherit` replaces, `include`, `exclude` and `set` add to base's."""
    if not isinstance(raw, dict):
        raise StringError("INVALID_PAYLOAD", f"Bad policy file {source}: [shell_environment] must be a table",
                          "Fix the file, or remove it to use the safe defaults.")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise StringError("INVALID_PAYLOAD", f"Bad policy file {source}: unknown key {unknown[0]!r} in "
                          f"[shell_environment] (known: {', '.join(sorted(KEYS))})",
                          "Fix the file, or remove it to use the safe defaults.")
    inherit = raw.get("inherit", base.inherit)
    if inherit not in INHERIT:
        raise _bad(source, f"inherit = {str(inherit)[:40]!r} is not one of core, all, none")
    include = base.include + _patterns(raw, "include", source)
    exclude = base.exclude + _patterns(raw, "exclude", source)
    pairs = dict(base.set)
    pairs.update(_values(raw.get("set", {}), source))
    return Environment(inherit, tuple(dict.fromkeys(include)), tuple(dict.fromkeys(exclude)), tuple(pairs.items()))


def _patterns(raw: dict[str, Any], key: str, source: Path) -> tuple[str, ...]:
    values = raw.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _bad(source, f"{key} must be a list of names or patterns")
    if len(values) > MAX_ENTRIES:
        raise _bad(source, f"{key} has {len(values)} entries (at most {MAX_ENTRIES})")
    for value in values:
        if not PATTERN.fullmatch(value):
            raise _bad(source, f"{key}: {value[:40]!r} is not a variable name or pattern (letters, digits, _, * ? [])")
    return tuple(values)


def _values(raw: Any, source: Path) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise _bad(source, "set must be a table of NAME = \"value\"")
    if len(raw) > MAX_ENTRIES:
        raise _bad(source, f"set has {len(raw)} entries (at most {MAX_ENTRIES})")
    for name, value in raw.items():
        if not NAME.fullmatch(name):
            raise _bad(source, f"set: {name[:40]!r} is not a variable name")
        if not isinstance(value, str) or "\x00" in value or len(value) > MAX_VALUE:
            raise _bad(source, f"set.{name} must be a string of at most {MAX_VALUE} characters, without NUL")
    return dict(raw)


def narrow_environment(base: Environment, wanted: Environment, ignored: list[str]) -> Environment:
    """An untrusted workspace's section over `base`: its excludes and a narrower `inherit` kept; an `include`, a
    `set` or a wider `inherit` put back to base's, each named in `ignored`."""
    inherit = wanted.inherit
    if INHERIT.index(inherit) < INHERIT.index(base.inherit):
        inherit, _ = base.inherit, ignored.append("shell_environment.inherit")
    include = wanted.include
    if include != base.include:
        include, _ = base.include, ignored.append("shell_environment.include")
    pairs = wanted.set
    if pairs != base.set:
        pairs, _ = base.set, ignored.append("shell_environment.set")
    return Environment(inherit, include, wanted.exclude, pairs)
