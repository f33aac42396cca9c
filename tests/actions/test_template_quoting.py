"""CLI templates: where a placeholder stands decides how its value is passed, or that the action is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.actions.cli import build_command
from stringsh.actions.shellscan import scan
from stringsh.errors import StringError
from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

ACCEPTED = [
    ("printf %s {v}", "unquoted", 'printf %s "${1}"'),
    ('printf %s "a{v}b"', "double", 'printf %s "a${1}b"'),
    ("printf %s 'a{v}b'", "single", "printf %s 'a'\"${1}\"'b'"),
    ("printf %s $'a{v}b'", "ansi", "printf %s $'a'\"${1}\"$'b'"),
    ("printf %s > {v}", "unquoted", 'printf %s > "${1}"'),
    ("echo $(echo {v})", "unquoted", 'echo $(echo "${1}")'),
    ('echo "$(echo "{v}")"', "double", 'echo "$(echo "${1}")"'),
    ("echo `echo {v}`", "unquoted", 'echo `echo "${1}"`'),
    ("[[ {v} == x ]]", "unquoted", '[[ "${1}" == x ]]'),
    ("X={v} env", "unquoted", 'X="${1}" env'),
    ("export X={v}", "unquoted", 'export X="${1}"'),
    ("[ {v} -eq 1 ]", "unquoted", '[ "${1}" -eq 1 ]'),
    ("bash -c 'echo \"$1\"' x {v}", "unquoted", "bash -c 'echo \"$1\"' x \"${1}\""),
    ("echo ${HOME} {v}", "unquoted", 'echo ${HOME} "${1}"'),
    ("(cd sub && echo {v}) | cat", "unquoted", '(cd sub && echo "${1}") | cat'),
]

REFUSED = [
    ("echo $(( {v} + 1 ))", "inside $((…))"),
    ("(( {v} ))", "inside ((…))"),
    ("echo $[{v}]", "inside $[…]"),
    ("echo ${x:-{v}}", "inside ${…}"),
    ("echo \\{v}", "directly after a backslash"),
    ('echo "\\{v}"', "directly after a backslash"),
    ("echo `echo \\\"{v}\\\"`", "inside backticks that hold a backslash (use $(…))"),
    ("{v} --flag", "as the command name"),
    ("exec {v}", "as the command name"),
    ("$(echo {v}) arg", "as the command name"),
    ("eval {v}", "in an argument of eval"),
    ('eval "$(echo {v})"', "in an argument of eval"),
    ("let x={v}", "in an argument of let"),
    ("read {v} < /dev/null", "in an argument of read"),
    ("printf -v {v} x", "in an argument of printf -v"),
    ("declare {v}=1", "in a variable name of declare"),
    ("declare -i n={v}", "in an argument of declare -i"),
    ("declare -i n; n={v}", "in the value of an integer variable"),
    ("a[{v}]=1", "in an array subscript"),
    ("[[ {v} -eq 1 ]]", "in an arithmetic or -v test of [[ … ]]"),
    ("[[ -v {v} ]]", "in an arithmetic or -v test of [[ … ]]"),
    ("test -v {v}", "in a -v test of test"),
    ("sh -c \"echo {v}\"", "as the script of sh -c"),
    ("sudo /bin/bash -ec {v}", "as the script of bash -c"),
    ("echo \"{...args}\"", "inside quotes ({...args} is several words)"),
]


@pytest.mark.parametrize(("template", "context", "script"), ACCEPTED)
def test_each_context_gets_its_reference(template: str, context: str, script: str) -> None:
    (slot,) = scan(template)
    assert (slot.context, slot.refusal) == (context, None)
    command = build_command(template, {"v": "$(id)"}, {})
    assert (command.script, command.args) == (script, ["$(id)"])


@pytest.mark.parametrize(("template", "refusal"), REFUSED)
def test_a_place_where_bash_evaluates_is_refused(template: str, refusal: str) -> None:
    assert [slot.refusal for slot in scan(template)] == [refusal]
    with pytest.raises(StringError) as caught:
        build_command(template, {"v": "1"}, {}, "x")
    name = "{...args}" if "args" in template else "{v}"
    assert (caught.value.code, caught.value.text) == (
        "INVALID_PAYLOAD",
        f"/act.x: {name} stands {refusal}, where bash would treat the value as code; nothing ran.\n"
        "Put it where bash reads a value as data: a plain word, \"…\" or '…' (see /help act).",
    )


def test_a_placeholder_without_a_value_stays_as_typed() -> None:
    """Only a placeholder that gets a value is refused: `{v}` inside `$((…))` with no value is bash's text."""
    command = build_command("echo $(( 1 )) {v}", {}, {})
    assert (command.script, command.args) == ("echo $(( 1 )) {v}", [])


PAGE = """# Ops

```act.say
CLI printf '%s' "{payload}"
  payload: string (required)
```

```act.calc
CLI echo $(( {n} + 1 ))
  n: number (required) "a number"
```
"""


def run(ws: Path, script: str) -> list[str]:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/open ops.md\n" + script)
    return split_replies(proc.stdout.decode())[1:]


def test_a_value_inside_the_templates_double_quotes_stays_data(ws: Path, tmp_path: Path) -> None:
    """`printf '%s' "{payload}"` once ran `$(…)` in a typed value or a file's text; now both are printed."""
    canary = tmp_path / "canary"
    (ws / "ops.md").write_text(PAGE)
    (ws / "p.txt").write_text(f"$(touch {canary}) `touch {canary}` ${{HOME}} \"'")
    replies = run(ws, f"/act.say --payload '$(touch {canary})'\n/act.say --payload-file p.txt\n")
    assert [reply.split("\n", 1)[1] for reply in replies] == [  # after the (shortened) `re:` line
        f"exit: 0 | cwd: {ws}\n---\n$(touch {canary})",
        f"exit: 0 | cwd: {ws}\n---\n$(touch {canary}) `touch {canary}` ${{HOME}} \"'",
    ]
    assert not canary.exists()


def test_a_refused_template_says_why_and_runs_nothing(ws: Path) -> None:
    (ws / "ops.md").write_text(PAGE)
    (ws / "nul.txt").write_text("a\x00b")
    replies = run(ws, "/act.calc --help\n/act.calc --n 1\n/act.say --payload-file nul.txt\n")
    refused = "{n} stands inside $((…)), where bash would treat the value as code"
    assert replies == [
        f"re: /act.calc --help\nAction: calc\n---\n/act.calc\n   --n <number> (required) — a number\n"
        f"   refused: {refused}",
        f"re: /act.calc --n 1\nERROR(INVALID_PAYLOAD): /act.calc: {refused}; nothing ran.\n"
        "Put it where bash reads a value as data: a plain word, \"…\" or '…' (see /help act).",
        "re: /act.say --payload-file nul.txt\nERROR(INVALID_PAYLOAD): /act.say: the value of {payload} holds a NUL "
        "character, which no command argument can carry; nothing ran.\nGive text without NUL characters.",
    ]
