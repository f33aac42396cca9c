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
    ("echo {v}", "unquoted", 'echo "${1}"'),
    ("git log -n {v}", "unquoted", 'git log -n "${1}"'),
    ("grep -r {v} .", "unquoted", 'grep -r "${1}" .'),
    ("echo ${HOME} {v}", "unquoted", 'echo ${HOME} "${1}"'),
    ("cd sub && echo {v} | cat", "unquoted", 'cd sub && echo "${1}" | cat'),
    ("set -euo pipefail; echo {v} >/dev/null", "unquoted", 'set -euo pipefail; echo "${1}" >/dev/null'),
    ("LC_ALL=C env -i PATH=/bin timeout -s KILL 5 nice -n 5 printf %s {v}", "unquoted",
     'LC_ALL=C env -i PATH=/bin timeout -s KILL 5 nice -n 5 printf %s "${1}"'),
    ("command echo {v}", "unquoted", 'command echo "${1}"'),
    ('"printf" -- %s {v}', "unquoted", '"printf" -- %s "${1}"'),
    ("tar -tf a.tar -- {v}", "unquoted", 'tar -tf a.tar -- "${1}"'),
    ("git -C sub grep -n -- {v}", "unquoted", 'git -C sub grep -n -- "${1}"'),
    ("find . -name {v}", "unquoted", 'find . -name "${1}"'),
    ("echo {v} | awk '{print $1}'", "unquoted", "echo \"${1}\" | awk '{print $1}'"),
    ("./deploy.sh --env={v} # {v} in a comment", "unquoted", './deploy.sh --env="${1}" # {v} in a comment'),
    ("echo 'if={v}'", "single", "echo 'if='\"${1}\"''"),
]

