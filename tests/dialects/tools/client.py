"""Talking to the real `python -m stringsh tools` over pipes, as an agent does."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import run_stringsh


def line(request: dict[str, Any] | str | bytes) -> bytes:
    """A request line: a dict as JSON, a str or bytes as given (bad input)."""
    if isinstance(request, dict):
        return json.dumps(request).encode() + b"\n"
    data = request.encode() if isinstance(request, str) else request
    return data if data.endswith(b"\n") else data + b"\n"


def tools(ws: Path, *requests: dict[str, Any] | str | bytes, timeout: float = 120) -> list[dict[str, Any]]:
    """The replies to `requests`, one each, in order; the program must end cleanly at end of input."""
    proc = run_stringsh(["tools"], cwd=ws, stdin=b"".join(line(r) for r in requests), timeout=timeout)
    assert proc.returncode == 0, proc.stderr.decode()
    return [json.loads(text) for text in proc.stdout.decode().splitlines()]


def call(ws: Path, tool: str, args: dict[str, Any], id_: Any = 1) -> dict[str, Any]:
    """One call's reply, with `duration_ms` (checked to be an integer, the interface's shape) set to 0."""
    (reply,) = tools(ws, {"id": id_, "tool": tool, "args": args})
    return steady(reply)


def steady(reply: dict[str, Any]) -> dict[str, Any]:
    result = reply.get("result")
    if isinstance(result, dict) and "duration_ms" in result:
        assert type(result["duration_ms"]) is int  # the field's shape only: speed is bench/dialects.py's
        result["duration_ms"] = 0
    return reply


def bash_result(stdout: str, stderr: str = "", exit_code: int = 0, **more: Any) -> dict[str, Any]:
    return {"stdout": stdout, "stderr": stderr, "exit_code": exit_code, "duration_ms": 0, "truncated": False,
            **more}


def audit_records() -> list[dict[str, Any]]:
    """Every record of the (one) workspace's audit log in the test's own state folder."""
    (log,) = Path(os.environ["XDG_STATE_HOME"], "stringsh").glob("*/*/audit.log")
    return [json.loads(text) for text in log.read_text().splitlines()]


def use_sandbox(provider: str) -> None:
    """The user's policy picks the shell provider (`local` or `bubblewrap`), as a user would: the sandbox is on
    by default, so `local` turns it off."""
    policy = Path(os.environ["STRINGSH_CONFIG_DIR"], "policy.toml")
    policy.parent.mkdir(parents=True, exist_ok=True)
    policy.write_text(f"[shell]\nsandbox = {'true' if provider == 'bubblewrap' else 'false'}\n")
