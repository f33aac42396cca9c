"""Hints are built, not pasted: every command a reply suggests (`!iconv … <file>`, `!git restore -- <file>`,
`/open <file>`) is a template of literal words with each value quoted for the parser that will read it, so a file
named `r;touch${IFS}PWNED;x.txt` or `$(touch PWNED).txt` is one word when the hint is sent back (docs/security.md).

Shell values are quoted with `shlex.quote`; a value holding a control character (a newline, ESC) is written in
bash's `$'…'` form instead, with each control as `\\xHH`, so the hint stays one line and bash still reads the
exact name. String Commands values (read by `protocol/request.split_arguments`, a POSIX shlex split) are quoted only
when they hold whitespace, a quote or a backslash, so ordinary hints stay as they were; a name holding a control
character cannot be typed on a request line at all and is shown as `escapes.shown_name` shows it.
"""

from __future__ import annotations

import re
import shlex

from stringsh.escapes import NAME_CONTROLS, hex_escape, shown_name

#: The conversion every encoding hint suggests (`source` an iconv encoding name, `out` the new file).
ICONV = "iconv -f {source} -t UTF-8 {rel} -o {out}"
#: What the String Commands parser splits or unquotes: a value holding one of these is quoted.
STRING_SPECIAL = re.compile(r"[\s'\"\\]")


def shell_word(value: str) -> str:
    """`value` as one bash word: `shlex.quote`, or `$'…'` with `\\xHH` escapes when it holds a control."""
    if NAME_CONTROLS.search(value) is None:
        return shlex.quote(value)
    inner = value.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + NAME_CONTROLS.sub(lambda m: hex_escape(m.group(0)), inner) + "'"


def shell_hint(template: str, **values: str) -> str:
    """`!` and `template` with each `{name}` replaced by its value as one quoted bash word; the template's own
    text is literal (the program and its options)."""
    return "!" + template.format_map({name: shell_word(value) for name, value in values.items()})


def command_word(value: str) -> str:
    """`value` as one word of a String Commands request line (a path in `/open <path>`)."""
    if NAME_CONTROLS.search(value) is not None:
        return shown_name(value)
    return shlex.quote(value) if STRING_SPECIAL.search(value) else value
