"""OPERATOR_RESULT blocks (docs/operator-protocol.md): the formatter every front end uses, and the inverse parse
for clients and tests. A summary is one line whatever an action put in it (CR and LF become spaces)."""

from __future__ import annotations

import binascii
from collections.abc import Callable

from stringsh.escapes import escape_controls
from stringsh.protocol.operator_model import Invalid, Result

RESULT_START = "OPERATOR_RESULT"
RESULT_END = "END_OPERATOR_RESULT"


def single_line(text: str) -> str:
    """A summary on one line: CR and LF become spaces."""
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def format_result(result: Result, mask: Callable[[str], str] | None = None) -> str:
    """The OPERATOR_RESULT block, ending with a newline: no `id:` line when the block had no id.

    `mask` (the workspace's `redact_lines`) is where OPERATOR_CMD output is masked, once, summary and details
    alike: details leave base64-encoded, so nothing after this point could still mask them. It is also where they
    are made safe for a terminal (`escapes.escape_controls`, docs/security.md): a client prints the decoded details.
    """
    masking = mask or str
    lines = [RESULT_START]
    if result.id is not None:
        lines.append(f"id: {result.id}")
    lines.append(f"ok: {'true' if result.ok else 'false'}")
    lines.append(f"summary: {escape_controls(single_line(masking(result.summary)))}")
    if result.change_id is not None:
        lines.append(f"change_id: {result.change_id}")
    if result.details is not None:
        details = escape_controls(masking(result.details))
        lines.append("details_b64: " + binascii.b2a_base64(details.encode("utf-8"), newline=False).decode())
    lines.append(RESULT_END)
    return "\n".join(lines) + "\n"


def invalid_result(invalid: Invalid) -> Result:
    return Result(invalid.id, False, invalid.summary)


def parse_results(text: str) -> list[Result]:
    """Every OPERATOR_RESULT block in `text`, details decoded: the inverse of `format_result`, for clients and
    tests."""
    results: list[Result] = []
    fields: dict[str, str] | None = None
    for line in text.splitlines():
        if line == RESULT_START:
            fields = {}
        elif line == RESULT_END and fields is not None:
            details = fields.get("details_b64")
            results.append(Result(fields.get("id"), fields.get("ok") == "true", fields.get("summary", ""),
                                  None if details is None else binascii.a2b_base64(details).decode("utf-8"),
                                  int(fields["change_id"]) if "change_id" in fields else None))
            fields = None
        elif fields is not None:
            key, _, value = line.partition(": ")
            fields[key] = value
    return results
