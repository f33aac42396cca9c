"""The people's REPL: prompt_toolkit input, the shared dispatcher, rich output; a chat-style transcript.

It only moves text: each request goes through `Dispatcher.execute` like every other front end, and the reply text
is styled for the terminal. Commands run on one worker thread, so the prompt thread can catch Ctrl-C and pass it
to a running shell command, and the engine always sees the same thread.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from stringsh.protocol.request import REQUEST_ID
from stringsh.protocol.response import Reply
from stringsh.repl.completer import StringCompleter
from stringsh.repl.history import open_history
from stringsh.repl.keys import build_key_bindings
from stringsh.repl.sources import Sources
from stringsh.repl.toolbar import ToolbarState, toolbar_fragments

if TYPE_CHECKING:
    from rich.console import Console

    from stringsh.dispatcher import Dispatcher
    from stringsh.session import Session

TOPIC = "main"
PROMPT = "› "
BASH_PROMPT = "bash› "
BANNER = "stringsh — /help lists commands, !cmd runs bash, Tab completes, Ctrl-D leaves"
#: How often the toolbar redraws by itself, so a document changed on disk shows as stale while idle.
REFRESH_SECONDS = 2.0

STYLE = Style.from_dict(
    {
        "banner": "ansibrightblack",
        "prompt": "bold ansicyan",
        "prompt.bash": "bold ansiyellow",
        "continuation": "ansibrightblack",
        "bottom-toolbar": "noreverse bg:#303030 #d0d0d0",
        "toolbar.topic": "bold bg:ansicyan #000000",
        "toolbar.doc": "bold",
        "toolbar.stale": "bold ansiyellow",
        "toolbar.ok": "ansigreen",
        "toolbar.fail": "bold ansired",
        "toolbar.dim": "#a0a0a0",
        "toolbar.sep": "#707070",
    }
)


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


class Repl:
    """One interactive session on one topic."""

    def __init__(self, dispatcher: Dispatcher, *, topic: str = TOPIC) -> None:
        self.dispatcher = dispatcher
        self.topic = topic
        self.state = ToolbarState(topic=topic)
        self._console: Console | None = None
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stringsh-command")
        self.sources = Sources(dispatcher, topic)
        self.prompt = PromptSession(
            history=open_history(),
            auto_suggest=AutoSuggestFromHistory(),
            completer=ThreadedCompleter(StringCompleter(self.sources)),
            complete_while_typing=True,
            multiline=True,
            key_bindings=build_key_bindings(self.bash_mode),
            prompt_continuation=self.continuation,
            bottom_toolbar=self.toolbar,
            style=STYLE,
            color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
            search_ignore_case=True,
            refresh_interval=REFRESH_SECONDS,
        )

    @property
    def console(self) -> Console:
        """rich loads on the first reply, after the prompt is already usable."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(no_color=no_color(), highlight=False, soft_wrap=False)
        return self._console

    @console.setter
    def console(self, console: Console) -> None:
        self._console = console

    @property
    def session(self) -> Session:
        return self.dispatcher.session(self.topic)

    def bash_mode(self) -> bool:
        session = self.session
        return session.bash_mode or session.kind == "bash"

    def message(self) -> FormattedText:
        if self.bash_mode():
            return FormattedText([("class:prompt.bash", BASH_PROMPT)])
        return FormattedText([("class:prompt", PROMPT)])

    def continuation(self, width: int, line_number: int, wrap_count: int) -> FormattedText:
        return FormattedText([("class:continuation", "…".rjust(width - 1) + " ")])

    def toolbar(self) -> list[tuple[str, str]]:
        return toolbar_fragments(self.state, self.session, self.dispatcher.root, self.dispatcher.workspace)

    def run(self) -> int:
        print_formatted_text(FormattedText([("class:banner", BANNER)]), style=STYLE)
        self.worker.submit(self.state.refresh, self.dispatcher, self.session).result()
        try:
            while True:
                try:
                    if not self.turn():
                        break
                except KeyboardInterrupt:
                    continue  # a Ctrl-C between steps (after Enter, before the command starts) just drops the turn
        finally:
            self.worker.shutdown(wait=False, cancel_futures=True)
        return 0

    def turn(self) -> bool:
        """One request and its reply; False when the user leaves."""
        try:
            text = self.prompt.prompt(self.message)
        except KeyboardInterrupt:
            return True  # Ctrl-C at the prompt cancels the input
        except EOFError:
            return False
        if not text.strip():
            return True
        reply = self.execute(text)
        from stringsh.repl.render import print_reply

        try:
            print_reply(self.console, reply.text)
        except KeyboardInterrupt:
            self.console.print("\n^C (rest of the reply not shown)", style="dim")
        return True

    def _run(self, text: str) -> Reply:
        reply = self.dispatcher.execute(text, self.topic)
        self.sources.invalidate()
        self.state.refresh(self.dispatcher, self.session)
        self.state.note_reply(reply.text)
        return reply

    def execute(self, text: str) -> Reply:
        """Run one request on the worker; Ctrl-C meanwhile interrupts the running shell command."""
        shell_line = self.goes_to_shell(text)
        future: Future[Reply] = self.worker.submit(self._run, text)
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        while True:
            try:
                done.wait()
                return future.result()
            except KeyboardInterrupt:
                if shell_line:
                    self.interrupt()
                else:
                    self.console.print(
                        "^C: only shell commands can be interrupted; this one keeps running", style="yellow"
                    )

    def goes_to_shell(self, text: str) -> bool:
        """Whether the request runs in the topic's shell: a Ctrl-C typed into an idle shell would print there."""
        header = REQUEST_ID.sub("", text.lstrip(), count=1)
        return header.startswith("!") or (self.bash_mode() and not header.startswith("//"))

    def interrupt(self) -> None:
        shell = self.session.bash
        if shell is not None and shell.interrupt():
            self.console.print("^C interrupting…", style="dim")
        else:
            self.console.print("^C: nothing to interrupt; the command keeps running", style="yellow")


def run_repl(dispatcher: Dispatcher) -> int:
    """Entry point used by `stringsh` on a terminal."""
    debug_log = os.environ.get("STRINGSH_REPL_LOG")
    if debug_log:  # the screen belongs to the user: problems inside completion go to a file on request
        import logging

        logging.basicConfig(filename=debug_log, level=logging.DEBUG)
    return Repl(dispatcher).run()
