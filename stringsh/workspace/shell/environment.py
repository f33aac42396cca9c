"""The one place the environment of every shell stringsh starts is built: the topic shell (`!cmd`, bash topics,
MCP `bash`), `/exec`, the JSON tools' `bash` and CLI actions, sandboxed or not; and the process variables a
trusted workspace's HTTP actions may name as `$VAR`.

Masking output cannot protect what the process already holds: a secret in stringsh's own environment is
withheld from the shell, not hidden after it is printed. So, as Codex's `shell_environment_policy`: start from the
`inherit` set (by default a core set a shell needs to work), add what the user's policy includes, drop every
name that looks like a secret unless the user's policy wrote that name out, drop what any layer excludes, then
set the policy's values (envpolicy.py has the section and who may set what).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

from stringsh.workspace.envpolicy import DEFAULT_ENVIRONMENT, Environment

#: What a shell needs to work: where programs are, who and where the user is, language, terminal, time zone,
#: temporary folder (`LC_*` too). PWD, OLDPWD and SHLVL are bash's own.
CORE = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "USERNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "TEMP",
    "TMP", "COLUMNS", "LINES",
})
CORE_PREFIXES = ("LC_",)
#: Names that look like secrets (case-insensitive): passed only when the user's policy writes the name out whole.
SECRET_PATTERNS = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*")
#: The built-in rule (the start-up line names the rule only when it is not this one).
DEFAULT = DEFAULT_ENVIRONMENT


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def is_core(name: str) -> bool:
    return name in CORE or name.startswith(CORE_PREFIXES)


def looks_secret(name: str) -> bool:
    return _matches(name, SECRET_PATTERNS)


def named(rule: Environment) -> frozenset[str]:
    """The names the user wrote out whole (an `include` entry that is no pattern, a `set` key), upper-cased."""
    literal = {entry.upper() for entry in rule.include if not re.search(r"[*?\[]", entry)}
    return frozenset(literal | {name.upper() for name, _ in rule.set})


def passed(rule: Environment, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of `environ` (stringsh's own by default) the rule passes, then its `set` values."""
    source = os.environ if environ is None else environ
    spelled = named(rule)
    env: dict[str, str] = {}
    for name, value in source.items():
        if rule.inherit == "all" or (rule.inherit == "core" and is_core(name)) or _matches(name, rule.include):
            if looks_secret(name) and name.upper() not in spelled:
                continue
            env[name] = value
    env.update(rule.set)
    return {name: value for name, value in env.items() if not _matches(name, rule.exclude)}


def withheld(rule: Environment, name: str, environ: Mapping[str, str] | None = None) -> bool:
    """True when `name` is in stringsh's environment but the rule does not pass it (a reply can say why)."""
    source = os.environ if environ is None else environ
    return name in source and name not in passed(rule, {name: source[name]})


def describe(rule: Environment) -> str:
    """The rule in a few words, for `/info` and the start-up line: `core`, `core + MYAPP_*, GITHUB_TOKEN`,
    `all - AWS_* (set: CI)`."""
    text = rule.inherit
    if rule.include:
        text += " + " + ", ".join(rule.include)
    if rule.exclude:
        text += " - " + ", ".join(rule.exclude)
    if rule.set:
        text += f" (set: {', '.join(name for name, _ in rule.set)})"
    return text


def summary(rule: Environment) -> str:
    """`describe` and what is never passed unless named: `/info`'s `shell env:` line."""
    return f"{describe(rule)}; withheld unless named: {', '.join(SECRET_PATTERNS)}"
