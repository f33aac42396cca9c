"""Confinement attack catalogue: every case through every engine path API and through /write /append /ls,
each refused with its code, nothing outside the root touched, nothing journalled."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.protocol.response import re_line
from stringsh.workspace import ChangeSet, Workspace

from .attacks import ATTACKS, LITERALS, Attack
from .conftest import snapshot

ENGINE_OPS: dict[str, Callable[[Workspace, str], object]] = {
    "read_text": lambda ws, p: ws.read_text(p),
    "read_bytes": lambda ws, p: ws.read_bytes(p),
    "stat": lambda ws, p: ws.stat(p),
    "fingerprint": lambda ws, p: ws.fingerprint(p),
    "list_dir": lambda ws, p: ws.list_dir(p),
    "write_text": lambda ws, p: ws.write_text(p, "pwned\n"),
    "append_text": lambda ws, p: ws.append_text(p, "pwned\n"),
    "apply_write": lambda ws, p: ws.apply(ChangeSet().write(p, b"pwned\n")),
    "apply_delete": lambda ws, p: ws.apply(ChangeSet().delete(p)),
    "apply_second_file": lambda ws, p: ws.apply(ChangeSet().write("innocent.txt", b"ok\n").write(p, b"pwned\n")),
}

COMMANDS = {
    "/write": "/write {path}\npwned\n",
    "/write --force": "/write --force {path}\npwned\n",
    "/write one-line": "/write {path} pwned",
    "/append": "/append {path}\npwned\n",
    "/ls": "/ls {path}",
}


def prepare(world: Path, attack: Attack) -> tuple[str, dict]:
    if attack.setup is not None:
        attack.setup(world, world.parent.parent)
    return attack.target(world), snapshot(world.parent.parent, world)


def assert_untouched(world: Path, before: dict) -> None:
    assert snapshot(world.parent.parent, world) == before
    assert not (world / "innocent.txt").exists()


@pytest.mark.parametrize("op", list(ENGINE_OPS))
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_engine_refuses(world: Path, attack: Attack, op: str) -> None:
    path, before = prepare(world, attack)
    workspace = Workspace(world)
    try:
        with pytest.raises(StringError) as caught:
            ENGINE_OPS[op](workspace, path)
        assert caught.value.code == attack.code, caught.value.message
        assert workspace.history() == []
    finally:
        workspace.close()
    assert_untouched(world, before)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.id for a in ATTACKS])
def test_commands_refuse(world: Path, attack: Attack, command: str) -> None:
    path, before = prepare(world, attack)
    dispatcher = Dispatcher(world)
    try:
        request = COMMANDS[command].format(path=shlex.quote(path))
        reply = dispatcher.execute(request)
        header = request.split("\n", 1)[0]
        expected = "INVALID_PAYLOAD" if "\x00" in path else attack.code
        assert reply.code == expected, reply.text
        assert reply.text.startswith(f"re: {header.replace(chr(0), '')}"[:40])
        assert f"\nERROR({expected}): " in reply.text
        assert dispatcher.execute("/undo").text == (
            "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
            "/changes lists the changes there are."
        )
    finally:
        dispatcher.close()
    assert_untouched(world, before)


def test_refusal_texts_are_exact(world: Path) -> None:
    dispatcher = Dispatcher(world)
    outside = world.parent / "proj2" / "x"
    asked = f"/write {shlex.quote(str(outside))}"
    assert dispatcher.execute(f"{asked}\nx\n").text == (
        re_line(asked, None) + f"\nERROR(FILE_NOT_ALLOWED): Path is outside the workspace: {outside}\n"
        f"Only paths under {world} can be used."
    )
    assert dispatcher.execute("/append a/../../x\ny\n").text == (
        "re: /append a/../../x\nERROR(INVALID_PATH): Path escapes the workspace root: a/../../x\n"
        "Use a path inside the workspace."
    )
    assert dispatcher.execute("/ls .env").text == (
        "re: /ls .env\nERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
        "The policy's secret deny list covers this path."
    )
    dispatcher.close()


@pytest.mark.parametrize(("case", "path"), LITERALS, ids=[c for c, _ in LITERALS])
def test_literal_names_stay_inside(world: Path, case: str, path: str) -> None:
    before = snapshot(world.parent.parent, world)
    workspace = Workspace(world)
    try:
        outcome = workspace.write_text(path, "literal\n")
        assert (world / outcome.rel).read_bytes() == b"literal\n"
        assert workspace.read_text(path).text == "literal\n"
        workspace.append_text(path, "more\n")
        assert (world / outcome.rel).read_bytes() == b"literal\nmore\n"
        workspace.undo("main")
        workspace.undo("main")
        assert not (world / outcome.rel).exists()
    finally:
        workspace.close()
    assert_untouched(world, before)


@pytest.mark.parametrize(("case", "path"), LITERALS, ids=[c for c, _ in LITERALS])
def test_literal_names_through_commands(world: Path, case: str, path: str) -> None:
    before = snapshot(world.parent.parent, world)
    dispatcher = Dispatcher(world)
    try:
        rel = dispatcher.workspace.relative(path)
        quoted = shlex.quote(path)
        folders = rel.split("/")[:-1]
        made = [d for d in ("/".join(folders[:k]) for k in range(len(folders), 0, -1)) if not (world / d).exists()]
        assert dispatcher.execute(f"/write {quoted}\nliteral\n").text == (
            f"re: /write {quoted}\nCreated: {rel} (8 bytes, 1 line)"
        )
        assert dispatcher.execute(f"/append {quoted}\nmore\n").text == (
            f"re: /append {quoted}\nAppended to: {rel} (now 13 bytes)"
        )
        parent = rel.rsplit("/", 1)[0] if "/" in rel else "."
        listing = dispatcher.execute(f"/ls {shlex.quote(parent)}").text
        name = rel.rsplit("/", 1)[-1]
        assert (f"\n  {name}" in listing) == (not name.startswith("."))
        assert dispatcher.execute("/undo").text == f"re: /undo\nUndo: reverted {rel} (1 line)"
        removed = f", removed its new empty folder{'s' if len(made) > 1 else ''} {', '.join(made)}" if made else ""
        assert dispatcher.execute("/undo").text == f"re: /undo\nUndo: deleted {rel} (was newly created){removed}"
        assert not any((world / d).exists() for d in made)
        assert dispatcher.execute("/undo").text == (
            "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
            "/changes lists the changes there are."
        )
    finally:
        dispatcher.close()
    assert_untouched(world, before)
