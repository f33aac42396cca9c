"""One glob semantics for every path pattern of the policy: secret deny and allow globs, the change allow-list.

Patterns are root-relative POSIX paths, matched with wcmatch's `globmatch` rules (GLOBSTAR | DOTGLOB):
- `*`, `?` and `[...]` never cross `/`; `*` matches names starting with a dot;
- `**` as a whole component matches zero or more folders (`**/.git/**` matches `.git/config`);
- a leading `./` or `/` and a trailing `/` are dropped; `..` is refused by the policy validator;
- a pattern without `/` matches a name at any depth (`.env` means `**/.env`); one with `/` is anchored at the root;
- a pattern ending in `/**` also matches the folder itself (`.git/**` covers `.git`);
- a folder a pattern matches covers everything below it (`covers` tries each leading run of components).

wcmatch costs about 15 ms to import, more than the whole `-c /ls` path may spend, so the translations of the
built-in patterns are stored in `globtable` (a test checks they are wcmatch's own) and the library is imported
only when a policy names a pattern that is not among them.
"""

from __future__ import annotations

import functools
import re

from stringsh.workspace.globtable import TRANSLATED


def normalise(pattern: str) -> tuple[str, ...]:
    """The globmatch patterns one policy pattern stands for (one, or two for a trailing `/**`)."""
    stripped = pattern.rstrip("/")
    anchored = "/" in stripped
    while stripped.startswith("./"):
        stripped = stripped[2:].lstrip("/")
    stripped = stripped.lstrip("/")
    if not stripped or stripped == ".":
        return ()
    if not anchored and stripped != "**":
        stripped = "**/" + stripped
    variants = [stripped]
    if stripped.endswith("/**") and stripped[:-3] not in ("", "**"):
        variants.append(stripped[:-3])
    return tuple(variants)


def translate(pattern: str) -> str:
    """The regular expression wcmatch compiles a normalised pattern to (stored for the built-ins)."""
    stored = TRANSLATED.get(pattern)
    if stored is not None:
        return stored
    from wcmatch import glob  # first non-built-in pattern only: see the module docstring

    positive, _ = glob.translate(pattern, flags=glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX)
    return "|".join(positive)


def split(variant: str) -> tuple[str, str]:
    """("name", X) for `**/X` where X is one component: it matches a run whose last name matches X, and that
    short regex compiles in a third of the time; ("path", variant) for the rest."""
    rest = variant[3:]
    if variant.startswith("**/") and "/" not in rest and rest != "**":
        return "name", rest
    return "path", variant


#: Characters that are, or may be, special in a glob (wcmatch's, and more, to be safe): never taken as literal.
#: `/` too: wcmatch's regex lets `**/` match nothing and a separator be several slashes (`(?:^|[/]+)`).
_SPECIAL = frozenset("*?[]{}()!|@+~\\/")


def literals(glob: str) -> tuple[str, str, str] | None:
    """(prefix, suffix, longest literal run) that every string `glob` matches starts with, ends with and contains;
    None when that cannot be read off it safely (a `.` or empty component, which wcmatch may treat apart)."""
    if any(part in ("", ".", "..") for part in glob.split("/")):
        return None
    runs = re.split("[" + re.escape("".join(sorted(_SPECIAL))) + "]", glob)
    # Before the first and after the last special character nothing can be inside `[...]` or escaped; between
    # them a run may be (`[abc]`), so a middle run counts only when the glob has neither.
    plain = "[" not in glob and "\\" not in glob
    return runs[0], runs[-1] if len(runs) > 1 else "", max(runs if plain else [runs[0], runs[-1]], key=len)


class Prefilter:
    """A test every string some glob of a set matches passes, in a few C-level string calls: most names of a folder
    (`module.py` against `*.pem`, `.env`, `id_rsa*`) fail it, and then need no run of the set's regex at all.

    Each glob contributes one necessary condition: its literal prefix, else its literal suffix, else its longest
    literal run; a glob without any makes the test always pass. Sound only: it never says no to a match
    (tests/workspace/test_glob_prefilter.py compares it with wcmatch on generated globs and names)."""

    def __init__(self, globs: list[str]) -> None:
        prefixes: list[str] = []
        suffixes: list[str] = []
        infixes: list[str] = []
        self.always = False
        for glob in globs:
            found = literals(glob)
            if found is None or not found[2]:
                self.always = True
            elif found[0]:
                prefixes.append(found[0])
            elif found[1]:
                suffixes.append(found[1])
            else:
                infixes.append(found[2])
        self.prefixes, self.suffixes, self.infixes = tuple(prefixes), tuple(suffixes), tuple(infixes)

    def could(self, text: str) -> bool:
        """False only when no glob of the set can match `text` (wcmatch's regex allows a trailing `/` too)."""
        if self.always or text.startswith(self.prefixes) or text.endswith(self.suffixes):
            return True
        for infix in self.infixes:  # a loop, not any(): called for every entry of every listing
            if infix in text:
                return True
        return text.endswith("/") and text.rstrip("/").endswith(self.suffixes)


