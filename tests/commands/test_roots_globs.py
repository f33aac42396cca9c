"""How `[changes].allow_globs` and the secret globs apply to `id:path` paths of other roots, exactly as the policy
reference (policy.py's docstring, docs/security.md) documents it."""

from __future__ import annotations

from pathlib import Path

import stringsh.workspace.policy
from tests.commands.test_roots import roots, run  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[2]


def test_allow_globs_see_id_paths_and_secret_globs_the_path_inside_the_root(roots: Path) -> None:  # noqa: F811
    (roots / "docs" / "private").mkdir()
    (roots / "docs" / "private" / "k.txt").write_text("k\n")
    policy = (roots / "p.toml").read_text() + (
        '[changes]\nallow_globs = ["src/**", "scratch:notes/**", "*.md"]\n'
        '[secrets]\ndeny_globs = ["private/**", "docs:guide.md"]\n'
    )
    (roots / "g.toml").write_text(policy)
    script = ("/write src/a.txt x\n/write scratch:src/a.txt x\n/write scratch:notes/a.txt x\n"
              "/write scratch:sub/b.md x\n/open docs:private/k.txt\n/open docs:guide.md\n")
    assert run(roots, script, "g.toml") == (
        "re: /write src/a.txt x\nCreated: src/a.txt (2 bytes, 1 line)\n"
        "re: /write scratch:src/a.txt x\n"
        "ERROR(NOT_PERMITTED): Path is not on the policy's change allow-list: scratch:src/a.txt\n"
        "Only paths matching the policy's [changes] allow_globs may change; change another path.\n"
        "re: /write scratch:notes/a.txt x\nCreated: scratch:notes/a.txt (2 bytes, 1 line)\n"
        "re: /write scratch:sub/b.md x\nCreated: scratch:sub/b.md (2 bytes, 1 line)\n"
        "re: /open docs:private/k.txt\nERROR(SECRET_DENIED): Access to a secret file is denied: docs:private/k.txt\n"
        "The policy's secret deny list covers this path.\n"
        "re: /open docs:guide.md\nOpened docs:guide.md\n---\n# Guide\n\ntext\n"
    )


def test_the_policy_reference_says_so() -> None:
    doc = stringsh.workspace.policy.__doc__ or ""
    assert "`docs:private/**` matches nothing" in doc
    assert "`scratch:notes/**` root scratch's `notes/`" in doc
    security = (ROOT / "docs" / "security.md").read_text()
    assert "a glob never\nnames an `id:`" in security
