"""Key bindings: small and filter-gated, each saying why it exists. Everything else is prompt_toolkit's default
(Ctrl-C cancels the input, Ctrl-D on an empty line leaves, Ctrl-R searches history, Tab completes).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completion, get_common_complete_suffix
from prompt_toolkit.document import Document
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, completion_is_selected, has_focus, is_searching
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.search import accept_search

from stringsh.protocol.request import REQUEST_ID, is_complete


@Condition
def _menu_open() -> bool:
    return get_app().current_buffer.complete_state is not None


def take_completion(buffer: Buffer, completion: Completion) -> None:
    """Insert a unique completion and close the menu; a command name gets its space, so typing goes on with the
    argument (`/open README.md`, never `/openREADME.md`). Paths get none: `#block` or `/more` may follow."""
    buffer.apply_completion(completion)
    header = REQUEST_ID.sub("", buffer.document.text_before_cursor.lstrip(), count=1)
    if header.startswith("/") and not any(char.isspace() for char in header) and not buffer.document.text_after_cursor:
        buffer.insert_text(" ")


def does_nothing(document: Document, completion: Completion) -> bool:
    """A candidate that is already typed out in full (`/open README.md` offering `README.md`)."""
    before = document.text_before_cursor
    return before[len(before) + completion.start_position :] == completion.text


def tab(buffer: Buffer) -> None:
    """Tab as in a shell: one candidate is taken (a folder then lists its entries, so Tab goes on into it), a
    common prefix is filled in, otherwise Tab cycles through the menu.

    The candidates are asked for here, on the spot: the menu shown may still be the one for the text before the
    last key (completion runs on a thread), and Tab must act on what is typed now."""
    state = buffer.complete_state
    if state is not None and state.complete_index is not None:
        buffer.complete_next()
        return
    document = buffer.document
    completer = buffer.completer
    found = list(completer.get_completions(document, CompleteEvent(completion_requested=True))) if completer else []
    found = [c for c in found if not does_nothing(document, c)]
    if len(found) == 1:
        take_completion(buffer, found[0])
        return
    common = get_common_complete_suffix(document, found) if found else ""
    if common:
        buffer.insert_text(common)
    elif state is not None and state.completions:
        buffer.complete_next()
    elif found:
        buffer.start_completion(select_first=True)


def ends_request(buffer: Buffer, shell_line: bool) -> bool:
    """Enter sends a one-line request from anywhere; in a request of several lines (a recalled heredoc) only at
    its end, once complete, so an edit in the middle of a body gets its newline instead of going out half-typed."""
    document = buffer.document
    if "\n" in document.text and document.text_after_cursor.strip():
        return False
    return is_complete(document.text, shell_line=shell_line)


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
        if ends_request(buffer, shell_lines()):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("enter", filter=is_searching)
    def _take_found(event: KeyPressEvent) -> None:
        """Enter on a Ctrl-R match takes it with the cursor at its end, so the next Enter sends it whole."""
        accept_search()
        buffer = event.app.current_buffer
        buffer.cursor_position = len(buffer.text)

    @bindings.add("escape", "enter", filter=editing)
    def _newline(event: KeyPressEvent) -> None:
        """Alt-Enter / Esc-Enter starts the body: everything after the first line is the request's body."""
        event.current_buffer.complete_state = None
        event.current_buffer.insert_text("\n")

    @bindings.add("tab", filter=editing)
    def _tab(event: KeyPressEvent) -> None:
        tab(event.current_buffer)

    @bindings.add("c-space", filter=editing & ~_menu_open)
    def _force_completion(event: KeyPressEvent) -> None:
        """Ctrl-Space opens the menu where typing alone would not (an empty argument)."""
        event.current_buffer.start_completion(select_first=False)

    return bindings
