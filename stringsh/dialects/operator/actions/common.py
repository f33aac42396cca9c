"""What every action shares: refusals as one-line summaries, the diff shown before a change, numbered lines."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from stringsh.protocol.operator_model import Command, Confirmer, ConfirmRequest, Result

if TYPE_CHECKING:
    from stringsh.errors import StringError
    from stringsh.workspace import Workspace

#: Width line numbers are padded to in readSlice and search payloads (upstream's `padStart(6)`).
NUMBER_WIDTH = 6


#: A summary that starts with an engine code (`NOT_FOUND: ...`).
LEADING_CODE = re.compile(r"([A-Z][A-Z_]*[A-Z]): ")


class Refused(Exception):
    """An action's own refusal: its text is the whole `ok: false` summary; `outcome` is the code the audit log
    records for it (the summary's leading engine code when it has one); `details`: the next step, when there is
    one (hinting.py)."""

    def __init__(self, summary: str, outcome: str | None = None, details: str | None = None) -> None:
        super().__init__(summary)
        self.summary = summary
        self.details = details
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


def _lines(text: str) -> list[str]:
    lines = text.split("\n") if text else []
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def unified(workspace: Workspace, old: str, new: str, old_name: str, new_name: str) -> str:
    """A unified diff of two texts (line endings left out: the engine keeps the file's own), for the confirmer;
    its lines masked as workspace/textdiff.py shows them (a person sees it, and so may an agent's log)."""
    from stringsh.workspace import shown_pair
    from stringsh.workspace import unified_diff as diff_lines

    a, b = shown_pair(old.replace("\r\n", "\n"), new.replace("\r\n", "\n"), workspace.redactor, _lines)
    return "\n".join(diff_lines(a, b, fromfile=old_name, tofile=new_name, lineterm=""))


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


def ok(command: Command, summary: str, details: str | None = None, change_id: int | None = None) -> Result:
    """An `ok: true` result; a mutating action names the change set it made (`change_id`)."""
    return Result(command.id, True, summary, details, None if change_id is None else int(change_id))
