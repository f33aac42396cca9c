"""`require_seen`: the stale-write guard every command that overwrites a whole existing file goes through.

A topic may only replace a file it has read (`/open` and `/edit` mark it seen), and only as it read it.
The guard itself hashes nothing: it hands the engine the hash the topic read as its `WholeFile` guard, the engine
compares it with the bytes it replaces (the one hash of the write, under the workspace lock, so no race slips
between check and write), and `Overwrite.checked` words a mismatch as this guard's CONFLICT.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from stringsh.errors import Step, StringError, hint
from stringsh.workspace import NO_GUARD, Guard, WholeFile

FORCE = "--force"
FORCE_NOTE = "Use --force only when you intend to replace the whole file."


@dataclass(frozen=True)
class Overwrite:
    """A guarded overwrite of `label`: pass `expected` to the engine and run the write inside `checked()`."""

    label: str
    #: For the engine's `expected_sha256`: the hash this topic read; "" when the file does not exist (it must not
    #: appear before the write); None when forced (no guard).
    expected: str | None
    #: Whether the "changed" hint repeats the --force note (/write's does, /edit's does not).
    force_note_on_change: bool = True

    @property
    def guard(self) -> Guard:
        """The engine's guard for the write: the whole file as this topic read it, or none when forced."""
        return NO_GUARD if self.expected is None else WholeFile(self.expected)

    @contextmanager
    def checked(self) -> Iterator[None]:
        """The engine's CONFLICT (the file's bytes are not the ones read) becomes the guard's reply."""
        try:
            yield
        except StringError as exc:
            if exc.code != "CONFLICT" or not self.expected:
                raise  # forced, or a file that appeared meanwhile: the engine's own words
            advice = hint("Run ", Step("read", path=self.label), " or ", Step("view", target=self.label),
                          " again, then retry.")
            raise StringError(
                "CONFLICT",
                f"Refusing to overwrite {self.label}: it changed since this topic read it.",
                advice + f" {FORCE_NOTE}" if self.force_note_on_change else advice,
            ) from None


def require_seen(
    seen: dict[str, str], key: str | None, *, label: str, force: bool = False, force_note_on_change: bool = True
) -> Overwrite:
    """Refuse to overwrite an existing file this topic never read; else the guarded overwrite.

    `key` is the file's resolved root-relative path (`FileInfo.rel`, what `mark_seen` records), None when there is
    no file yet; `label` is the path the replies name. `seen` is the topic's `session.seen`.
    """
    if force:
        return Overwrite(label, None, force_note_on_change)
    if key is None:
        return Overwrite(label, "", force_note_on_change)
    expected = seen.get(key)
    if expected is None:
        raise StringError(
            "CONFLICT",
            f"Refusing to overwrite existing file not read in this topic: {label}",
            hint("Run ", Step("read", path=label), " or ", Step("view", target=label),
                 f" first, then retry. {FORCE_NOTE}"),
        )
    return Overwrite(label, expected, force_note_on_change)
