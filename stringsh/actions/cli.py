"""CLI actions: the author's command line, run by a stateless `bash -c`, caller values passed as data.

A value never becomes part of the command's text: `build_command` passes each one as a positional parameter
(`bash -c SCRIPT bash V1 V2 …`) and writes a reference to it where its `{placeholder}` stood, quoted for
that place (`shellscan` finds which): `"${1}"` in a plain word, `${1}` inside `"…"`, `'"${1}"'` inside `'…'`,
`'"${1}"$'` inside `$'…'`. Bash does not read an expanded parameter as syntax again, so `; rm -rf`, `$(…)`,
backticks, quotes and newlines reach the program as text, in every quoting context. A placeholder where bash
would evaluate the value (arithmetic, `${…}`, `eval`, the command name, …) is refused and nothing runs.
The reply is the bash format `exit: N | cwd: /abs` + output, with code `EXIT_N` when N is not 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.actions.shellscan import RULE, Slot, problem, scan
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.workspace import clean_text

if TYPE_CHECKING:
    from stringsh.workspace import ActionRun

SAFE = re.compile(r"[A-Za-z0-9_\-./=@:+,]+")  # fullmatch: `$` would let a final newline through
#: How a reference to parameter N is written in each quoting context.
REFERENCE = {"unquoted": '"${%d}"', "double": "${%d}", "single": "'\"${%d}\"'", "ansi": "'\"${%d}\"$'"}


def shell_quote(value: str) -> str:
    """String's quoting: `''` for empty, safe words as they are, everything else single-quoted."""
    if value == "":
        return "''"
    if SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


@dataclass
class Command:
    """A filled command: the `script` bash runs, the `args` it gets as `$1`, `$2`, …, and `shown`, the command line
    with each value single-quoted in place (what the audit trail records; never run)."""

    script: str
    args: list[str] = field(default_factory=list)
    shown: str = ""


def refusal_error(action_id: str, problem: str) -> StringError:
    """The error for a placeholder where the allowlist does not let a value stand (`shellscan.problem`): the action
    never runs."""
    return StringError("INVALID_PAYLOAD", f"/act.{action_id}: {problem}; nothing ran.", RULE)


def build_command(
    template: str, payload: Mapping[str, str], variables: Mapping[str, str], action_id: str = "action"
) -> Command:
    """Fill `{...args}` (every payload field as `--k v`), `{field}`, `{field[N]}` and `{var}` as parameters.

    One pass over the author's template: inserted values are never scanned again. A placeholder with no value
    stays as typed; one with a value where bash would evaluate it raises `INVALID_PAYLOAD`; a value holding a NUL
    (which no argument can carry) too.
    """
    script: list[str] = []
    shown: list[str] = []
    args: list[str] = []
    at = 0
    for slot in scan(template):
        values = slot_values(slot, payload, variables)
        if values is None:
            continue
        if slot.refusal is not None:
            raise refusal_error(action_id, problem(slot))
        for value in values:
            if "\x00" in value:
                raise StringError(
                    "INVALID_PAYLOAD", f"/act.{action_id}: the value of {slot.text} holds a NUL character, which no "
                    "command argument can carry; nothing ran.", "Give text without NUL characters.",
                )
        refs = []
        for value in values:
            args.append(value)
            refs.append(REFERENCE[slot.context] % len(args))
        script += [template[at : slot.start], " ".join(refs)]
        is_key = slot.name == "...args"  # `--key value` pairs: the key is shown as it is
        quoted = [value if is_key and i % 2 == 0 else shell_quote(value) for i, value in enumerate(values)]
        shown += [template[at : slot.start], " ".join(quoted)]
        at = slot.end
    script.append(template[at:])
    shown.append(template[at:])
    return Command("".join(script), args, "".join(shown))


def slot_values(slot: Slot, payload: Mapping[str, str], variables: Mapping[str, str]) -> list[str] | None:
    """The values a placeholder stands for (`{...args}`: `--k`, `v` for each field), None when it has none."""
    if slot.name == "...args":
        return [part for key, value in payload.items() for part in (f"--{key}", value)]
    if slot.name in payload:
        value = payload[slot.name]
        if slot.index is not None:
            parts = value.split(",")
            value = parts[slot.index] if slot.index < len(parts) else ""
        return [value]
    if slot.name in variables and slot.index is None:
        return [variables[slot.name]]
    return None


@dataclass
class CliRun:
    exit: int
    cwd: str
    output: str
    timed_out: bool = False
    #: With `separate`: each stream on its own (what a response template's `{Response.stdout}` … show).
    stdout: str = ""
    stderr: str = ""

    @property
    def message(self) -> str:
        return f"exit: {self.exit} | cwd: {shown_name(self.cwd)}"


def clean_output(data: bytes, cap: int) -> str:
    text = clean_text(data.decode("utf-8", "replace"))
    if len(text) > cap:
        half = cap // 2
        cut = len(text) - 2 * half
        text = f"{text[:half]}\n... ({cut} characters cut) ...\n{text[-half:]}"
    return text.rstrip()


def cli_run(raw: ActionRun, cwd: Path, *, separate: bool = False, cap: int = 50 * 1024) -> CliRun:
    """The reply's view of an engine run (`Workspace.run_action`): each stream cleaned of terminal controls and cut
    to `cap` characters, the sandbox's notes after the output, a timeout said."""
    chunks = [raw.out, raw.err] if separate else [raw.out]
    texts = [clean_output(got, cap) for got in chunks]
    output = "\n".join(text for text in texts if text)
    if raw.timed_out:
        output = f"{output}\n[timed out after {raw.timeout:g}s; process group killed]".lstrip("\n")
    if raw.notes:
        output = "\n".join([output, *raw.notes]) if output else "\n".join(raw.notes)
    run = CliRun(raw.status, str(cwd), output, raw.timed_out)
    if separate:
        run.stdout, run.stderr = texts
    return run
