"""Templates generated from bash's grammar, judged by the allowlist, and every one it accepts run through the real
program (`stringsh --no-sandbox run`, a page of `act.t<i>` actions, each called with hostile values from files) with a
canary: no value ever becomes code. Shapes bash evaluates (assignments to special and integer variables, shells in
every spelling and option cluster, wrappers of them, code-running programs, expansions) must be refused; plain
arguments of safe commands must be accepted; word soup from a vocabulary is judged either way and run if accepted."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stringsh.actions.shellscan import scan
from tests.actions.running import run_bash
from tests.conftest import run_stringsh

#: Values that run `touch <canary>` wherever bash reads them as code (`{c}` is the canary's name), and `-c`, which
#: turns a following literal `'touch T'` into a script where a value may become an option.
HOSTILE = ["a[$(touch {c})]", "$(touch {c})", "`touch {c}`", ";touch {c}", "-c", "--x=$(touch {c})", "touch {c}",
           "x;touch {c}", "a[`touch {c}`]"]
FORMS = ["{v}", '"{v}"', "'{v}'", "x{v}", '"a $HOME {v}"', "$'{v}'", "{v}/x"]
VARIABLES = ["RANDOM", "SECONDS", "LINENO", "OPTIND", "HISTCMD", "PS4", "BASH_XTRACEFD", "IFS", "PATH", "SRANDOM",
             "OPTERR", "EPOCHSECONDS", "BASH_ARGV0", "COLUMNS", "HISTSIZE", "TMOUT", "n", "a[0]", "x"]
ASSIGNMENTS = ["VAR=FORM; echo x", "VAR=FORM echo x", "declare -i n; VAR=FORM", "declare -i VAR; VAR=FORM",
               "export VAR=FORM", "declare VAR=FORM", "typeset -i VAR=FORM", "readonly VAR=FORM", "VAR+=FORM",
               "let VAR=FORM", "(( VAR=FORM ))", "VAR=FORM; set -x; true", "declare -a a; a[FORM]=1",
               "set -k; echo VAR=FORM", "env VAR=FORM true", "echo VAR=FORM", "local VAR=FORM"]
SHELLS = ["bash", "sh", '"bash"', "'sh'", "/bin/bash", "/usr/bin/env bash", "b\\ash", "ba''sh", '"/bin/"sh',
          "busybox sh", "dash", "rbash", "python3", "perl", "ruby", "node", "php"]
OPTIONS = ["-c", "-xc", "-ec", "-o pipefail -c", "-O extglob -c", "-e -c", "+x -c", "-c -e", "--norc -c", "-e",
           "-E", "-r", "", "-s", "-i -c", "-euo pipefail -c"]
SCRIPTS = ["FORM", '"echo FORM | cat"', "'echo \"$1\"' x FORM", "'eval \"$1\"' x FORM", "FORM 'touch T'",
           "'touch T' FORM"]
WRAPPERS = ["", "env ", "env -i ", "env -i PATH=/usr/bin:/bin ", "timeout 5 ", "timeout -s KILL 5 ", "nice -n 5 ",
            "nice -5 ", "command ", "exec ", "nohup ", "setsid ", "stdbuf -o0 ", "time ", "time -p ", "sudo ",
            "sudo -u root ", "flock LOCK ", "builtin ", "'env' ", "/usr/bin/env "]
CODE = ["eval FORM", ". FORM", "source FORM", "awk 'BEGIN{system(ARGV[1])}' FORM", "awk FORM", "gawk FORM",
        "sed -e FORM /dev/null", "sed FORM /dev/null", "perl -e 'system $ARGV[0]' FORM",
        "python3 -c 'import os,sys; os.system(sys.argv[1])' FORM", "find . -maxdepth 0 -exec sh -c FORM ';'",
        "printf x | xargs sh -c FORM", "flock LOCK -c FORM", "env -S FORM", "echo FORM | sh", "printf '%s' FORM | bash",
        "printf -v x FORM", "test -v FORM", "[ -v FORM ]", "[[ FORM -eq 1 ]]", "echo $(( FORM ))", "echo ${x:-FORM}",
        "echo $(eval FORM)", "echo `eval FORM`", "echo > FORM", "cat <<< FORM", "trap FORM EXIT", "read FORM <<< x",
        "unset FORM", "export FORM", "watch FORM", "ssh FORM", "printf FORM x", "jq FORM", "git FORM",
        "git -c FORM log", "tar -xf x.tar FORM", "sort FORM", "declare FORM", "alias x=FORM", "shopt -s FORM",
        "x() { echo; }; x FORM", "if true; then echo FORM; fi", "case x in x) echo FORM;; esac", "(echo FORM)",
        "{ echo FORM; }", "echo FORM <(true)", "coproc echo FORM", "for x in FORM; do :; done",
        "sh -c \"$1\"; echo FORM", "x=1; sh -c \"${!x}\"; echo FORM", "bash -c \"$*\" FORM",
        "PS4='$(eval \"$1\")'; set -x; echo FORM", "getopts a: o -a; sh -c \"$OPTARG\"; echo FORM"]
SAFE = ["echo FORM", "printf '%s\\n' FORM", "true FORM", "printf '[%s]' FORM 'touch T'", "echo FORM >/dev/null",
        "echo FORM | cat", "echo FORM && true", "false || echo FORM", "command echo FORM", "timeout 5 echo FORM",
        "nice -n 5 printf '%s' FORM", "set -euo pipefail; echo FORM", "printf -- '%s' FORM",
        "env -i LC_ALL=C echo FORM", "ls -d -- FORM 2>/dev/null || true", "echo FORM 'touch T'",
        "find . -maxdepth 0 -name FORM", "flock LOCK echo FORM", "echo FORM | awk '{print}'"]
VOCABULARY = ["echo", "printf", "'%s'", "true", "bash", "sh", '"bash"', "/bin/sh", "env", "-i", "-S", "timeout", "5",
              "nice", "-n", "command", "exec", "eval", "awk", "sed", "find", ".", "-exec", "';'", "xargs", "flock",
              "LOCK", "python3", "-c", "-e", "-o", "pipefail", "-x", "-v", "--", "'touch T'", "set", "-k", "declare",
              "export", "let", "read", "x=1", "X=", "|", ";", "&&", "||", "time", "nohup", "builtin", "stdbuf",
              "-o0", "sudo", "-u", "root", "-s", "printf", "-v", "'$1'", "\"$@\"", "'eval \"$1\"'", "$(", ")", "`",
              "\"$1\"", "${!x}", "x=1"]


#: Shapes that are bash syntax or change the shell itself only at the start of a command: a wrapper before them
#: makes them a program's name (`env getopts` runs a program, which cannot change this shell).
SYNTAX = ("coproc ", "[[ ", "for ", "if ", "case ", "(", "{ ", "x()", "((", "getopts ")


def fill(shape: str, form: str) -> str:
    return shape.replace("FORM", form)


def refused_shapes() -> st.SearchStrategy[str]:
    assignments = st.builds(lambda shape, var, form: fill(shape.replace("VAR", var), form),
                            st.sampled_from(ASSIGNMENTS), st.sampled_from(VARIABLES), st.sampled_from(FORMS))
    shells = st.builds(lambda w1, w2, name, opts, script, form: fill(f"{w1}{w2}{name} {opts} {script}", form),
                       st.sampled_from(WRAPPERS), st.sampled_from(WRAPPERS), st.sampled_from(SHELLS),
                       st.sampled_from(OPTIONS), st.sampled_from(SCRIPTS), st.sampled_from(FORMS))
    code = st.builds(lambda w, shape, form: fill(shape if shape.startswith(SYNTAX) else w + shape, form),
                     st.sampled_from(WRAPPERS[:8]), st.sampled_from(CODE), st.sampled_from(FORMS))
    return st.one_of(assignments, shells, code)


def safe_shapes() -> st.SearchStrategy[str]:
    one = st.builds(fill, st.sampled_from(SAFE), st.sampled_from(FORMS))
    return st.one_of(one, st.builds(lambda a, sep, b: f"{a} {sep} {b}", one, st.sampled_from([";", "&&", "|"]), one))


def soup() -> st.SearchStrategy[str]:
    words = st.lists(st.one_of(st.sampled_from(VOCABULARY), st.sampled_from(FORMS)), min_size=2, max_size=7)
    return words.map(" ".join).filter(lambda t: "{v}" in t)


def accepted(template: str) -> bool:
    return all(slot.refusal is None for slot in scan(template) if slot.name == "v")


def canaries(ws: Path) -> set[str]:
    return {p.name for p in ws.iterdir() if p.name.startswith(("C", "T"))}


def run_page(ws: Path, templates: list[str], values: list[str]) -> set[str]:
    """Every template as `act.t<i>` on one page, each run once per value (from a file, exactly as written); the
    canaries that appeared (`T<i>` a template's own `touch T`, `C<i>_<k>` a value's)."""
    page = "".join(f"```act.t{i}\nCLI {t.replace('touch T', f'touch T{i}')}\n  v: string\n```\n\n"
                   for i, t in enumerate(templates))
    (ws / "t.md").write_text("# T\n\n" + page)
    lines = ["/open t.md"]
    for i in range(len(templates)):
        for k, value in enumerate(values):
            (ws / f"h{i}_{k}.txt").write_text(value.replace("{c}", f"C{i}_{k}"))
            lines.append(f"/act.t{i} --v-file h{i}_{k}.txt")
    proc = run_stringsh(["--no-sandbox", "run", "--keep-going", "-"], ws, stdin="\n".join(lines) + "\n", timeout=300)
    out = proc.stdout.decode()
    assert out.startswith("re: /open t.md\nOpened t.md"), proc.stderr.decode()
    assert out.count("\nexit: ") + out.count("\nERROR(EXIT_") == len(templates) * len(values), out  # each one ran
    return canaries(ws)


def empty(ws: Path) -> None:
    """Remove the canaries of an earlier run (the workspace's own `.stringsh/` stays)."""
    for old in ws.iterdir():
        if old.name.startswith(("C", "T")):
            old.unlink()


def prove(ws: Path, templates: list[str]) -> None:
    """Run what the allowlist accepts: first with a plain value (a template that runs its own `touch T` is left
    out), then with every hostile value; no canary may appear."""
    empty(ws)
    runnable = [t for t in dict.fromkeys(templates) if accepted(t)]
    if not runnable:
        return
    own = run_page(ws, runnable, ["plain"])
    runnable = [t for i, t in enumerate(runnable) if f"T{i}" not in own]
    empty(ws)
    if runnable:
        found = run_page(ws, runnable, HOSTILE)
        assert not found, [(name, runnable[int(name[1:].split("_")[0])]) for name in sorted(found)]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("allowlist")


@settings(max_examples=300, deadline=None)
@given(template=refused_shapes())
def test_what_bash_evaluates_is_refused(template: str) -> None:
    slots = [slot for slot in scan(template) if slot.name == "v"]
    assert slots and all(slot.refusal for slot in slots), template


@settings(max_examples=200, deadline=None)
@given(template=safe_shapes())
def test_a_plain_argument_of_a_safe_command_is_accepted(template: str) -> None:
    assert [slot.refusal for slot in scan(template) if slot.name == "v"] == [None] * template.count("{v}"), template


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(templates=st.lists(st.one_of(refused_shapes(), safe_shapes(), soup(), soup()), min_size=12, max_size=24))
def test_no_accepted_template_runs_a_value_through_the_real_program(place: Path, templates: list[str]) -> None:
    prove(place, templates)


def test_the_canary_would_show_an_injection(tmp_path: Path) -> None:
    """The harness can fail: the issue's template, run without the allowlist, creates the canary."""
    run = run_bash('RANDOM="${1}"; echo rnd', tmp_path, args=["a[$(touch C0_0)]"])
    assert run.output == "rnd" and canaries(tmp_path) == {"C0_0"}
