"""Key bindings: small and filter-gated, each saying why it exists. Everything else is prompt_toolkit's default
(Ctrl-C cancels the input, Ctrl-D on an empty line leaves, Ctrl-R searches history, Tab completes).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, completion_is_selected, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from stringsh.protocol.request import is_complete


@Condition
def _menu_open() -> bool:
    return get_app().current_buffer.complete_state is not None


def build_key_bindings(shell_lines: Callable[[], bool] = lambda: False) -> KeyBindings:
    """`shell_lines`: whether lines go to a shell now (bash mode), where any line may open a `<<EOF` heredoc."""
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER)

    @bindings.add("enter", filter=editing & completion_is_selected)
    def _accept_completion(event: KeyPressEvent) -> None:
        """Enter on a highlighted completion keeps it and closes the menu instead of sending a half-typed line."""
        event.current_buffer.complete_state = None

    @bindings.add("enter", filter=editing & ~completion_is_selected)
    def _submit_when_complete(event: KeyPressEvent) -> None:
        """Send the request only when it is whole: a `<<EOF` header waits for its terminator line."""
        buffer = event.current_buffer
        if is_complete(buffer.text, shell_line=shell_lines()):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("escape", "enter", filter=editing)
    def _newline(event: KeyPressEvent) -> None:
        """Alt-Enter / Esc-Enter starts the body: everything after the first line is the request's body."""
        event.current_buffer.complete_state = None
        event.current_buffer.insert_text("\n")

    @bindings.add("c-space", filter=editing & ~_menu_open)
    def _force_completion(event: KeyPressEvent) -> None:
        """Ctrl-Space opens the menu where typing alone would not (an empty argument)."""
        event.current_buffer.start_completion(select_first=False)

    return bindings
