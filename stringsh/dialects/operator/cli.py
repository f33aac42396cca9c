"""`stringsh operator`: OPERATOR_CMD blocks on stdin, one OPERATOR_RESULT block per block on stdout, written and
flushed as soon as the block's END arrives (an agent waits for the answer before it sends more). Text around the
blocks is ignored, as an agent's prose would be. Exit status 0 when every block was ok, 1 otherwise.

Lines are read with a bound (`Caps.line`, from the policy's payload caps): a longer line is consumed in chunks and
never held whole, so a 100 MB payload is refused after reading its first bytes' worth and the loop answers the
next block.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from stringsh.dialects.operator.results import format_result
from stringsh.dialects.operator.serve import DIALECT, answer, caps_for, terminal_confirmer
from stringsh.protocol.operator_blocks import TRUNCATED, BlockScanner
from stringsh.protocol.operator_model import Command, Confirmer, Invalid
from stringsh.protocol.stdinput import standard_input

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher

CHUNK = 1024 * 1024
HEAD = 200


def read_line(readline: Callable[[int], bytes], limit: int) -> str | None:
    """One line of at most `limit` bytes, decoded (bytes that are not UTF-8 escaped, for the scanner to refuse);
    a longer one is its head plus TRUNCATED, the rest read and dropped. None at end of input."""
    line = readline(limit + 1)
    if not line:
        return None
    if len(line) <= limit or line.endswith(b"\n"):
        return line.decode("utf-8", "surrogateescape")
    head = line[:HEAD]
    while line and not line.endswith(b"\n"):
        line = readline(CHUNK)
    return head.decode("utf-8", "surrogateescape") + TRUNCATED


def serve(
    readline: Callable[[int], bytes], out: BinaryIO, scanner: BlockScanner,
    run: Callable[[Command | Invalid], bool],
) -> int:
    """The loop: feed lines, answer each block as it ends; 0 when every block was ok."""
    failed = False
    limit = scanner.caps.line + 2  # the CR and LF a line may end with
    while True:
        raw = read_line(readline, limit)
        items = scanner.finish() if raw is None else scanner.feed(raw)
        for item in items:
            failed = not run(item) or failed
        if raw is None:
            return 1 if failed else 0


def run(dispatcher: Dispatcher, options: object) -> int:
    """Serve stdin until end of input under the policy's `[operator] confirm` (default: ask on the controlling
    terminal when there is one, else deny)."""
    workspace = dispatcher.workspace
    confirm: Confirmer = terminal_confirmer(workspace)
    out = sys.stdout.buffer

    def run_one(item: Command | Invalid) -> bool:
        result = answer(workspace, item, confirm, topic=DIALECT)
        out.write(format_result(result, workspace.redact_lines).encode("utf-8", "backslashreplace"))
        out.flush()
        return result.ok

    stdin = standard_input()
    return stdin.status(serve(stdin, out, BlockScanner(caps_for(workspace)), run_one))
