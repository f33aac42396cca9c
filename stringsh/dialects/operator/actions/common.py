"""What every action shares: refusals as one-line summaries, the diff shown before a change, numbered lines."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from stringsh.dialects.operator.model import Command, Confirmer, ConfirmRequest, Result

if TYPE_CHECKING:
    from stringsh.errors import StringError
    from stringsh.workspace.engine import Workspace

#: Width line numbers are padded to in readSlice and search payloads (upstream's `padStart(6)`).
NUMBER_WIDTH = 6


#: A summary that starts with an engine code (`NOT_FOUND: ...`).
LEADING_CODE = re.compile(r"([A-Z][A-Z_]*[A-Z]): ")


class Refused(Exception):
    """An action's own refusal: its text is the whole `ok: false` summary; `outcome` is the code the audit log
    records for it (the summary's leading engine code when it has one)."""

    def __init__(self, summary: str, outcome: str | None = None) -> None:
        super().__init__(summary)
        self.summary = summary
        leading = LEADING_CODE.match(summary)
        self.outcome = outcome or (leading.group(1) if leading else "REFUSED")


def invalid(code: str, detail: str) -> Refused:
    """Upstream HEAD's validation summary, `Invalid OPERATOR_CMD (ERR_X): detail`."""
    return Refused(f"Invalid OPERATOR_CMD ({code}): {detail}", "INVALID_PAYLOAD")


def one_line(text: str) -> str:
    """Summaries are one line: breaks become spaces (a message never ends an OPERATOR_RESULT early)."""
    return " ".join(text.replace("\r", "\n").split("\n")).strip()


def error_summary(exc: StringError, prefix: str = "") -> str:
    """An engine refusal as `CODE: message` (its hint left out: a summary is one line)."""
    return one_line(f"{prefix}{exc.code}: {exc.message}")


def numbered(number: int, text: str) -> str:
    return f"{str(number).rjust(NUMBER_WIDTH)}: {text}"


def unified(old: str, new: str, old_name: str, new_name: str) -> str:
    """A unified diff of two texts (line endings left out: the engine keeps the file's own), for the confirmer."""
    old_lines = old.replace("\r\n", "\n").split("\n") if old else []
    new_lines = new.replace("\r\n", "\n").split("\n") if new else []
    if old_lines and old_lines[-1] == "":
        old_lines.pop()
    if new_lines and new_lines[-1] == "":
        new_lines.pop()
    return "\n".join(difflib.unified_diff(old_lines, new_lines, old_name, new_name, lineterm=""))


def ask(workspace: Workspace, confirm: Confirmer, command: Command, path: str, summary: str,
        diff: str | Callable[[], str]) -> None:
    """Ask before a mutation (redacted: a person sees it, and so may an agent's log); Refused when not allowed.
    Under `[operator] confirm = "allow"` every front end's confirmer says yes unseen, so nobody is asked and the
    diff (`diff` may be a function making it: a 100 KB file's costs milliseconds) is never made."""
    if workspace.policy.operator.confirm == "allow":
        return
    text = diff() if callable(diff) else diff
    reason = confirm(ConfirmRequest(command.action, path, workspace.redact(summary), workspace.redact_lines(text)))
    if reason is not None:
        raise Refused(one_line(reason), "NOT_CONFIRMED")


def ok(command: Command, summary: str, details: str | None = None) -> Result:
    return Result(command.id, True, summary, details)
