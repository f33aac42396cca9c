"""Hints are built, not pasted: every command a reply suggests (`!iconv … <file>`, `!git restore -- <file>`,
`/open <file>`) is a template of literal words with each value quoted for the parser that will read it, so a file
named `r;touch${IFS}PWNED;x.txt` or `$(touch PWNED).txt` is one word when the hint is sent back (docs/security.md).

Shell values are quoted with `shlex.quote`; a value holding a control character (a newline, ESC) is written in
bash's `$'…'` form instead, with each control as `\\xHH`, so the hint stays one line and bash still reads the
exact name. String Commands values are quoted only when they hold whitespace, a quote or a backslash, so ordinary
hints stay as they were, and then in double quotes with `\\` and `"` backslashed: the one form both of its parsers
read alike (the POSIX shlex split of `protocol/request.split_arguments`, and the first word of `/write` and
`/append`, `documents/writing.py`). A value starting with `-` is written `./-…`, so it is never read as an option;
a name holding a control character cannot be typed on a request line at all and is shown as `escapes.shown_name`
shows it. Neither can a name that is not UTF-8 (the engine reaches only UTF-8 paths): `not_utf8_hint` tells how to
reach it, in the shell.
"""

from __future__ import annotations

import re

from stringsh.escapes import NAME_CONTROLS, hex_escape, shown_name

#: The conversion every encoding hint suggests (`source` an iconv encoding name, `out` the new file).
ICONV = "iconv -f {source} -t UTF-8 {rel} -o {out}"
#: What the String Commands parser splits or unquotes: a value holding one of these is quoted.
STRING_SPECIAL = re.compile(r"[\s'\"\\]")


def shell_word(value: str) -> str:
    """`value` as one bash word: `shlex.quote`, or `$'…'` with `\\xHH` escapes when it holds a control."""
    if NAME_CONTROLS.search(value) is None:
        import shlex  # a hint's, on first use: `-c /ls` never loads it

        return shlex.quote(value)
    inner = value.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + NAME_CONTROLS.sub(lambda m: hex_escape(m.group(0)), inner) + "'"


def not_an_option(path: str) -> str:
    """A root-relative path that starts with `-` as `./-…`, so no program takes the file for an option."""
    return f"./{path}" if path.startswith("-") else path


def shell_command(template: str, **values: str) -> str:
    """`template` with each `{name}` replaced by its value (a root-relative path, or a word such as an encoding
    name) as one quoted bash word that no program reads as an option; the template's own text is literal (the
    program and its options). The command line of a shell step (`errors.Step("shell", command=…)`)."""
    return template.format_map({name: shell_word(not_an_option(value)) for name, value in values.items()})


def shell_hint(template: str, **values: str) -> str:
    """`shell_command` as String Commands run it: `!` first."""
    return "!" + shell_command(template, **values)


def widening_policy(trusted: bool) -> str:
    """Where a setting that widens the policy can be set: the user's own policy, or a trusted workspace's file
    (an untrusted workspace's `stringsh.toml` only narrows, workspace/layers.py, so a hint never sends a user
    there)."""
    own = "your own policy (<config>/policy.toml or --policy FILE)"
    return f"{own} or this trusted workspace's stringsh.toml" if trusted else own


def command_word(value: str) -> str:
    """`value` as one word of a String Commands request line (a path in `/open <path>`)."""
    if NAME_CONTROLS.search(value) is not None:
        return shown_name(value)
    value = not_an_option(value)
    if STRING_SPECIAL.search(value) is None:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: How `not_utf8_hint` starts (a dialect with its own NOT_FOUND text keeps this hint: tools/files.py).
NOT_UTF8 = "stringsh reaches only names that are UTF-8"


def not_utf8_words(name: str) -> tuple[str, str]:
    """What a refusal of a name that is not UTF-8 (or of its escaped form typed back) suggests: the one way to reach
    it, the shell, whose `$'…'` word is the exact bytes. The text before the shell command, and the command
    (`errors.not_utf8` makes the hint of them)."""
    return (f"{NOT_UTF8}; this one is shown escaped, {shown_name(name)}, and that form cannot be typed back. Rename "
            "it in the shell: ", shell_command("mv {old} NEW_NAME", old=name))


def not_utf8_hint(name: str) -> str:
    """`not_utf8_words` as String Commands show it: the command as `!mv …`."""
    text, command = not_utf8_words(name)
    return f"{text}!{command}"


def tool_call(name: str, args: dict[str, object]) -> str:
    """A tool call as a JSON-speaking dialect's hint shows it: the tool's name and its arguments as one JSON object,
    every value JSON-encoded (a name holding a quote or a newline stays one value, exactly)."""
    import json  # a hint's, on first use

    return f"{name} {json.dumps(args, ensure_ascii=False)}"


def shared_tool_step(verb: str, skip: bool, change: int | None, command: str) -> str | None:
    """The steps MCP and the JSON tools word alike (their undo, changes, revert and bash tools share names and
    arguments), or None for the others."""
    if verb == "undo":
        return tool_call("undo", {"skip": True} if skip else {})
    if verb == "changes":
        return tool_call("changes", {})
    if verb == "revert":
        return tool_call("revert", {"id": change})
    if verb == "programs":
        return program_names(command, "bash's")
    if verb == "shell":
        return tool_call("bash", {"command": command})
    return None


def program_names(names: str, where: str) -> str:
    """Shell programs named in words for a dialect that reaches the shell through a tool, or not at all:
    `bash's head, tail or grep`."""
    words = names.split()
    listed = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    return f"{where} {listed}"