_NO_MATCH, _MATCH, _PATH = 0, 1, 2  # GlobSet.match_leaf's remembered answers


def _compiled(globs: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{translate(g)})" for g in globs)) if globs else None


class GlobSet:
    """A set of policy patterns compiled once: one regular expression for names, one for whole paths."""

    def __init__(self, patterns: tuple[str, ...], *, ignore_case: bool = False) -> None:
        self.ignore_case = ignore_case
        kinds: dict[str, list[str]] = {"name": [], "path": []}
        for pattern in patterns:
            for variant in normalise(pattern.lower() if ignore_case else pattern):
                kind, glob = split(variant)
                kinds[kind].append(glob)
        # built-in patterns compile on the first name or path the prefilter lets through: a listing of `README.md`
        # and `docs/` compiles none (the secret globs' regexes cost a start more than the listing); a policy's own
        # patterns compile here, so one wcmatch or re refuses fails the start, not a later request
        self._globs = kinds
        self._name_filter, self._path_filter = Prefilter(kinds["name"]), Prefilter(kinds["path"])
        if any(glob not in TRANSLATED for globs in kinds.values() for glob in globs):
            _ = self._names, self._paths
        # The last names whole-path patterns can end in, when each is literal (`**/.aws/credentials`): a walk's
        # entry with another name needs no whole-path match (`match_leaf`).
        leaves = {glob.rpartition("/")[2] for glob in kinds["path"]}
        self._leaves = None if any(c in leaf for leaf in leaves for c in "*?[]{}!\\") else frozenset(leaves)
        #: match_leaf's answers by name (a walk meets the same names again and again: __init__.py, README.md),
        #: _PATH for a name only a whole-path pattern may match, whose answer depends on the folders; bounded.
        self._by_name: dict[str, int] = {}

    @functools.cached_property
    def _names(self) -> re.Pattern[str] | None:
        return _compiled(self._globs["name"])

    @functools.cached_property
    def _paths(self) -> re.Pattern[str] | None:
        return _compiled(self._globs["path"])

    def _match(self, run: str) -> bool:
        if self._path_filter.could(run) and self._paths is not None and self._paths.match(run) is not None:
            return True
        name = run.rpartition("/")[2]
        return self._name_filter.could(name) and self._names is not None and self._names.match(name) is not None

    def match(self, rel: str) -> bool:
        """Whether the root-relative path itself matches."""
        return self._match(rel.lower() if self.ignore_case else rel)

    def match_leaf(self, rel: str) -> bool:
        """`match`, sooner for a path whose name no whole-path pattern ends in (a walk checks every entry)."""
        key = rel[rel.rfind("/") + 1:]
        known = self._by_name.get(key)
        if known is None:
            name = (rel.lower() if self.ignore_case else rel).rpartition("/")[2]
            if self._name_filter.could(name) and self._names is not None and self._names.match(name) is not None:
                known = _MATCH
            elif self._globs["path"] and (self._leaves is None or name in self._leaves):
                known = _PATH
            else:
                known = _NO_MATCH
            if len(self._by_name) < 65536:
                self._by_name[key] = known
        if known != _PATH:
            return known == _MATCH
        run = rel.lower() if self.ignore_case else rel  # depends on the folders too: checked every time
        return self._path_filter.could(run) and self._paths is not None and self._paths.match(run) is not None

    def literals(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """Strings one of which every path this set matches holds (lower case when the set ignores case: to be looked
        for in the lowered path): (those it holds at the start of one of its names, those it holds anywhere); None
        when a pattern has no literal run. A listing of many paths is screened with them at once
        (ops/pathscreen.py)."""
        filters = (self._name_filter, self._path_filter)
        if any(f.always for f in filters):
            return None
        return (tuple(text for f in filters for text in f.prefixes),
                tuple(text for f in filters for text in (*f.suffixes, *f.infixes)))

    def covering(self, rel: str) -> list[str]:
        """The path and each of its parent folders that a pattern matches, shortest first."""
        if not self._globs["name"] and not self._globs["path"]:
            return []
        parts = [p for p in (rel.lower() if self.ignore_case else rel).split("/") if p and p != "."]
        runs = ("/".join(parts[: end + 1]) for end in range(len(parts)))
        return [run for run in runs if self._match(run)]

    def covers(self, rel: str) -> bool:
        """Whether the path, or a folder it is in, matches."""
        return bool(self.covering(rel))
