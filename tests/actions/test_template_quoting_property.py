"""For every place the allowlist lets a CLI template put a placeholder, any value reaches the program exactly and
nothing else runs: the template writes the value into a file with `printf '%s'`, the test compares the bytes, and a
canary file that an injected command would create (outside the workspace) never appears. Real bash, no mocks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stringsh.actions.cli import build_command
from stringsh.errors import StringError
from tests.actions.running import run_bash
from tests.conftest import sandbox_note

#: (context, template, expected file content for a value `v`). Each writes to `out`.
CONTEXTS = [
    ("unquoted", "printf '%s' {v} > out", lambda v: v),
    ("part of a word", "printf '%s' pre{v}post > out", lambda v: f"pre{v}post"),
    ('inside "…"', "printf '%s' \"{v}\" > out", lambda v: v),
    ('inside "…", mid-text', "printf '%s' \"a $HOME_NOT_SET b{v}c\" > out", lambda v: f"a  b{v}c"),
    ("inside '…'", "printf '%s' '{v}' > out", lambda v: v),
    ("inside '…', mid-text", "printf '%s' 'a $x {v}!' > out", lambda v: f"a $x {v}!"),
    ("inside $'…'", "printf '%s' $'\\t{v}\\n' > out", lambda v: f"\t{v}\n"),
    ("a quoted assignment-like word", "printf '%s' 'if='{v} > out", lambda v: f"if={v}"),
    ("after --", "printf -- '%s' {v} > out", lambda v: v),
    ("a pipeline", "printf '%s' {v} | cat > out", lambda v: v),
    ("after && and ;", "true && cd . ; printf '%s' {v} > out", lambda v: v),
    ("wrapped", "env LC_ALL=C.UTF-8 timeout 5 nice -n 1 printf '%s' {v} > out", lambda v: v),
    ("after command", "command printf '%s' {v} > out", lambda v: v),
    ("a program's own argument after --", "ls -d -- {v} >/dev/null 2>&1; printf '%s' {v} > out", lambda v: v),
]

HOSTILE = ["$(touch CANARY)", "`touch CANARY`", "${IFS}", "$((1+1))", "'", '"', "\\", "\n", "$'", "*", "~", "!",
           "]]", "}", "{v}", "; touch CANARY", "&& touch CANARY #", "$HOME", "a[$(touch CANARY)]", "-v", "%s"]
VALUES = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
        st.sampled_from(HOSTILE),
    ),
    max_size=6,
).map("".join)


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(workspace, canary): the canary's path lies outside the workspace and must never come to exist."""
    base = tmp_path_factory.mktemp("quoting")
    ws = base / "ws"
    ws.mkdir()
    yield ws, base / "canary"


@pytest.mark.parametrize(("context", "template", "expected"), CONTEXTS, ids=[c[0] for c in CONTEXTS])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES)
def test_the_program_gets_exactly_the_value(places: tuple[Path, Path], context: str, template: str, expected,
                                            value: str) -> None:
    ws, canary = places
    value = value.replace("CANARY", str(canary))
    out = ws / "out"
    out.unlink(missing_ok=True)
    command = build_command(template, {"v": value}, {})
    assert "CANARY" not in command.script and str(canary) not in command.script  # the value is never script text
    try:
        run = run_bash(command.script, ws, env={"LC_ALL": "C.UTF-8"}, args=command.args)
    except StringError as refused:
        # where the shell is not sandboxed (no bwrap here), a value naming a secret path (`.ENV`) is refused before
        # anything runs, as `!cmd` naming it would be
        assert sandbox_note() and refused.code == "SECRET_DENIED", (context, refused.text)
        assert not out.exists() and not canary.exists()
        return
    assert run.exit == 0, (context, run.output)
    assert out.read_bytes() == expected(value).encode("utf-8"), context
    assert not canary.exists()
