"""Search replies shared by /grep and /glob (a neutral module: commands never import each other): the option
parser and the summary line with counts and skips."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from stringsh.workspace import Traversal


def plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    if noun.endswith("y"):
        return f"{count} {noun[:-1]}ies"
    return f"{count} {noun}es" if noun.endswith("ch") else f"{count} {noun}s"


def folder(rel: str) -> str:
    return "./" if rel in ("", ".") else f"{shown_name(rel)}/"


def parse_options(args: list[str], name: str, switches: tuple[str, ...], valued: tuple[str, ...]
                  ) -> tuple[list[str], dict[str, str | bool]]:
    """(positional words, {flag: True | value}); words after `--` are always positional."""
    from stringsh.commands.targets import refuse_unknown_flags, split_dashes

    words, literal = split_dashes(args)
    options: dict[str, str | bool] = {}
    positional: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in switches:
            options[word] = True
        elif word in valued:
            if index + 1 >= len(words):
                raise StringError("INVALID_PAYLOAD", f"{word} needs a value.", f"Usage: see /help {name}.")
            options[word] = words[index + 1]
            index += 1
        else:
            positional.append(word)
        index += 1
    refuse_unknown_flags(positional, name, (*switches, *valued))
    return positional + literal, options


def number(options: dict[str, str | bool], flag: str, low: int, high: int) -> int | None:
    value = options.get(flag)
    if value is None:
        return None
    text = str(value)
    if not text.isdigit() or not low <= int(text) <= high:
        raise StringError("INVALID_PAYLOAD", f"{flag} needs a whole number from {low} to {high}, got: {text}",
                          f"For example {flag} {low if low else 2}.")
    return int(text)


def summary(found: str, traversal: Traversal, *, too_large: int = 0, non_utf8: int = 0) -> str:
    """`5 matches in 2 files; scanned 9 files (12 entries); skipped 1 too large, …` with `--stats`; without it
    only what the search can count exactly whichever engine walked: `5 matches in 2 files` and, for /grep, the
    files holding the query that are binary or not UTF-8."""
    if not traversal.counted:
        return found + (f"; skipped {non_utf8} binary or not UTF-8" if non_utf8 else "")
    line = f"{found}; scanned {plural(traversal.scanned_files, 'file')} ({plural(traversal.scanned_entries, 'entry')})"
    skips = [
        (too_large, "too large"),
        (non_utf8, "binary or not UTF-8"),
        (traversal.skipped_symlinks, "symlink"),
        (traversal.skipped_walk_errors, "refused (hard link, or changed while walked)"),
        (traversal.skipped_io_errors, "unreadable"),
    ]
    shown = [f"{count} {what}" + ("s" if what == "symlink" and count > 1 else "")
             for count, what in skips if count]
    if shown:
        line += "; skipped " + ", ".join(shown)
    return line


def limit_note(traversal: Traversal, shown: int) -> str | None:
    """What stopped the search early, and what to do about it."""
    reason = traversal.scan_limit_reason
    if reason == "results":
        return f"Stopped after {shown} results: narrow the search (a path, --glob) or set --max N."
    if reason == "time":
        return "Stopped at the search's time limit: search a narrower path."
    if reason in ("entries", "files"):
        return (f"Stopped at the policy's max_walk_{reason} limit: search a narrower path; "
                f"[limits] max_walk_{reason} raises it.")
    return None
