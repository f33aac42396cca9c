"""Finding 6: every `[permissions]` flag is enforced on every command that needs it (flag × command), the files
untouched. The engine checks each flag inside its operation, so every front end gets the same refusal.

Which flags a command needs: reading a file `read`; listing a folder `list_dir`; any change to a file `write`;
changing part of an existing file in place (`/edit` of a block or a whole file, forced or not, and `/append`)
`edit` as well; `/undo` its own `revert` and, as it changes files, `write`; running anything in a shell (`!cmd`,
`/exec`, `/bash`, a CLI action) `shell`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher

PAGE = "# A\n\n## Part\n\nold text\n"
OPS = "# Ops\n\n```act.touch\nCLI touch made-by-action\n```\n"

# (flag turned off, commands run first (they must succeed), the command that must be refused)
CASES: list[tuple[str, list[str], str]] = [
    ("read", [], "/open a.md"),
    ("read", [], "/source a.md"),
    ("read", [], "/edit a.md"),
    ("read", [], "/verify a.md#part"),
    ("list_dir", [], "/ls"),
    ("list_dir", [], "/open folder"),
    ("write", [], "/write new.txt\nhello\n"),
    ("write", ["/open a.md"], "/write a.md\nreplaced\n"),
    ("write", [], "/write --force a.md\nreplaced\n"),
    ("write", [], "/append a.md\nmore\n"),
    ("write", ["/open a.md"], "/edit a.md\nreplaced\n"),
    ("write", [], "/edit --force a.md\nreplaced\n"),
    ("write", [], "/edit a.md#part\nnew text\n"),
    ("edit", [], "/edit --force a.md\nreplaced\n"),
    ("edit", ["/open a.md"], "/edit a.md\nreplaced\n"),
    ("edit", ["/open a.md"], "/edit #part\nnew text\n"),
    ("edit", [], "/edit a.md#part\nnew text\n"),
    ("edit", [], "/append a.md\nmore\n"),
    ("patch", [], "/patch\n*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n"),
    ("edit", [], "/patch\n*** Begin Patch\n*** Update File: a.md\n+more\n*** End Patch\n"),
    ("shell", [], "!touch made-by-shell"),
    ("shell", [], "/exec touch made-by-shell"),
    ("shell", [], "/bash"),
    ("shell", ["/open ops.md"], "/act.touch"),
]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file outside the engine's own state, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".stringsh" not in p.relative_to(root).parts
    }


def make_workspace(ws: Path, flag: str) -> None:
    (ws / "a.md").write_text(PAGE)
    (ws / "ops.md").write_text(OPS)
    (ws / "folder").mkdir()
    (ws / "folder" / "inside.txt").write_text("in\n")
    (ws / "stringsh.toml").write_text(f"[permissions]\n{flag} = false\n")


@pytest.mark.parametrize(("flag", "before", "command"), CASES, ids=[f"{c[0]}:{c[2].split(chr(10))[0]}" for c in CASES])
def test_every_flag_on_every_command(ws: Path, flag: str, before: list[str], command: str) -> None:
    make_workspace(ws, flag)
    dispatcher = Dispatcher(ws)
    try:
        for step in before:
            assert dispatcher.execute(step).ok, step
        files = snapshot(ws)
        reply = dispatcher.execute(command)
        assert reply.code == "NOT_PERMITTED", reply.text
        assert f"ERROR(NOT_PERMITTED): {flag} is disabled by policy" in reply.text
        assert snapshot(ws) == files
    finally:
        dispatcher.close()


def test_edit_force_is_refused_when_edit_is_off(ws: Path) -> None:
    """The attack as reported: `[permissions] edit = false`, then `/edit --force file.txt` changed the file."""
    (ws / "file.txt").write_text("original\n")
    (ws / "stringsh.toml").write_text("[permissions]\nedit = false\n")
    dispatcher = Dispatcher(ws)
    try:
        reply = dispatcher.execute("/edit --force file.txt\nchanged\n")
        assert reply.text == (
            "re: /edit --force file.txt\nERROR(NOT_PERMITTED): edit is disabled by policy\n"
            "The policy's [permissions] edit = false."
        )
        assert (ws / "file.txt").read_text() == "original\n"
        assert dispatcher.execute("/write new.txt\nwhole files are still written\n").ok  # write stays allowed
    finally:
        dispatcher.close()


@pytest.mark.parametrize("flag", ["write", "revert"])
def test_undo_is_a_write(ws: Path, flag: str) -> None:
    """A change made while allowed is not undone once the policy turns `write` (or `revert`) off."""
    (ws / "a.md").write_text(PAGE)
    first = Dispatcher(ws)
    try:
        assert first.execute("/write --force a.md\nchanged\n").ok
        assert first.execute("/write new.txt\ncreated\n").ok
    finally:
        first.close()
    (ws / "stringsh.toml").write_text(f"[permissions]\n{flag} = false\n")
    files = snapshot(ws)
    dispatcher = Dispatcher(ws)
    try:
        reply = dispatcher.execute("/undo")
        assert reply.text == (
            f"re: /undo\nERROR(NOT_PERMITTED): {flag} is disabled by policy\nThe policy's [permissions] {flag} = false."
        )
        assert snapshot(ws) == files
    finally:
        dispatcher.close()


def test_a_read_only_root_keeps_its_own_refusal_for_edits(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    (ws / "stringsh.toml").write_text('[[roots]]\npath = "."\nmode = "read_only"\n')
    dispatcher = Dispatcher(ws)
    try:
        for command in ("/edit a.md#part\nnew\n", "/edit --force a.md\nnew\n", "/append a.md\nmore\n"):
            assert body_of(dispatcher.execute(command).text) == (
                "ERROR(NOT_PERMITTED): write is not allowed: root root0 is read_only\n"
                "A read_only root is never changed; /info lists the roots and their modes."
            )
    finally:
        dispatcher.close()
    assert (ws / "a.md").read_text() == PAGE


def body_of(reply: str) -> str:
    return reply.split("\n", 1)[1]
