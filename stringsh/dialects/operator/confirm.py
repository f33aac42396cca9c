"""Who says yes to an OPERATOR_CMD change: the policy's `[operator] confirm` ("prompt" | "allow" | "deny",
default "prompt"), and for "prompt" a person asked through `ask` (the REPL's own prompt, or `tty_asker` on the
controlling terminal). With no way to ask, "prompt" refuses: nothing is ever allowed silently by default. A
workspace's untrusted stringsh.toml may narrow the setting (prompt to deny) but never widen it (layers.py)."""

from __future__ import annotations

import os
from collections.abc import Callable

from stringsh.protocol.operator_model import Confirmer, ConfirmRequest
from stringsh.workspace import Policy

#: A person's answer to one request: True to go ahead.
Ask = Callable[[ConfirmRequest], bool]

NO_TERMINAL = ('not confirmed: no terminal to ask on; set [operator] confirm = "allow" in your own policy '
               "(<config>/policy.toml or --policy FILE) to let changes run unattended")
DENIED = 'not confirmed: the policy denies changes ([operator] confirm = "deny")'
DECLINED = "not confirmed: declined by the user; nothing was written"
#: Lines of a diff shown on the terminal; the rest is counted.
SHOWN_LINES = 200


def policy_confirmer(policy: Policy, ask: Ask | None) -> Confirmer:
    """The confirmer the policy's `[operator] confirm` makes; `ask` is None when there is no way to ask."""
    mode = policy.operator.confirm

    def confirmer(request: ConfirmRequest) -> str | None:
        if mode == "allow":
            return None
        if mode == "deny":
            return DENIED
        if ask is None:
            return NO_TERMINAL
        try:
            return None if ask(request) else DECLINED
        except (OSError, EOFError, KeyboardInterrupt):
            return DECLINED
    return confirmer


def printable(line: str) -> str:
    """A line safe to show on a terminal: control characters (an agent's text could carry escape sequences that
    redraw the prompt) shown as `\\xNN`."""
    return "".join(c if c == "\t" or (c >= " " and not ("\x7f" <= c <= "\x9f")) else f"\\x{ord(c):02x}"
                   for c in line)


def render(request: ConfirmRequest) -> str:
    """What a person sees before answering: the summary, the diff (at most SHOWN_LINES lines), the question."""
    lines = [f"operator: {request.action} {request.path}: {request.summary}"]
    diff = request.diff.split("\n") if request.diff else []
    lines.extend(diff[:SHOWN_LINES])
    if len(diff) > SHOWN_LINES:
        lines.append(f"... {len(diff) - SHOWN_LINES} more lines of the diff not shown")
    return "\n".join(printable(line) for line in lines)


def tty_asker(device: str = "/dev/tty") -> Ask | None:
    """An asker on the controlling terminal (the CLI's stdin and stdout carry the blocks), or None when the
    process has none (ENXIO, or no such device)."""
    try:
        fd = os.open(device, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    os.close(fd)

    def ask(request: ConfirmRequest) -> bool:
        tty = os.open(device, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)  # a terminal is not seekable: raw I/O
        try:
            data = (render(request) + "\nApply this change? [y/N] ").encode("utf-8", "replace")
            while data:
                data = data[os.write(tty, data):]
            with open(tty, "rb", buffering=0, closefd=False) as reader:
                answer = reader.readline(4096).decode("utf-8", "replace")
        finally:
            os.close(tty)
        return answer.strip().lower() in ("y", "yes")
    return ask
