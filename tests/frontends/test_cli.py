"""The quick command-line reader agrees with argparse on every line it accepts, and leaves the rest to it."""

from __future__ import annotations

import pytest

from stringsh.cli import Options, build_parser, quick_parse

FIELDS = (
    "root", "policy", "command", "plain", "no_echo", "no_sandbox", "color", "mode", "files", "keep_going", "json",
    "revoke", "status",
)

QUICK = [
    [],
    ["-c", "/ls"],
    ["-c", ""],
    ["--root", "ws", "-c", "/open a.md"],
    ["--policy", "p.toml", "--root", "ws", "--plain"],
    ["--color", "-c", "/ls", "-c", "/help"],
    ["daemon"],
    ["daemon", "--json"],
    ["--root", "x", "daemon", "--json", "--json"],
    ["run", "-"],
    ["run", "a.str", "b.str"],
    ["run", "--keep-going", "a.str"],
    ["run", "a.str", "--keep-going"],
    ["--color", "run", "--keep-going", "a.str", "b.str", "--keep-going"],
    ["repl"],
    ["--plain", "repl"],
    ["-c", "run"],
    ["daemon", "--root", "x"],
    ["daemon", "--json", "--root", "x", "--no-sandbox"],
    ["--root", "a", "daemon", "--root", "b"],
    ["repl", "--plain"],
    ["operator", "--policy", "p.toml", "--root", "ws"],
    ["tools", "--no-echo", "--color"],
    ["run", "--root", "ws", "a.str", "--keep-going", "--plain"],
]

SLOW = [
    ["--help"],
    ["--version"],
    ["--root=ws"],
    ["--col"],
    ["-c"],
    ["-c", "-x"],
    ["-c/ls"],
    ["run"],
    ["run", "a", "--keep-going", "b"],
    ["run", "-x"],
    ["daemon", "--jso"],
    ["run", "a", "--plain", "b"],
    ["daemon", "-c", "/ls"],
    ["daemon", "--root"],
    ["frob"],
    ["--", "-c"],
]


def as_fields(options: Options) -> dict[str, object]:
    return {name: vars(options)[name] for name in FIELDS}


@pytest.mark.parametrize("argv", QUICK, ids=" ".join)
def test_quick_lines_read_as_argparse_reads_them(argv: list[str]) -> None:
    quick = quick_parse(argv)
    assert quick is not None
    expected = Options()
    vars(expected).update(vars(build_parser().parse_args(argv)))
    assert as_fields(quick) == as_fields(expected)


@pytest.mark.parametrize("argv", SLOW, ids=" ".join)
def test_other_lines_are_left_to_argparse(argv: list[str]) -> None:
    assert quick_parse(argv) is None
