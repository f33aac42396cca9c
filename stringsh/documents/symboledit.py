"""Every dialect's symbol edit: the checked new text (the symbol resolved, then symbolsplice.py's parse checks) and the
engine's part edit (`Workspace.edit_part`) held against the symbol's own text, not the whole file's hash: under
the workspace lock the symbol is found again by its id in the file as it is, the body is checked there (a mask
written back over a secret, an empty body unforced) and the edit applies whatever changed elsewhere in the file
(CONFLICT, showing its text now, when the symbol changed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.documents.symbolsplice import Spliced, checked_insert, checked_replace
from stringsh.errors import Step
from stringsh.render.code.views import resolve_symbol
from stringsh.workspace import Located, PartEditRequest, PartText, refuse_empty, refuse_numbered, split_lines

if TYPE_CHECKING:
    from stringsh.render.code.cache import SymbolCache
    from stringsh.render.code.index import Symbol, SymbolIndex
    from stringsh.workspace import TextFile, Workspace


BEFORE = "--before"
AFTER = "--after"


def plan_edit(workspace: Workspace, path: str, text: str, index: SymbolIndex, block_id: str, body: str,
              force: bool, where: str | None) -> Spliced:
    """The checked new text of a symbol edit (every dialect's): the symbol resolved, then the parse checks of
    symbolsplice.py. The engine's refusal of an empty body comes first (the parse checks would word it
    otherwise); a mask written back over a secret is the engine's to refuse, under the lock (workspace/guards.py)."""
    symbol = resolve_symbol(index, path, block_id)
    label = f"{path}#{block_id}"
    refuse_empty(body, label, force)
    refuse_numbered(body, label)  # before the parse checks, whose hint is --force
    force_hint = Step("force", target=label, where=where or "")
    if where is None:
        return checked_replace(text, index, symbol, body, label, force, force_hint)
    return checked_insert(text, index, symbol, body, where == AFTER, label, force, force_hint)


class SymbolEdit(NamedTuple):
    """What a symbol edit asks: the symbol, the body, and how it is set (replace, BEFORE or AFTER)."""

    block_id: str
    body: str
    force: bool
    where: str | None


class Written(NamedTuple):
    spliced: Spliced  # the text written, with its index
    change_id: int
    sha256: str  # of the bytes written
    text_before: str  # the file's text the splice was made on


def source(text: str, symbol: Symbol) -> str:
    """The symbol's own text (its byte span, decorators and comments included): what an edit is held against."""
    return text.encode("utf-8", "surrogatepass")[symbol.start_byte : symbol.end_byte].decode("utf-8", "surrogatepass")


def shown_lines(text: str, symbol: Symbol) -> str:
    """The symbol's lines, as a CONFLICT shows them."""
    return "\n".join(line.rstrip("\r") for line in split_lines(text)[symbol.start : symbol.end])


def write_symbol(workspace: Workspace, path: str, read: tuple[str, str], planned: Spliced, expected: str,
                 edit: SymbolEdit, cache: SymbolCache, topic: str) -> Written:
    """One journaled write of a symbol edit, the engine's part edit (`Workspace.edit_part`). `read` is (sha256,
    text) of the file as the edit was planned on (`planned`); `expected` is the symbol's text as the caller read
    it. Under the lock the symbol is found again by id in the file now and must hold `expected` (else a CONFLICT
    showing it now); the planned text is written when the file still has the bytes read, otherwise the edit is
    planned again on the text now, so others' edits elsewhere in the file stay."""
    label = f"{path}#{edit.block_id}"
    done: list[tuple[Spliced, str]] = []

    def locate(current: TextFile) -> Located | None:
        plain = current.encoding == "utf-8" and not current.bom  # the index is keyed by the bytes it was built from
        index = cache.symbols(current.text, planned.index.language, current.sha256 if plain else "")
        symbol = index.resolve(edit.block_id)
        if symbol is None:
            return None

        def splice(body: str) -> str:
            again = planned if current.sha256 == read[0] else plan_edit(
                workspace, current.rel, current.text, index, edit.block_id, body, edit.force, edit.where)
            done.append((again, current.text))
            return again.text

        return Located(source(current.text, symbol), shown_lines(current.text, symbol), splice)

    result = workspace.edit_part(PartEditRequest(path, label, locate, edit.body, PartText(expected), topic,
                                                 "block", edit.force))
    spliced, before = done[-1]
    return Written(spliced, result.change_id, result.sha256, before)
