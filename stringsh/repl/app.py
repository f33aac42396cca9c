"""The people's REPL: prompt_toolkit input, the shared dispatcher, rich output; a chat-style transcript.

It only moves text: each request goes through `Dispatcher.execute` like every other front end, and the reply text
is styled for the terminal. Commands run on one worker thread, so the prompt thread can catch Ctrl-C and pass it
to a running shell command, and the engine always sees the same thread.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import ThreadedCompleter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from stringsh.errors import StringError
from stringsh.protocol.request import REQUEST_ID
from stringsh.protocol.response import Reply
from stringsh.repl.completer import StringCompleter
from stringsh.repl.confirming import Confirmations
from stringsh.repl.history import open_history
from stringsh.repl.keys import build_key_bindings
from stringsh.repl.running import QUIET, Running
from stringsh.repl.sources import Sources
from stringsh.repl.toolbar import ToolbarState, is_stale, toolbar_fragments
from stringsh.workspace import LISTENER

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
#: Seconds between tries to pass on a Ctrl-C that came before the request reached its shell (as MCP's cancel).
RETRY = 0.05

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
        "toolbar.running": "bold bg:ansiyellow #000000",
        "note": "ansibrightblack",
        "note.warn": "ansiyellow",
    }
)


def workspace_state(dispatcher: Dispatcher) -> Path | None:
    """The workspace's folder in the user's state folder (its history lives there); None when it cannot be made."""
    try:
        return dispatcher.workspace.state.dir
    except (StringError, OSError):
        return None


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


class Repl:
    """One interactive session on one topic."""

    def __init__(self, dispatcher: Dispatcher, *, topic: str = TOPIC) -> None:
        self.dispatcher = dispatcher
        self.topic = topic
        self.state = ToolbarState(topic=topic)
        self._console: Console | None = None
        #: What was typed while the last request ran: the next prompt starts with it.
        self.typeahead = ""
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stringsh-command")
        #: OPERATOR_CMD changes typed or pasted here are confirmed by the person at this prompt.
        self.confirmations = Confirmations()
        dispatcher.session(topic).operator_confirm = self.confirmations.confirmer(lambda: dispatcher.workspace.policy)
        self.sources = Sources(dispatcher, topic)
        self.prompt = PromptSession(
            history=open_history(workspace_state(dispatcher)),
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

    def toolbar(self, used: int = 0) -> list[tuple[str, str]]:
        """The bottom toolbar, laid out for the columns left after `used` (the live view's running mark)."""
        from prompt_toolkit.application import get_app

        width = get_app().output.get_size().columns - used
        return toolbar_fragments(self.state, self.session, self.dispatcher.root, self.dispatcher.workspace, width)

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
        # raw from the prompt until the request is done: prompt_toolkit puts the terminal back as it found it when
        # Enter ends the prompt, so a Ctrl-C typed right after Enter stays a key for the request (never a SIGINT
        # in the moment before the request is under way, which would drop the turn and leave its command running)
        with self.prompt.input.raw_mode():
            try:
                text = self.prompt.prompt(self.message, default=self.typeahead)
            except KeyboardInterrupt:
                return True  # Ctrl-C at the prompt cancels the input
            except EOFError:
                return False
            finally:
                self.typeahead = ""
            if not text.strip():
                return True
            reply = self.execute(text)
        from stringsh.render.replies import print_reply
        from stringsh.repl.pager import print_paged

        links = self.sources.links()
        try:
            def render(console: Console, text: str) -> None:
                print_reply(console, text, links, echo=False)  # the request is on screen already

            if not print_paged(self.console, reply.text, render):  # a reply taller than the screen is paged
                render(self.console, reply.text)
        except KeyboardInterrupt:
            self.console.print("\n^C (rest of the reply not shown)", style="dim")
        return True

    def _run(self, text: str, live: Running, shell_line: bool) -> Reply:
        fresh = not is_stale(self.session, self.dispatcher.workspace)
        token = LISTENER.set(live.add)  # shell output streams to the live view as it arrives
        try:
            reply = self.dispatcher.execute(text, self.topic)
        finally:
            LISTENER.reset(token)
        if fresh and not shell_line and is_stale(self.session, self.dispatcher.workspace):
            # stringsh itself changed the open document (/append, /edit, /undo, …): the view follows, as it would
            # for a person who just made the change; a change from bash or another program keeps the stale mark
            self.dispatcher.execute("/refresh", self.topic)
            self.state.forget_stale()
        self.sources.invalidate()
        self.state.refresh(self.dispatcher, self.session)
        self.state.note_reply(reply.text)
        return reply

    def execute(self, text: str) -> Reply:
        """Run one request on the worker while the live view shows its output; Ctrl-C interrupts a shell command."""
        shell_line = self.goes_to_shell(text)
        done = threading.Event()
        live = Running(
            self.toolbar, lambda: self.interrupt_note(shell_line, done), style=STYLE,
            color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
        )
        wake = self.confirmations.wake  # set when the request is done or asks the person to confirm a change
        wake.clear()
        future: Future[Reply] = self.worker.submit(self._run, text, live, shell_line)
        future.add_done_callback(lambda _f: (done.set(), wake.set()))
        # raw (as from the prompt on, `turn`): a Ctrl-C typed before the live view starts waits for it as a key, and
        # the terminal never echoes its own `^C` next to our note
        with self.prompt.input.raw_mode():
            while True:
                try:
                    if not wake.wait(QUIET):
                        live.show_until(wake)
                    wake.wait()
                    wake.clear()
                    self.confirmations.answer_pending()  # the worker waits for it: never done while one waits
                    if done.is_set():
                        break
                except KeyboardInterrupt:  # a SIGINT sent some other way (kill -INT)
                    live.notes.append(self.interrupt_note(shell_line, done))
        self.typeahead = live.typeahead
        for style, note in live.notes:
            print_formatted_text(FormattedText([(style, note)]), style=STYLE)
        return future.result()

    def goes_to_shell(self, text: str) -> bool:
        """Whether the request runs in the topic's shell: a Ctrl-C typed into an idle shell would print there."""
        header = REQUEST_ID.sub("", text.lstrip(), count=1)
        return header.startswith("!") or (self.bash_mode() and not header.startswith("//"))

    def interrupt_note(self, shell_line: bool, done: threading.Event) -> tuple[str, str]:
        """Pass Ctrl-C to the request's shell command; the note saying so (one per Ctrl-C). The toolbar says
        `running` from Enter on, so a Ctrl-C is never refused while the request is under way: the shell command
        gets it whenever it starts (the shell holds one that comes before bash runs the line)."""
        if not shell_line:
            return ("class:note.warn", "^C: only shell commands can be interrupted; this one keeps running")
        if not self._interrupt_shell():
            threading.Thread(target=self._interrupt_until, args=(done,), name="stringsh-interrupt", daemon=True).start()
        return ("class:note", "^C interrupting…")

    def _interrupt_shell(self) -> bool:
        shell = self.session.bash
        return shell is not None and shell.interrupt()

    def _interrupt_until(self, done: threading.Event) -> None:
        """Tried until the shell takes it or the request is over: before its command runs, the request may still
        be making the topic's shell or checking the command (the shell then says it has no command yet)."""
        while not done.wait(RETRY):
            if self._interrupt_shell():
                return


def run_repl(dispatcher: Dispatcher) -> int:
    """Entry point used by `stringsh` on a terminal."""
    debug_log = os.environ.get("STRINGSH_REPL_LOG")
    if debug_log:  # the screen belongs to the user: problems inside completion go to a file on request
        import logging

        logging.basicConfig(filename=debug_log, level=logging.DEBUG)
    from stringsh.documents.indexwish import in_background

    in_background(dispatcher.workspace.root)  # the symbol index, from the first /symbols on
    return Repl(dispatcher).run()
