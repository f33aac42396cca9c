"""Coded errors shared by the engine and the commands.

Neither protocol nor UI: the engine raises these, the formatter turns them into `ERROR(CODE): message`.
"""

from __future__ import annotations

from stringsh.hints import command_word

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


#: The next step for a code whose raiser gave none: no refusal is a dead end.
DEFAULT_HINTS: dict[str, str] = {
    "TOO_LARGE": "Ask for less at a time: a narrower request, or a window of a file (/open PATH --from N --to M).",
}


class StringError(Exception):
    """An expected failure with a stable code; `hint` is an extra line telling the user what to do next."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint if hint is not None else DEFAULT_HINTS.get(code)

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
        f"Read it in windows: /open {command_word(rel)} --from N, or !head, !tail or !grep it; the policy's [limits] "
        "max_read_bytes raises the limit.",
    )


def too_large_to_write(path: str, size: int, limit: int) -> StringError:
    """A write past the write limit: say how to get the content in anyway."""
    return StringError(
        "TOO_LARGE",
        f"Write of {size} bytes exceeds the policy's limit of {limit}: {path}",
        "Write it in parts: /write the first part, then /append the rest; the policy's [limits] max_write_bytes "
        "raises the limit.",
    )


def is_a_folder(path: str, hint: str | None = None) -> StringError:
    """The one refusal for a folder named where a file is needed (read, write, edit, append, delete without -r):
    one code and one wording everywhere; `hint` replaces the default next step where the caller knows a better
    one."""
    return StringError("INVALID_TARGET", f"Is a directory: {path}",
                       hint if hint is not None else f"Use /ls {command_word(path)}")


#: The next step after `File not found` where no closer name is known.
NOT_FOUND_HINT = "/ls shows what is there."

#: The next step when a path is outside the policy's `[changes].allow_globs`.
ALLOW_LIST_HINT = "Only paths matching the policy's [changes] allow_globs may change; change another path."

#: The next step when the operating system refuses a file stringsh may use.
PERMISSION_HINT = "The file system does not let stringsh open it; /stat shows its mode."

#: The next step when a change names the workspace's own policy file.
POLICY_FILE_HINT = "A session never changes its own policy; edit the policy file outside stringsh."
