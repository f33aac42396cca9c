"""docs/configuration.md is the one page for settings: every policy key the parser accepts is in its table with the
code's own default, and every environment variable the code reads is listed. A key or variable added to the code
without a line there fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from stringsh.workspace.envpolicy import Environment
from stringsh.workspace.policy import Changes, Git, JournalKeep, Limits, Operator, Permissions, Root, Secrets, Shell

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "configuration.md").read_text()
SECTIONS = {
    "[[roots]]": Root, "[permissions]": Permissions, "[limits]": Limits, "[secrets]": Secrets, "[changes]": Changes,
    "[shell]": Shell, "[shell_environment]": Environment, "[journal]": JournalKeep, "[operator]": Operator,
    "[git]": Git,
}
#: Keys a table takes besides its NamedTuple's fields (parse_policy pops them first).
EXTRA_KEYS = {"[journal]": {"state_dir": ""}}
#: Defaults the page names by where they are shown instead of writing them out.
NAMED_DEFAULTS = {"the built-in list below"}
ROOT_DEFAULTS = {"id": "main", "path": ".", "mode": "read_write"}


def table(section: str) -> dict[str, str]:
    """key -> its default cell, from the table under `### \\`section\\``."""
    body = PAGE.split(f"### `{section}`", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    return {row.group(1): row.group(2) for row in re.finditer(r"^\| `(\w+)` \| (.+?) \|", body, re.M)}


def toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(toml(item) for item in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_policy_key_is_on_the_page_with_its_default(section: str) -> None:
    kind = SECTIONS[section]
    defaults = dict(ROOT_DEFAULTS) if kind is Root else dict(zip(kind._fields, kind(), strict=True))
    defaults.update(EXTRA_KEYS.get(section, {}))
    rows = table(section)
    assert set(rows) == set(defaults)
    for key, default in defaults.items():
        cell = rows[key]
        if cell in NAMED_DEFAULTS:
            for item in default:
                assert f"`{item}`" in PAGE or key == "redact_regexes", item
            continue
        assert cell.split("`")[1] == toml(default), (key, cell)  # the default is the cell's first code span


def variables_read() -> set[str]:
    """Every environment variable stringsh's code reads: `os.environ.get("X")`, `os.environ["X"]`, `getenv("X")`,
    `"X" in os.environ`, the names of a `…_VARIABLES = (…)` tuple, and every `STRINGSH_*` name it spells."""
    names: set[str] = set()
    reads = [re.compile(pattern) for pattern in (
        r"""environ(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]*)["']""", r"""getenv\(\s*["']([A-Z][A-Z0-9_]*)["']""",
        r"""["']([A-Z][A-Z0-9_]*)["']\s+in\s+os\.environ""", r"""["'](STRINGSH_[A-Z0-9_]+)["']""",
        r"""_user_dir\(\s*["'][A-Z_]+["'],\s*["']([A-Z_]+)["']""",  # userdirs: the XDG variable beside the override
    )]
    tuples = re.compile(r"""_VARIABLES\s*=\s*\(([^)]*)\)""")  # a set of variables read in turn (repl/pager.py)
    for path in (REPO / "stringsh").rglob("*.py"):
        text = path.read_text()
        for pattern in reads:
            names.update(pattern.findall(text))
        for group in tuples.findall(text):
            names.update(re.findall(r"""["']([A-Z][A-Z0-9_]*)["']""", group))
    return names


def test_every_environment_variable_read_is_on_the_page() -> None:
    listed = set(re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", PAGE.split("## Environment variables", 1)[1], re.M))
    read = variables_read()
    assert {"STRINGSH_CONFIG_DIR", "XDG_STATE_HOME", "NO_COLOR", "PAGER"} <= read  # the scan finds each form
    assert read <= listed, sorted(read - listed)