REFUSED = [
    # assignments, whatever the variable (bash evaluates RANDOM, OPTIND, PS4, integer variables and subscripts)
    ("RANDOM={v}; echo rnd-$RANDOM", "stands in an assignment to RANDOM"),
    ("PS4={v}; set -x; true", "stands in an assignment to PS4"),
    ('OPTIND="{v}" getopts ab x', "stands in an assignment to OPTIND"),
    ("HISTCMD='{v}'", "stands in an assignment to HISTCMD"),
    ("declare -i n; n={v}", "stands in an assignment to n"),
    ("a[{v}]=1", "stands in an assignment to a[{v}]"),
    ("x+={v}", "stands in an assignment to x"),
    ("export X={v}", "stands in an assignment to X"),
    ("echo X={v}", "stands in an assignment to X"),
    # redirections, the command name, expansions, a backslash
    ("printf %s > {v}", "stands in the word of a redirection (`{v}`)"),
    ("cat <<< {v}", "stands in the word of a redirection (`{v}`)"),
    ("{v} --flag", "stands as the command name"),
    ("exec {v}", "stands as the command name"),
    ("env X=1 {v}", "stands as the command name"),
    ("$(echo {v}) arg", "stands inside $(…), not in a command of the line itself"),
    ("echo $(echo {v})", "stands inside $(…), not in a command of the line itself"),
    ("echo `echo {v}`", "stands inside backticks, not in a command of the line itself"),
    ("echo $(( {v} + 1 ))", "stands inside $((…)), which bash evaluates as arithmetic"),
    ("(( {v} ))", "stands inside ((…)), which bash evaluates as arithmetic"),
    ("echo $[{v}]", "stands inside $[…], which bash evaluates as arithmetic"),
    ("echo ${x:-{v}}", "stands inside ${…}, whose operators bash evaluates"),
    ("echo \\{v}", "stands directly after a backslash"),
    ('echo "\\{v}"', "stands directly after a backslash"),
    ("$CMD {v}", "is an argument of `$CMD`, whose name is not written on the page"),
    # shells in every spelling, and the wrappers that run them
    ('bash -o pipefail -c "echo {v} | cat"', "is an argument of bash, a shell, which runs its arguments as code"),
    ('"bash" -c {v}', "is an argument of bash, a shell, which runs its arguments as code"),
    ("/bin/sh -c 'echo \"$1\"' x {v}", "is an argument of sh, a shell, which runs its arguments as code"),
    ("b\\ash -xc {v}", "is an argument of bash, a shell, which runs its arguments as code"),
    ("env -i bash -c {v}", "is an argument of bash, a shell, which runs its arguments as code"),
    ("timeout 5 sh -c {v}", "is an argument of sh, a shell, which runs its arguments as code"),
    ("nice -n 5 zsh -c {v}", "is an argument of zsh, a shell, which runs its arguments as code"),
    ("command bash -c {v}", "is an argument of bash, a shell, which runs its arguments as code"),
    ("sudo -u root /usr/bin/python3.12 x.py {v}",
     "is an argument of python3.12, an interpreter, which runs its arguments as code"),
    ("flock FILE -c {v}", "is an argument of flock -c, which runs its argument as a command line"),
    ("env -S {v}", "is an argument of env -S, which runs its argument as a command line"),
    ("env --split-string={v}", "is an argument of env before the command it runs"),
    ("timeout {v} echo x", "is an argument of timeout before the command it runs"),
    ("timeout -q 5 echo {v}", "is an argument of timeout, whose option -q this check does not know"),
    ("sudo -s echo {v}", "is an argument of sudo -s, which runs its argument as a command line"),
    # builtins and programs that run their arguments as code
    ("eval {v}", "is an argument of eval, which runs its arguments as code"),
    (". {v}", "is an argument of ., which runs its arguments as code"),
    ("let x={v}", "stands in an assignment to x"),
    ("read {v} < /dev/null", "is an argument of the builtin read, which values may not reach (they may reach echo, "
     "printf, cd, pwd, type, help, true, false and :)"),
    ("test -v {v}", "is an operand of the builtin test, which values may not reach (they may reach echo, printf, "
     "cd, pwd, type, help, true, false and :)"),
    ("[ {v} -eq 1 ]", "is an operand of the builtin [, which values may not reach (they may reach echo, printf, "
     "cd, pwd, type, help, true, false and :)"),
    ("printf -v x {v}", "is an argument of printf -v, which assigns to a variable"),
    ("printf {v}", "stands before or in printf's format, where a value could be -v (write the format first)"),
    ("awk -f prog.awk {v}", "is an argument of awk, which reads a program from its arguments"),
    ("sed -n 1p {v}", "is an argument of sed, which reads a program from its arguments"),
    ("perl -e 'print 1' {v}", "is an argument of perl, an interpreter, which runs its arguments as code"),
    ("xargs -0 echo {v}", "is an argument of xargs, which runs its arguments as a command"),
    ("ssh host ls {v}", "is an argument of ssh, which runs its arguments as a command"),
    ("find . -name x -exec ls {v} ';'", "is an argument of find with -exec, which runs a command"),
    ("find . {v} {w}", "is one of several values standing alone in find's expression, which together may form -exec"),
    ("tar -xf a.tar {v}",
     "is an argument of tar before a literal --, where tar's options can run commands (write -- before it)"),
    ("git clone {v}", "is an argument of git clone before a literal --, where git clone's options can run commands "
     "(write -- before it)"),
    ("git config x.y {v}", "is an argument of git config, a subcommand values may not reach (an alias or a command "
     "like git config or git submodule can run commands)"),
    ("git {v}", "stands before git's subcommand, where git reads options that can run commands"),
    # what a pipeline or the rest of the line does with it
    ("echo {v} | sh", "is piped into sh, which may run what it reads as code"),
    ("printf '%s' {v} | python3", "is piped into python3, which may run what it reads as code"),
    ("set -k; echo {v}", "is on a line that runs set with options or arguments beyond -e, -u, -x, -v, -f, -C and -o "
     "pipefail…, which change how bash reads the words after it"),
    ("shopt -s expand_aliases; echo {v}",
     "is on a line that runs shopt, which changes how bash reads or runs the commands after it"),
    ("source ./env.sh; echo {v}",
     "is on a line that runs source, which changes how bash reads or runs the commands after it"),
    # a line that reads the values itself, or that bash expands again later
    ('sh -c "$1"; echo {v}', "is on a line with a reference to the positional parameters ($1, $@, ${!x}, $_ …), which "
     "hold the values"),
    ("x=1; echo ${!x} {v}", "is on a line with a reference to the positional parameters ($1, $@, ${!x}, $_ …), which "
     "hold the values"),
    ("echo `printf %s \"$@\"` {v}", "is on a line with a reference to the positional parameters ($1, $@, ${!x}, $_ …), "
     "which hold the values"),
    ("echo {v}; sh -c \"$_\"", "is on a line with a reference to the positional parameters ($1, $@, ${!x}, $_ …), "
     "which hold the values"),
    ("PS4='$(eval \"$1\")'; set -x; echo {v}", "is on a line that sets PS4, which bash expands again later"),
    ("getopts a x; echo {v}",
     "is on a line that runs getopts, which changes how bash reads or runs the commands after it"),
    # what the reader does not read
    ("for i in 1; do echo {v}; done", "is on a line with `for`, which this check does not read (values go only into "
     "simple commands joined by ;, &&, || and |)"),
    ("[[ {v} == x ]]", "is on a line with `[[`, which this check does not read (values go only into simple commands "
     "joined by ;, &&, || and |)"),
    ("f() { echo; }; f {v}", "is on a line with a subshell or function `(…)`, which this check does not read "
     "(values go only into simple commands joined by ;, &&, || and |)"),
    ("cat <<EOF {v}", "is on a line with a here-document (`<<`), which this check does not read (values go only into "
     "simple commands joined by ;, &&, || and |)"),
    ("(echo {v})", "is on a line with a subshell or function `(…)`, which this check does not read (values go only "
     "into simple commands joined by ;, &&, || and |)"),
    ('echo "{...args}"', "stands inside quotes ({...args} is several words)"),
    ("echo x{...args}", "stands inside a word ({...args} is several words)"),
]


