"""The confinement attack catalogue (docs/hazards.md, A and B) through glob and grep: as the path argument each case is
refused with its code; met during a walk (every case's setup in one tree) nothing outside the root, no secret and
no engine state is listed or searched. Nothing outside the root changes."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import Workspace

from .attacks import ATTACKS, Attack
from .conftest import snapshot

SEARCHES: dict[str, Callable[[Workspace, str], object]] = {
    "grep": lambda ws, p: ws.grep("x", p),
    "glob": lambda ws, p: ws.glob("**", p),
}
COMMANDS = {"/grep": "/grep x {path}", "/glob": "/glob '**' {path}", "/grep --": "/grep x -- {path}"}


def prepare(world: Path, attack: Attack) -> tuple[str, dict]:
    if attack.setup is not None:
        attack.setup(world, world.parent.parent)
    return attack.target(world), snapshot(world.parent.parent, world)


@pytest.mark.parametrize("op", list(SEARCHES))
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_engine_refuses_the_path(world: Path, attack: Attack, op: str) -> None:
    path, before = prepare(world, attack)
    workspace = Workspace(world)
    try:
        with pytest.raises(StringError) as caught:
            SEARCHES[op](workspace, path)
        assert caught.value.code == attack.code, caught.value.message
    finally:
        workspace.close()
    assert snapshot(world.parent.parent, world) == before


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_commands_refuse_the_path(world: Path, attack: Attack, command: str) -> None:
    path, before = prepare(world, attack)
    dispatcher = Dispatcher(world)
    try:
        reply = dispatcher.execute(COMMANDS[command].format(path=shlex.quote(path)))
        expected = "INVALID_PAYLOAD" if "\x00" in path else attack.code
        assert reply.code == expected, reply.text
        assert f"\nERROR({expected}): " in reply.text
    finally:
        dispatcher.close()
    assert snapshot(world.parent.parent, world) == before


def every_setup(world: Path) -> None:
    """Every case's links and files in one tree (a case whose names another already made is left out)."""
    for attack in ATTACKS:
        if attack.setup is not None:
            try:
                attack.setup(world, world.parent.parent)
            except FileExistsError:
                continue


@pytest.mark.parametrize("engine", ["auto", "python"])
def test_a_walk_through_every_attack_lists_and_finds_nothing_it_must_not(world: Path, engine: str) -> None:
    """With rg installed, "auto" is rg's walk with Python's check of what it returns: the same answer."""
    every_setup(world)
    (world / "plain.txt").write_text("x\n")
    before = snapshot(world.parent.parent, world)
    workspace = Workspace(world)
    try:
        for stats in (False, True):
            listed = [m.rel for m in workspace.glob("**", stats=stats, engine=engine).matches]
            assert listed == ["plain.txt"], listed
            for needle in ("TOP SECRET", "root:x", "sibling", "K=1", "AWS_SECRET", "OPENSSH", "x"):
                result = workspace.grep(needle, engine=engine, stats=stats)
                assert [line.path for line in result.lines] == (["plain.txt"] if needle == "x" else []), needle
        counts = workspace.glob("**", stats=True, engine=engine).traversal
        assert counts.skipped_symlinks > 0  # the links were met, counted and not followed
    finally:
        workspace.close()
    assert snapshot(world.parent.parent, world) == before
