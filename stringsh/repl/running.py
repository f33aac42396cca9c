"""The screen while a request runs: its output so far, and the toolbar with a spinner and the elapsed time.

A small prompt_toolkit application holds the terminal (raw mode, so Ctrl-C is a key: no `^C` echo from the tty
next to our own note) until the request is done, then erases itself; the reply is printed as usual below the
request, so the transcript is the same as without the live view.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import BaseStyle

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
#: Lines of output kept for the live view (the reply has all of it).
KEEP_LINES = 500
#: How often the spinner and the elapsed time move.
TICK = 0.25
#: A request done sooner than this never shows the live view (no flicker for /ls).
QUIET = 0.05
#: Narrower than this, the running mark is the spinner and the time alone.
NARROW = 60

Fragments = list[tuple[str, str]]


class Running:
    """The live view of one request; `add` may be called from any thread."""

    def __init__(
        self,
        toolbar: Callable[[int], Fragments],
        interrupt: Callable[[], tuple[str, str]],
        *,
        style: BaseStyle,
        color_depth: ColorDepth | None,
    ) -> None:
        self.toolbar = toolbar
        self.interrupt = interrupt
        self.style = style
        self.color_depth = color_depth
        self.lines: deque[str] = deque(maxlen=KEEP_LINES)
        self.notes: list[tuple[str, str]] = []
        self.typeahead = ""
        self.started = time.monotonic()
        self._partial = ""
        self._lock = threading.Lock()
        self._app: Application[None] | None = None

    def add(self, text: str) -> None:
        """Output from the command thread: whole lines join the view, the screen redraws soon."""
        with self._lock:
            parts = (self._partial + text).split("\n")
            self._partial = parts.pop()
            self.lines.extend(parts)
        app = self._app
        if app is not None:
            app.invalidate()

    def _visible(self) -> list[tuple[str, str]]:
        """The newest lines that fit above the toolbar (the terminal keeps what scrolled away in the reply)."""
        rows = self._app.output.get_size().rows if self._app is not None else 24
        room = max(rows - 2, 1)
        with self._lock:
            lines = [("", line) for line in self.lines]
        return [*lines, *self.notes][-room:]

    def _output(self) -> StyleAndTextTuples:
        fragments: StyleAndTextTuples = []
        for index, (style, line) in enumerate(self._visible()):
            fragments.append((style, ("\n" if index else "") + line))
        return fragments

    def _height(self) -> Dimension:
        count = len(self._visible())
        return Dimension(min=0, max=count, preferred=count)

    def _status(self) -> Fragments:
        elapsed = int(time.monotonic() - self.started)
        frame = SPINNER[int((time.monotonic() - self.started) / TICK) % len(SPINNER)]
        clock = f"{elapsed // 60}:{elapsed % 60:02d}" if elapsed >= 60 else f"{elapsed}s"
        columns = self._app.output.get_size().columns if self._app is not None else NARROW
        word = "running " if columns >= NARROW else ""  # a narrow bar keeps its room for the undo depth
        mark = [("class:toolbar.running", f" {frame} {word}{clock} "), ("class:toolbar.sep", " ")]
        return [*mark, *self.toolbar(sum(len(text) for _style, text in mark))]  # the bar fits what is left

    def _bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            """One note per Ctrl-C; the terminal is raw, so nothing else prints `^C`."""
            self.notes.append(self.interrupt())
            event.app.invalidate()

        @bindings.add("<any>")
        def _keep(event: KeyPressEvent) -> None:
            """Text typed while waiting is not lost: it starts the next prompt's input."""
            if event.data.isprintable():
                self.typeahead += event.data

        return bindings

    def show_until(self, done: threading.Event) -> None:
        """Hold the terminal until `done` is set."""
        output = Window(FormattedTextControl(self._output), height=self._height, wrap_lines=False)
        bar = Window(FormattedTextControl(self._status), height=1, style="class:bottom-toolbar")
        app: Application[None] = Application(
            layout=Layout(HSplit([output, Window(), bar])),
            key_bindings=self._bindings(),
            style=self.style,
            color_depth=self.color_depth,
            full_screen=False,
            erase_when_done=True,
            refresh_interval=TICK,
        )

        async def wait() -> None:
            while not done.is_set():
                await asyncio.sleep(0.05)
            app.exit()

        self._app = app
        try:
            app.run(pre_run=lambda: app.create_background_task(wait()), handle_sigint=False)
        finally:
            self._app = None
