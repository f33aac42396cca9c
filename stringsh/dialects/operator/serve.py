"""Answering OPERATOR_CMD blocks, shared by `stringsh operator` (cli.py) and the String Commands front ends (an
OPERATOR_CMD block sent as a request to the REPL, the plain loop or the daemon): every block goes through the same
scanner and `run_action`, spoken as the `operator` dialect so the journal and audit say who asked."""

from __future__ import annotations

from stringsh.dialects.operator.results import format_result, invalid_result
from stringsh.errors import StringError
from stringsh.protocol.operator_blocks import BlockScanner, Caps
from stringsh.protocol.operator_model import Command, Confirmer, Invalid, Result
from stringsh.workspace import Workspace

#: The topic `stringsh operator` runs its blocks in (its undo scope).
DIALECT = "operator"


def terminal_confirmer(workspace: Workspace) -> Confirmer:
    """The policy's `[operator] confirm`, asking on the controlling terminal when it says "prompt" (the blocks and
    results use stdin and stdout); with no controlling terminal nobody can be asked, and the change is refused."""
    from stringsh.dialects.operator.confirm import policy_confirmer, tty_asker

    return policy_confirmer(workspace.policy, tty_asker())


def caps_for(workspace: Workspace) -> Caps:
    """The block and payload caps from the workspace's policy (its write and patch size limits)."""
    limits = workspace.policy.limits
    return Caps(limits.max_write_bytes, limits.max_patch_bytes)


def answer(workspace: Workspace, item: Command | Invalid, confirm: Confirmer, *, topic: str) -> Result:
    """One block's result: an invalid block's refusal, or what its action did. Never raises for a block."""
    if isinstance(item, Invalid):  # a refused block is a request too: recorded by its code
        with workspace.request(DIALECT, "operator", topic=topic) as ctx:
            ctx.fail(item.code)
            return invalid_result(item)
    from stringsh.dialects.operator.actions import run_action

    try:
        return run_action(workspace, item, confirm, topic=topic)  # journalled and audited as `operator`
    except StringError as exc:
        return Result(item.id, False, f"{item.action} failed: ERROR({exc.code}): {exc.text.splitlines()[0]}")
    except Exception as exc:  # an action's bug must not end the loop: the agent still gets an answer
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return Result(item.id, False, f"{item.action} failed: internal error {type(exc).__name__}: {reason}")


def answer_request(workspace: Workspace, text: str, confirm: Confirmer | None, *, topic: str) -> tuple[str, bool]:
    """A `BlockAnswerer` (protocol/operator_model.py): a block sent as a request to a String Commands front end,
    answered in that front end's topic, so `/undo` and `/changes` there see what it changed; `confirm` is the
    topic's own confirmer (the REPL's prompt, the plain loop's policy rule), None for the controlling terminal."""
    return answer_text(workspace, text, confirm or terminal_confirmer(workspace), topic=topic)


def answer_text(workspace: Workspace, text: str, confirm: Confirmer, *, topic: str) -> tuple[str, bool]:
    """Every block in `text` (a whole OPERATOR_CMD block received as a request) answered: the OPERATOR_RESULT
    blocks and whether all were ok. Text with no block at all gets one refusal, so a request always has a reply."""
    scanner = BlockScanner(caps_for(workspace))
    items: list[Command | Invalid] = []
    for line in text.split("\n"):
        items.extend(scanner.feed(line))
    items.extend(scanner.finish())
    if not items:
        items.append(Invalid(None, "ERR_NO_BLOCK", "Invalid OPERATOR_CMD (ERR_NO_BLOCK): no OPERATOR_CMD block."))
    results = [answer(workspace, item, confirm, topic=topic) for item in items]
    text = "".join(format_result(result, workspace.redact_lines) for result in results)
    return text.rstrip("\n"), all(r.ok for r in results)
