"""One glob semantics (workspace/globs.py) for secret deny/allow globs and the change allow-list (finding 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.globs import GlobSet, normalise, split
from stringsh.workspace.globtable import TRANSLATED
from stringsh.workspace.secrets import DEFAULT_ALLOW_GLOBS, DEFAULT_DENY_GLOBS, SecretMatcher
from tests.conftest import run_stringsh


def wcmatch_translations() -> dict[str, str]:
    """What globtable.py must hold; `python -m tests.workspace.test_globs` prints it to regenerate the file."""
    from wcmatch import glob

    table: dict[str, str] = {}
    for pattern in (*DEFAULT_DENY_GLOBS, *DEFAULT_ALLOW_GLOBS, "**"):
        for variant in normalise(pattern.lower()):
            _, stored = split(variant)
            positive, _ = glob.translate(stored, flags=glob.GLOBSTAR | glob.DOTGLOB | glob.FORCEUNIX)
            table[stored] = "|".join(positive)
    return table


def test_stored_translations_are_wcmatch_s_own() -> None:
    assert wcmatch_translations() == TRANSLATED


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/deep/a.py", True),  # no `/`: any depth
        ("src/*", "src/a.py", True),
        ("src/*", "src/a/b.py", False),  # `*` never crosses `/`
        ("src/**", "src/a/b.py", True),
        ("src/**", "src", True),  # `dir/**` covers the folder itself
        ("**/.git/**", ".git/config", True),  # `**/` matches zero folders
        ("**/.git/**", "vendor/x/.git/hooks/pre-commit", True),
        ("./.git/**", ".git/config", True),  # a leading ./ is dropped
        ("./.git/**", "sub/.git/config", False),  # and the pattern stays anchored at the root
        ("/docs/", "docs", True),
        ("*", ".hidden", True),  # DOTGLOB
        ("**", "any/thing/at/all", True),
    ],
)
def test_one_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert GlobSet((pattern,)).match(path) is expected


def test_a_folder_covers_what_is_below_it() -> None:
    globs = GlobSet((".git/**",))
    assert globs.covers(".git/hooks/pre-commit") and globs.covers(".git") and not globs.covers("git/x")
    matcher = SecretMatcher((*DEFAULT_DENY_GLOBS, "./.git/**"), DEFAULT_ALLOW_GLOBS)
    assert matcher.denied(".git") and matcher.denied(".git/config") and matcher.denied("a/.env")
    assert not matcher.denied(".env.example") and not matcher.denied("sub/.git/config")


@pytest.mark.parametrize("glob", ["./.git/**", "**/.git/**", ".git/**", ".git"])
def test_deny_globs_are_normalised_and_cover_listing(ws: Path, glob: str) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "a.txt").write_text("a\n")
    (ws / "stringsh.toml").write_text(f'[secrets]\ndeny_globs = ["{glob}"]\n')  # narrowing: applies untrusted
    opened = run_stringsh(["-c", "/open .git/config"], ws)
    assert opened.stdout.decode().startswith("re: /open .git/config\nERROR(SECRET_DENIED): ")
    listed = run_stringsh(["-c", "/ls .git"], ws)
    assert listed.stdout.decode().startswith("re: /ls .git\nERROR(SECRET_DENIED): Access to a secret file is denied")
    listing = run_stringsh(["-c", "/ls"], ws).stdout.decode()
    assert ".git" not in listing and "a.txt" in listing


def test_the_change_allow_list_has_the_same_semantics(tmp_path: Path) -> None:
    (tmp_path / "stringsh.toml").write_text('[changes]\nallow_globs = ["docs/*.md", "src/**"]\n')
    workspace = Workspace.load(tmp_path)
    workspace.write_text("docs/a.md", "a\n")
    workspace.write_text("src/deep/x.py", "x\n")
    with pytest.raises(StringError) as caught:
        workspace.write_text("docs/deep/b.md", "b\n")  # fnmatch's `*` crossed `/` and allowed this
    assert caught.value.message == "Path is not on the policy's change allow-list: docs/deep/b.md"
    workspace.close()


PROBE = """
import json, sys
from stringsh.cli import main
status = main(["-c", "/ls"])
print(json.dumps({"status": status, "wcmatch": "wcmatch" in sys.modules}))
"""


@pytest.mark.parametrize(("policy", "loaded"), [(None, False), ('[secrets]\ndeny_globs = ["*.bak"]\n', True)])
def test_wcmatch_loads_only_for_a_pattern_not_built_in(ws: Path, policy: str | None, loaded: bool) -> None:
    if policy is not None:
        (ws / "stringsh.toml").write_text(policy)
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ws, capture_output=True, text=True, timeout=60)
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report == {"status": 0, "wcmatch": loaded}


if __name__ == "__main__":
    print(json.dumps(wcmatch_translations(), indent=4))
