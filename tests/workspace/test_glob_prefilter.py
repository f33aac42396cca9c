"""The fast paths of secret matching agree with the reference rule on generated globs and paths.

GlobSet's `Prefilter` skips the regex for names no glob can match, and `list_dir` checks a folder once and its
entries with `denied_leaf`: both must give exactly wcmatch's answers. Globs and paths are drawn from a small
alphabet (so matches are common) and every path of up to four characters is tried against each glob.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from wcmatch import glob as wcglob

from stringsh.workspace.globs import GlobSet, Prefilter, normalise, split
from stringsh.workspace.secrets import DEFAULT_ALLOW_GLOBS, DEFAULT_DENY_GLOBS, SecretMatcher

FLAGS = wcglob.GLOBSTAR | wcglob.DOTGLOB | wcglob.FORCEUNIX
TOKENS = ["a", "b", "B", ".", "/", "*", "?", "**", "**/", "/**", "[ab]", "[!a]", "[a-b]", "\\*", "\\a", "e", "nv",
          "{a,b}", "!"]
#: Globs tried on every run besides the generated ones: the built-ins, and shapes found to need care.
FIXED = [*DEFAULT_DENY_GLOBS, *DEFAULT_ALLOW_GLOBS, "**/a/b", "**/**/a", "a/**/b", "a/**", "**/a/**", "*a/*", "[ab]",
         "*[ab]*", "\\a", "a\\*b", "a/b", "*.b", "a*", "*a*", ".a", "a/*/b", "**/.a/b", "./a/b", "/a", "a/"]
#: Every path of up to four characters over this alphabet (names, folders, dots, an upper-case letter).
UNIVERSE = ["".join(chars) for size in range(5) for chars in itertools.product("ab/.B", repeat=size)]

globs = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6).map("".join)
#: A path's parts as the confiner gives them: never `.` or `..` (the root's children are `B`, not `./B`).
names = st.text(alphabet="abB.e-nv", min_size=1, max_size=6).filter(lambda name: name not in (".", ".."))
paths = st.lists(names, min_size=1, max_size=4).map("/".join)


def reference(pattern: str) -> re.Pattern[str]:
    """wcmatch's own regular expression for one normalised glob, matched against the whole path."""
    positive, _ = wcglob.translate(pattern, flags=FLAGS)
    return re.compile("|".join(f"(?:{p})" for p in positive))


def reference_match(patterns: list[str], rel: str, ignore_case: bool) -> bool:
    run = "/".join(p for p in (rel.lower() if ignore_case else rel).split("/") if p and p != ".")
    variants = [v for p in patterns for v in normalise(p.lower() if ignore_case else p)]
    return any(reference(v).match(run) is not None for v in variants)


def check_prefilter(pattern: str) -> None:
    for variant in normalise(pattern):
        kind, glob = split(variant)
        regex, prefilter = reference(glob), Prefilter([glob])
        for text in UNIVERSE:
            subject = text.rpartition("/")[2] if kind == "name" else text
            if regex.match(subject) is not None:
                assert prefilter.could(subject), (glob, subject)


@settings(max_examples=300, deadline=None)
@given(globs)
def test_prefilter_never_refuses_a_path_its_glob_matches(pattern: str) -> None:
    check_prefilter(pattern)


def test_prefilter_on_fixed_globs() -> None:
    for pattern in FIXED:
        check_prefilter(pattern)
        check_prefilter(pattern.upper())
    compiled = GlobSet(tuple(FIXED), ignore_case=True)
    for text in UNIVERSE:
        rel = "/".join(p for p in text.split("/") if p)
        if rel and ".." not in rel.split("/") and "." not in rel.split("/"):
            assert compiled.match(rel) == reference_match(FIXED, rel, True), rel


@settings(max_examples=100, deadline=None)
@given(st.lists(globs, min_size=1, max_size=4), st.booleans())
def test_globset_answers_as_wcmatch_does(patterns: list[str], ignore_case: bool) -> None:
    compiled = GlobSet(tuple(patterns), ignore_case=ignore_case)
    for text in UNIVERSE:
        rel = "/".join(p for p in text.split("/") if p)
        if not rel or any(p in (".", "..") for p in rel.split("/")):
            continue
        expected = reference_match(patterns, rel, ignore_case)
        assert compiled.match(rel) == expected, (patterns, rel)
        assert compiled.match_leaf(rel) == expected, (patterns, rel)


@settings(max_examples=300, deadline=None)
@given(paths, names, st.lists(globs, max_size=3), st.lists(globs, max_size=2))
def test_listing_rule_equals_denied(folder: str, name: str, deny: list[str], allow: list[str]) -> None:
    """What list_dir relies on: a child of a folder is denied exactly when the folder is or `denied_leaf` says so."""
    matcher = SecretMatcher((*DEFAULT_DENY_GLOBS, *deny), (*DEFAULT_ALLOW_GLOBS, *allow))
    rel = f"{folder}/{name}"
    assert matcher.denied(rel) == (matcher.denied(folder) or matcher.denied_leaf(rel)), rel
    assert matcher.denied(name) == matcher.denied_leaf(name), name


def test_default_globs_still_deny_and_allow_the_same_names() -> None:
    matcher = SecretMatcher(DEFAULT_DENY_GLOBS, DEFAULT_ALLOW_GLOBS)
    for denied in (".env", "a/.ENV", ".env.local", "x/id_rsa.old", "key.PEM", "my-kubeconfig-prod", ".ssh/config",
                   "a/.aws/credentials", "credentials-prod.json", "x/.config/gcloud/token", "prod.tfstate"):
        assert matcher.denied(denied), denied
        assert matcher.denied_leaf(denied) or matcher.denied(denied.rpartition("/")[0]), denied
    for allowed in (".env.example", "a/.env.sample", "id_rsa.pub", "module.py", "envs", "env", "README.md",
                    "aws/credentials", "credentials.txt", "kube/config"):
        assert not matcher.denied(allowed), allowed
        assert not matcher.denied_leaf(allowed), allowed
