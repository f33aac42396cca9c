"""Running OPERATOR_CMD actions on a real temp workspace, with a confirmer that records what it was asked."""

from __future__ import annotations

from pathlib import Path

from stringsh.dialects.operator.actions import run_action
from stringsh.protocol.operator_model import Command, ConfirmRequest, Result
from stringsh.workspace import Workspace


class Recorder:
    """A confirmer: records every request; answers None (go ahead) or `refusal`."""

    def __init__(self, refusal: str | None = None) -> None:
        self.refusal = refusal
        self.requests: list[ConfirmRequest] = []

    def __call__(self, request: ConfirmRequest) -> str | None:
        self.requests.append(request)
        return self.refusal


def command(action: str, **fields: str) -> Command:
    """A Command as the parser makes it: `*_b64` keys given here as their decoded text."""
    payloads = {k: v for k, v in fields.items() if k.endswith("_b64")}
    plain = {k: v for k, v in fields.items() if not k.endswith("_b64")}
    return Command("c1", action, plain, payloads)


def run(workspace: Workspace, action: str, confirm: Recorder | None = None, **fields: str) -> Result:
    return run_action(workspace, command(action, **fields), confirm or Recorder(), topic="main")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes under root (engine state left out)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.parts}
