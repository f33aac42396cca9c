"""Coded errors shared by the engine and the commands.

Neither protocol nor UI: the engine raises these, the formatter turns them into `ERROR(CODE): message`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from stringsh.hints import command_word, not_utf8_words

#: Every stable code and what it means; `/help errors` is generated from this table.
ERROR_CODES: dict[str, str] = {
    "NOT_FOUND": "The file, menu, action or record does not exist.",
    "BLOCK_NOT_FOUND": "No block with that id in the document.",
    "AMBIGUOUS_BLOCK": "Several headings share that id; the reply names each by its distinct id.",
    "AMBIGUOUS_REFERENCE": "A rename met sites that syntax cannot tie to the definition or away from it; the reply "
                           "lists them, and nothing was written.",
    "NAME_TAKEN": "The new name is already defined where a renamed site would see it; nothing was written.",
    "INVALID_TARGET": "The command cannot act on that target (nothing open, not a directory, wrong topic).",
    "INVALID_PATH": "The path is malformed or escapes the workspace root.",
    "INVALID_PAYLOAD": "The request, its arguments or its body are malformed.",
    "FILE_NOT_ALLOWED": "The path is outside every workspace root.",
    "COMMAND_UNSUPPORTED": "Unknown command, or input that is not a command.",
    "CONFLICT": "The file changed since it was read, or the write would overwrite unseen content.",
    "AUTH_REQUIRED": "The remote endpoint asked for credentials.",
    "INTERNAL_ERROR": "An unexpected failure inside stringsh; the session goes on.",
    "LOAD_ERROR": "A document or remote page could not be loaded.",
    "CIRCULAR_REFERENCE": "An include or reference points back at itself.",
    "EXIT_<n>": "A shell command or CLI action exited with status n.",
    "QUEUE_FULL": "Too many requests are waiting for this topic.",
    "QUEUE_TIMEOUT": "A request waited too long for its topic.",
    "BUSY": "The topic is running another command, or another process has held the workspace lock too long.",
    "NOT_PERMITTED": "The policy or a read-only root forbids the operation.",
    "SECRET_DENIED": "The path matches the secret deny list.",
    "TOO_LARGE": "Input or output exceeds a policy limit.",
    "BINARY_FILE": "The file is binary; only its metadata can be shown.",
    "ENCODING": "The bytes are not valid in the file's encoding; nothing was written.",
    "PATCH_FAILED": "A patch did not apply; nothing was written.",
    "BUDGET_EXCEEDED": "A change set exceeds the policy's file or line budget.",
    "TIMEOUT": "The operation ran past its time limit; partial output is returned.",
    "NO_SPACE": "The file system (the workspace's, or the one holding stringsh's state) is full; nothing was written.",
    "READ_ONLY": "The file system or stringsh's state folder cannot be written; reads still work, changes wait.",
    "IO_ERROR": "The disk reported an input/output error; nothing was written. Check the disk, then retry.",
}



#: The verbs a next step can name, each with the fields it reads (docs/front-ends.md, "Hints in each dialect").
VERBS = frozenset({
    "read",         # a file, whole (`path`), its lines `start`-`end`, or a window (`window`: "from" or "range")
    "list",         # a folder (`path`; "" for the workspace)
    "stat",         # a file's metadata (`path`, may be "")
    "view",         # a file's or part's current numbered text (`target`: path, path#id or path:Ln-Lm)
    "edit",         # the part's edit redone on its text now (`target`; `where`: "--after" adds beside it)
    "beside",       # a new definition added after or before the one named (`target`)
    "force",        # the same write again, its checks overridden (`target`, `where`: "--after X" or "")
    "undo",         # this session's last change taken back (`skip`: pass over it instead)
    "changes",      # the change journal
    "revert",       # one change set put back (`change`)
    "write_parts",  # a big content written as a first part, then the rest appended
    "shell",        # a shell command line (`command`, its values already quoted for bash)
    "programs",     # shell programs to use on the file (`command`: their names, space-separated)
})


class Step(NamedTuple):
    """One next step a refusal suggests, as data: a verb of VERBS and its argument values. String Commands word it
    as a command line (`string_step`, today's hint text exactly); every other dialect as its own tool or action and
    its JSON arguments, or in words where it has none (their `hinting.py`). A NamedTuple, immutable, rather than a
    frozen dataclass: every start imports this module, and a read never loads `dataclasses` (tests/workspace)."""

    verb: str
    path: str | None = None
    target: str = ""
    window: str = ""
    where: str = ""
    command: str = ""
    change: int | None = None
    skip: bool = False
    start: int | None = None
    end: int | None = None


class Hint(NamedTuple):
    """A hint as data: text and steps in turn, the text the same in every dialect, each step worded by the dialect
    that shows the hint (`render`)."""

    parts: tuple[str | Step, ...]

    def render(self, word: Callable[[Step], str]) -> str:
        return "".join(part if isinstance(part, str) else word(part) for part in self.parts)

    def steps(self) -> tuple[Step, ...]:
        return tuple(part for part in self.parts if isinstance(part, Step))

    def __add__(self, other: object) -> Hint:
        if not isinstance(other, str | Hint):
            return NotImplemented
        return Hint(self.parts + (other.parts if isinstance(other, Hint) else (other,)))

    def __radd__(self, other: object) -> Hint:
        if not isinstance(other, str):
            return NotImplemented
        return Hint((other, *self.parts))

    def replace(self, old: str, new: str) -> Hint:
        """The hint with `old` replaced in its text (never in a step's values)."""
        return Hint(tuple(part.replace(old, new) if isinstance(part, str) else part for part in self.parts))


def hint(*parts: str | Step) -> Hint:
    """A hint from its text and steps in turn: `hint("Read it: ", Step("read", path=rel), ".")`."""
    return Hint(parts)


def string_step(step: Step) -> str:
    """A step as String Commands word it: the command line a person types (values quoted by `command_word`)."""
    verb = step.verb
    path = [] if step.path == "" else ["PATH" if step.path is None else command_word(step.path)]
    if verb == "read":
        lines = "" if step.start is None else f":L{step.start}" if step.end in (None, step.start) else \
            f":L{step.start}-L{step.end}"
        window = {"from": ["--from N"], "range": ["--from N --to M"]}.get(step.window, [])
        return " ".join(["/open", *[word + lines for word in path], *window])
    if verb in ("list", "stat"):
        return " ".join(["/ls" if verb == "list" else "/stat", *path])
    if verb in ("view", "edit", "force"):
        words = ["/edit", *(["--force"] if verb == "force" else []), command_word(step.target)]
        return " ".join([*words, *([step.where] if step.where else [])])
    if verb == "beside":
        return "--after or --before"
    if verb == "undo":
        return "/undo --skip" if step.skip else "/undo"
    if verb == "changes":
        return "/changes"
    if verb == "revert":
        return f"/revert {step.change}"
    if verb == "write_parts":
        return "/write the first part, then /append the rest"
    if verb == "programs":
        names = [f"!{name}" for name in step.command.split()]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    if verb == "shell":
        return f"!{step.command}"
    raise ValueError(f"unknown hint verb {verb!r}")


#: The next step for a code whose raiser gave none: no refusal is a dead end.
DEFAULT_HINTS: dict[str, str | Hint] = {
    "TOO_LARGE": hint("Ask for less at a time: a narrower request, or a window of a file (",
                      Step("read", window="range"), ")."),
}


class StringError(Exception):
    """An expected failure with a stable code; `hint` is an extra line telling the user what to do next: text, or
    a `Hint` (then `hint` is its String Commands wording and `steps` the hint itself, for the other dialects)."""

    def __init__(self, code: str, message: str, hint: str | Hint | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        given = hint if hint is not None else DEFAULT_HINTS.get(code)
        #: The hint as data when it was given as data; None for a hint that is text only.
        self.steps: Hint | None = given if isinstance(given, Hint) else None
        self.hint: str | None = given.render(string_step) if isinstance(given, Hint) else given

    @property
    def advice(self) -> str | Hint | None:
        """The hint as it was given (data when it is data): what a refusal re-raised in other words passes on."""
        return self.steps if self.steps is not None else self.hint

    def worded(self, word: Callable[[Step], str]) -> str | None:
        """The hint with its steps worded by `word` (a dialect's); a hint that is text only as it is."""
        return self.steps.render(word) if self.steps is not None else self.hint

    @property
    def text(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"

    def __repr__(self) -> str:
        return f"StringError({self.code!r}, {self.message!r})"


def error_reason(exc: BaseException) -> str:
    """The one-line reason a failure is shown with inside other output: a coded error's message, else the
    exception's own text, else its type's name."""
    if isinstance(exc, StringError):
        return exc.message
    return str(exc) or type(exc).__name__


def too_large_to_read(rel: str, size: int, limit: int) -> StringError:
    """A file past the read limit: say how to read it anyway (a window, or the shell's tools)."""
    return StringError(
        "TOO_LARGE",
        f"File is larger than the read limit ({size} > {limit} bytes): {rel}",
        hint("Read it in windows: ", Step("read", path=rel, window="from"), ", or ",
             Step("programs", path=rel, command="head tail grep"),
             " it; the policy's [limits] max_read_bytes raises the limit."),
    )


def too_large_to_write(path: str, size: int, limit: int) -> StringError:
    """A write past the write limit: say how to get the content in anyway."""
    return StringError(
        "TOO_LARGE",
        f"Write of {size} bytes exceeds the policy's limit of {limit}: {path}",
        hint("Write it in parts: ", Step("write_parts", path=path),
             "; the policy's [limits] max_write_bytes raises the limit."),
    )


def is_a_folder(path: str, advice: str | Hint | None = None) -> StringError:
    """The one refusal for a folder named where a file is needed (read, write, edit, append, delete without -r):
    one code and one wording everywhere; `advice` replaces the default next step where the caller knows a better
    one."""
    return StringError("INVALID_TARGET", f"Is a directory: {path}",
                       advice if advice is not None else hint("Use ", Step("list", path=path)))


def not_a_regular_file(path: str) -> StringError:
    """The one refusal for a FIFO, socket or device named where a file is read or written (`path` as shown)."""
    return StringError("INVALID_TARGET", f"Not a regular file: {path}")


#: The next step after `File not found` where no closer name is known.
NOT_FOUND_HINT = hint(Step("list", path=""), " shows what is there.")

#: The next step when a path is outside the policy's `[changes].allow_globs`.
ALLOW_LIST_HINT = "Only paths matching the policy's [changes] allow_globs may change; change another path."

#: The next step when the operating system refuses a file stringsh may use.
PERMISSION_HINT = hint("The file system does not let stringsh open it; ", Step("stat", path=""), " shows its mode.")

#: The next step when a change names the workspace's own policy file.
POLICY_FILE_HINT = "A session never changes its own policy; edit the policy file outside stringsh."


def recovery(rel: str) -> Hint:
    """The next step after a line range that is past a file's end: the file's current line numbers."""
    return hint("Recovery: run ", Step("view", target=rel), " for current line numbers.")


def not_utf8(name: str) -> Hint:
    """The hint of a refused name that is not UTF-8: rename it in the shell (hints.not_utf8_words)."""
    text, command = not_utf8_words(name)
    return hint(text, Step("shell", command=command))
