"""Running the real `python -m stringsh operator` (and other front ends) on pipes, with no controlling terminal
(a new session), in a temp workspace; building blocks and reading OPERATOR_RESULT blocks back."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

STRINGSH = [sys.executable, "-m", "stringsh"]


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def block(*lines: str, end: bool = True) -> str:
    """An OPERATOR_CMD block of `lines` (each `key: value`), LF line ends."""
    return "\n".join(["OPERATOR_CMD", *lines, *(["END_OPERATOR_CMD"] if end else [])]) + "\n"


def result(id: str | None, ok: bool, summary: str, details: str | None = None, change: int | None = None) -> str:
    """The exact OPERATOR_RESULT text the protocol specifies (with stringsh's `change_id:` line for a change)."""
    lines = ["OPERATOR_RESULT", *([f"id: {id}"] if id is not None else []), f"ok: {'true' if ok else 'false'}",
             f"summary: {summary}", *([f"change_id: {change}"] if change is not None else []),
             *([f"details_b64: {b64(details)}"] if details is not None else []),
             "END_OPERATOR_RESULT"]
    return "\n".join(lines) + "\n"


def invalid(id: str | None, code: str, detail: str) -> str:
    return result(id, False, f"Invalid OPERATOR_CMD ({code}): {detail}")


def allow_changes() -> None:
    """The user's own policy (trusted) lets operator changes run unattended."""
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text('[operator]\nconfirm = "allow"\n')


def run(args: list[str], ws: Path, stdin: bytes | str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    """The real program on pipes, in a new session: no controlling terminal to ask on."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    env = {**os.environ, "TERM": "dumb"}
    return subprocess.run([*STRINGSH, *args], cwd=ws, input=data, capture_output=True, timeout=timeout, env=env,
                          start_new_session=True)


def operator(ws: Path, stdin: bytes | str) -> tuple[str, int]:
    done = run(["operator"], ws, stdin)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout.decode(), done.returncode


def files(root: Path) -> dict[str, bytes]:
    """Every file's bytes under root (the engine's own `.stringsh/` left out)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.relative_to(root).parts}
