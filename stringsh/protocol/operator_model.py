"""The contract between the OPERATOR_CMD block parser (`operator_blocks.py`) and the actions (`actions/`): what a valid
command looks like, what every action accepts, what a result carries, and how an action asks for confirmation.
The parser checks a block against `ACTIONS` (keys, path rules, base64 payloads) before any action sees it, so an
action only ever gets a well-formed `Command`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from stringsh.workspace import Workspace


@dataclass(frozen=True)
class ActionShape:
    """What one action accepts: whether `path` is required (every `fs.*`) or forbidden (every other action), the
    optional keys beyond `version`, `id`, `action` and `path`, and whether it changes files (asks to confirm)."""

    needs_path: bool
    keys: frozenset[str] = frozenset()
    mutates: bool = False


#: Every action stringsh implements (the protocol's version 3 plus its newer fs.stat, fs.copy, fs.move and its alias
#: fs.rename, and stringsh's symbol actions fs.symbols, fs.findDefinition, fs.readSymbol, fs.editSymbol,
#: fs.renameSymbol, and fs.map). Keys ending in `_b64` are base64 UTF-8 payloads: the parser decodes them strictly
#: into `Command.payloads`. The original host's aliases are accepted (`line`/`from` for `start`, `count`/`len` for
#: `lines`, `q` for `query`); `overwrite` (true|false) is stringsh's: upstream's copy and move replace a destination
#: silently, here only when asked (the confirmer shows what is replaced).
ACTIONS: dict[str, ActionShape] = {
    "operator.getInterfaceSpec": ActionShape(needs_path=False),
    "fs.list": ActionShape(needs_path=True),
    "fs.read": ActionShape(needs_path=True),
    "fs.readSlice": ActionShape(needs_path=True, keys=frozenset({"start", "lines", "line", "from", "count", "len"})),
    "fs.search": ActionShape(needs_path=True, keys=frozenset({"query", "q"})),
    "fs.stat": ActionShape(needs_path=True),
    "fs.symbols": ActionShape(needs_path=True, keys=frozenset({"query", "q", "refs"})),
    "fs.readSymbol": ActionShape(needs_path=True, keys=frozenset({"symbol", "plain"})),
    "fs.findDefinition": ActionShape(needs_path=True, keys=frozenset({"line", "column"})),
    "fs.map": ActionShape(needs_path=True, keys=frozenset({"budget"})),  # the repository map; path: its focus
    "fs.write": ActionShape(needs_path=True, keys=frozenset({"content", "content_b64"}), mutates=True),
    "fs.patch": ActionShape(needs_path=True, keys=frozenset({"patch_b64"}), mutates=True),
    "fs.applyEdits": ActionShape(needs_path=True, keys=frozenset({"edits_b64"}), mutates=True),
    "fs.editSymbol": ActionShape(needs_path=True, keys=frozenset({"symbol", "body_b64", "position", "force"}),
                                 mutates=True),
    "fs.renameSymbol": ActionShape(needs_path=True, keys=frozenset({"symbol", "new_name", "dry_run"}), mutates=True),
    "fs.delete": ActionShape(needs_path=True, mutates=True),
    "fs.copy": ActionShape(needs_path=True, keys=frozenset({"path_to", "overwrite"}), mutates=True),
    "fs.move": ActionShape(needs_path=True, keys=frozenset({"path_to", "overwrite"}), mutates=True),
    "fs.rename": ActionShape(needs_path=True, keys=frozenset({"path_to", "overwrite"}), mutates=True),
}


@dataclass(frozen=True)
class Command:
    """A block that passed every HARD RULE. `fields` holds every `key: value` line but `version`, `id` and
    `action`, values as written (`path` included when the action takes one); `payloads` holds each `*_b64` field
    decoded (strict base64, strict UTF-8, within the policy's size cap). `line` is the 1-based input line of the
    block's OPERATOR_CMD marker, for messages."""

    id: str
    action: str
    fields: dict[str, str] = field(default_factory=dict)
    payloads: dict[str, str] = field(default_factory=dict)
    line: int = 1

    @property
    def path(self) -> str | None:
        return self.fields.get("path")


@dataclass(frozen=True)
class Invalid:
    """A block the parser could identify but that breaks a rule: answered `ok: false` with `summary` (one line,
    e.g. `Invalid OPERATOR_CMD (ERR_UNKNOWN_KEY): unknown key "foo" for fs.read`), echoing `id` when it had one."""

    id: str | None
    code: str
    summary: str
    line: int = 1


@dataclass(frozen=True)
class Result:
    """One OPERATOR_RESULT: `details` is plain text the formatter encodes as `details_b64` (None: no such line)."""

    id: str | None
    ok: bool
    summary: str
    details: str | None = None
    #: The change set a mutating action made (a `change_id:` line; None: it changed nothing).
    change_id: int | None = None


@dataclass(frozen=True)
class ConfirmRequest:
    """What a mutating action is about to do, shown to whoever confirms it: `summary` is one line (`write
    notes.md (12 lines)`), `diff` a unified diff of the change (empty when there is none to show, e.g. a folder)."""

    action: str
    path: str
    summary: str
    diff: str = ""


#: Asks whether a mutation may go ahead: None means yes; a string is the `ok: false` summary saying why not
#: (declined by the user, denied by the policy, no terminal to ask on).
Confirmer = Callable[[ConfirmRequest], "str | None"]


class BlockAnswerer(Protocol):
    """Answers an OPERATOR_CMD request sent to a String Commands front end (the REPL, the plain loop, the daemon,
    `-c`): its whole text in, the OPERATOR_RESULT blocks and whether every block was ok out. The operator dialect
    is one (`dialects/operator/serve.answer_request`); the entry point (cli.py) hands it to the dispatcher, so no
    layer below the front ends imports the dialect. `confirm` None: the policy's rule on the controlling terminal."""

    def __call__(self, workspace: Workspace, text: str, confirm: Confirmer | None, *,
                 topic: str) -> tuple[str, bool]: ...
