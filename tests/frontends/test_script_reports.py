"""Scripts that report where they stopped, a `--keep-going` summary, and `{var}` rules
(headers substituted, heredoc bodies literal as in String, `{{name}}` for a literal `{name}`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import default_start, run_stringsh
from tests.frontends.scripts import split_replies

POLICY = default_start()
ECHO_PAGE = "# T\n\n```act.echo\nCLI printf '%s|' {c}\n  c, -c: string (required)\n```\n"


def test_a_stopped_run_names_the_file_line_and_keep_going(ws: Path) -> None:
    (ws / "s.str").write_text("/ls\n\n# check the build\n!test -f nope\n/ls\n")
    proc = run_stringsh(["run", "s.str"], ws)
    assert proc.returncode == 1
    assert [r.split("\n")[0] for r in split_replies(proc.stdout.decode())] == ["re: /ls", "re: !test -f nope"]
    assert proc.stderr.decode() == POLICY + (
        "stringsh: stopped at s.str:4: !test -f nope (EXIT_1); the requests after it were not run "
        "(--keep-going runs them all)\n"
    )


def test_a_stopped_run_from_stdin_says_stdin(ws: Path) -> None:
    proc = run_stringsh(["run", "-"], ws, stdin="/nope\n/ls\n")
    assert proc.returncode == 1
    assert proc.stderr.decode() == POLICY + (
        "stringsh: stopped at <stdin>:1: /nope (COMMAND_UNSUPPORTED); the requests after it were not run "
        "(--keep-going runs them all)\n"
    )


def test_keep_going_ends_with_a_summary_of_failures_and_their_lines(ws: Path) -> None:
    (ws / "a.str").write_text("/ls\n!test -f nope\n/write new.md <<EOF\nx\nEOF\n")
    (ws / "b.str").write_text("# second file\n\n/open missing.md\n/set <<EOF\nnot an assignment\nEOF\n/ls\n")
    proc = run_stringsh(["run", "--keep-going", "a.str", "b.str"], ws)
    assert proc.returncode == 1
    assert len(split_replies(proc.stdout.decode())) == 6
    assert proc.stderr.decode() == POLICY + (
        "stringsh: 6 requests, 3 failed:\n"
        "  a.str:2: !test -f nope (EXIT_1)\n"
        "  b.str:3: /open missing.md (NOT_FOUND)\n"
        "  b.str:4: /set (INVALID_PAYLOAD)\n"
    )


def test_keep_going_says_when_everything_succeeded(ws: Path) -> None:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/ls\n/set a = 1\n")
    assert proc.returncode == 0
    assert proc.stderr.decode() == POLICY + "stringsh: 2 requests, all succeeded\n"


def test_a_successful_run_prints_nothing_more(ws: Path) -> None:
    proc = run_stringsh(["run", "-"], ws, stdin="/ls\n")
    assert (proc.returncode, proc.stderr.decode()) == (0, POLICY)


def test_variables_fill_headers_never_heredoc_bodies(ws: Path) -> None:
    """String substitutes `{var}` in arguments (flag values, URIs, headers, templates), not in bodies."""
    script = "/set version = 1.4\n/write notes-{version}.md <<EOF\nRelease {version}\nEOF\n"
    proc = run_stringsh(["run", "-"], ws, stdin=script)
    assert proc.returncode == 0, proc.stdout
    assert (ws / "notes-1.4.md").read_text() == "Release {version}\n"


def test_double_braces_give_a_literal_name(ws: Path) -> None:
    (ws / "a.md").write_text(ECHO_PAGE)
    script = "/set name = Ana\n!echo {name} {{name}} {{unset}} {unset}\n/exec echo {{name}}\n/open a.md\n" \
             "/act.echo -c '{{name}} {name}'\n"
    proc = run_stringsh(["run", "-"], ws, stdin=script)
    assert proc.returncode == 0, proc.stdout
    replies = split_replies(proc.stdout.decode())
    assert replies[1] == f"re: !echo {{name}} {{{{name}}}} {{{{unset}}}} {{unset}}\nexit: 0 | cwd: {ws}\n---\n" \
        "Ana {name} {unset} {unset}"
    assert replies[2].endswith("---\n{name}")
    assert replies[4].endswith("---\n{name} Ana|")
