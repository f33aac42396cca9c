"""Confirming an OPERATOR_CMD change in the REPL: the command runs on the worker thread while the main thread holds
the terminal, so the worker's question is handed to the main thread, which leaves the live view, shows the
change's diff and asks y/N at a prompt_toolkit prompt a person answers; the worker waits for the answer."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import FormattedText

if TYPE_CHECKING:  # annotations only: the REPL starts without loading the dialect
    from stringsh.protocol.operator_model import Confirmer, ConfirmRequest
    from stringsh.workspace import Policy

QUESTION = "Apply this change? [y/N] "


class Confirmations:
    """Questions from the worker to the main thread; `wake` is set when one is waiting (or the request is done)."""

    def __init__(self) -> None:
        self.wake = threading.Event()
        self._lock = threading.Lock()
        self._pending: tuple[ConfirmRequest, Future[bool]] | None = None

    def confirmer(self, policy: Callable[[], Policy]) -> Confirmer:
        """The policy's `[operator] confirm`, with "prompt" asking the person at this REPL (the policy is read when
        a change asks, so a REPL that never runs a block never loads any of this)."""

        def confirm(request: ConfirmRequest) -> str | None:
            from stringsh.dialects.operator.confirm import policy_confirmer

            return policy_confirmer(policy(), self.ask)(request)

        return confirm

    def ask(self, request: ConfirmRequest) -> bool:
        """On the worker: post the question and wait for the person's answer."""
        answer: Future[bool] = Future()
        with self._lock:
            self._pending = (request, answer)
        self.wake.set()
        return answer.result()

    def answer_pending(self) -> bool:
        """On the main thread: ask the waiting question, if any; True when there was one."""
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is None:
            return False
        request, answer = pending
        try:
            answer.set_result(ask_person(request))
        except BaseException:
            answer.set_result(False)  # the worker must never wait forever: no answer is no
            raise
        return True


def ask_person(request: ConfirmRequest) -> bool:
    """Show what will change and ask y/N; Ctrl-C or Ctrl-D is no."""
    from prompt_toolkit.shortcuts import prompt

    from stringsh.dialects.operator.confirm import render

    print_formatted_text(FormattedText([("", render(request))]))
    try:
        return prompt(QUESTION).strip().lower() in ("y", "yes")
    except (KeyboardInterrupt, EOFError):
        return False
