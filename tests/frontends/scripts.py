"""A script exercising the wire's commands, and the replies String's reply format says it must produce."""

from __future__ import annotations

from pathlib import Path

SCRIPT = """\
# the wire's own commands
[r1] /ls
/ls docs
/set {var} = "val"
/set <<EOF
{a} = 1
b = "two"
EOF
/set
//HELP errors
/close
/ls missing
hello
/nope
"""

EXPECTED: list[str | None] = [
    "re: [r1] /ls\nListing ./\n---\n  docs/\n  README.md",
    "re: /ls docs\nListing docs/\n---\n  guide.md",
    're: /set {var} = "val"\n{var} = "val"',
    're: /set\n{a} = "1"\n{b} = "two"',
    're: /set\nVariables\n---\n{var} = "val"\n{a} = "1"\n{b} = "two"',
    None,  # /help errors: checked by its first lines
    "re: /close\nERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>.",
    "re: /ls missing\nERROR(NOT_FOUND): Not found\nNo such folder: missing",
    "re: hello\nERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nUse /help for details.",
    "re: /nope\nERROR(COMMAND_UNSUPPORTED): Unknown command: /nope\nUse /help to see available commands.",
]


def make_workspace(ws: Path) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text("# Guide\n")
    (ws / "README.md").write_text("# Readme\n")
    (ws / ".env").write_text("SECRET=1\n")


def split_replies(output: str) -> list[str]:
    """Cut a stream of replies at each `re:` line."""
    replies: list[str] = []
    for line in output.splitlines():
        if line.startswith("re: "):
            replies.append(line)
        elif replies:
            replies[-1] += "\n" + line
    return replies


def check(replies: list[str]) -> None:
    assert len(replies) == len(EXPECTED), replies
    for got, want in zip(replies, EXPECTED, strict=True):
        if want is None:
            assert got.startswith("re: //HELP errors\nError Codes\n---\n"), got
        else:
            assert got == want