@pytest.mark.parametrize(("template", "context", "script"), ACCEPTED)
def test_each_context_gets_its_reference(template: str, context: str, script: str) -> None:
    assert {(slot.context, slot.refusal) for slot in scan(template)} == {(context, None)}
    command = build_command(template, {"v": "$(id)"}, {})
    assert (command.script, command.args) == (script, ["$(id)"])


@pytest.mark.parametrize(("template", "refusal"), REFUSED)
def test_a_place_the_allowlist_does_not_name_is_refused(template: str, refusal: str) -> None:
    assert {slot.refusal for slot in scan(template)} == {refusal}
    with pytest.raises(StringError) as caught:
        build_command(template, {"v": "1", "w": "2"}, {}, "x")
    name = "{...args}" if "{...args}" in template else "{v}"
    assert (caught.value.code, caught.value.text) == (
        "INVALID_PAYLOAD",
        f"/act.x: {name} {refusal}; nothing ran.\n"
        "A value may only be one argument of a simple command whose name is written on the page and that does not "
        "run its arguments as code (see /help act).",
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
    refused = "{n} stands inside $((…)), which bash evaluates as arithmetic"
    rule = ("A value may only be one argument of a simple command whose name is written on the page and that does "
            "not run its arguments as code (see /help act).")
    assert replies == [
        f"re: /act.calc --help\nAction: calc\n---\n/act.calc\n   --n <number> (required) — a number\n"
        f"   refused: {refused}\n   {rule}",
        f"re: /act.calc --n 1\nERROR(INVALID_PAYLOAD): /act.calc: {refused}; nothing ran.\n{rule}",
        "re: /act.say --payload-file nul.txt\nERROR(INVALID_PAYLOAD): /act.say: the value of {payload} holds a NUL "
        "character, which no command argument can carry; nothing ran.\nGive text without NUL characters.",
    ]
