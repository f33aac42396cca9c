"""String Command request text built from MCP tool arguments, so stringsh's own tools run the very commands a
person types (never a second implementation of them): every argument is quoted by the request parser's own rules
(shell words, `{name}` kept literal), positional words go after `--` (never a flag), a single-line argument with a
line break is refused (it would start a second request), and a body gets a heredoc terminator that none of its
lines is. The built text is parsed back and compared with what was meant before it runs."""

from __future__ import annotations

import re
import shlex

from stringsh.errors import StringError
from stringsh.protocol.request import (
    VARIABLE,
    Request,
    parse_request,
    split_arguments,
    substitute,
)

#: Words the parser's split keeps as they are (no quote, backslash or blank): shown unquoted in the `re:` line.
PLAIN = r"[\w@%+=:,./#{}~-]+"
#: The terminators tried in turn: the first that is no line of the body.
TAG = "EOF"


def word(value: str, name: str) -> str:
    """One argument as a shell word the request parser splits back to `value` exactly, `{name}` kept literal."""
    if not value:
        raise StringError("INVALID_PAYLOAD", f"{name}: empty value", f"Give {name} a value.")
    if any(ch in value for ch in "\r\n\x00"):
        raise StringError("INVALID_PAYLOAD", f"{name}: a line break or NUL byte in a one-line argument",
                          f"Give {name} on one line (a body goes in the tool's body argument).")
    escaped = re.sub(VARIABLE, lambda m: "{" + m.group(0) + "}", value)
    return escaped if re.fullmatch(PLAIN, escaped) else shlex.quote(escaped)


def terminator(body: str) -> str:
    """`EOF`, or `EOF1`, `EOF2`, … : a tag that is no line of `body` (so the body cannot end the heredoc early)."""
    lines = {line.rstrip("\r") for line in body.split("\n")}
    tag, n = TAG, 0
    while tag in lines:
        n += 1
        tag = f"{TAG}{n}"
    return tag


Arg = tuple[str, str]  # (the tool argument's name, for a refusal; its value)


def build(command: str, args: list[Arg], body: str | None = None) -> str:
    """`/command ARGS [<<TAG` body `TAG]`, each argument quoted; checked by parsing it back."""
    header = " ".join([command, *(value if name == "" else word(value, name) for name, value in args)])
    if body is None:
        return checked(header, [value for _, value in args], None)
    if "\x00" in body:
        raise StringError("INVALID_PAYLOAD", "body: a NUL byte", "Remove the NUL byte from the body.")
    tag = terminator(body)
    newline = "" if body.endswith("\n") or not body else "\n"
    return checked(f"{header} <<{tag}\n{body}{newline}{tag}", [value for _, value in args], body + newline)


def flag(value: str) -> Arg:
    """A flag or `--`: a fixed word of ours, never a client's."""
    return ("", value)


def checked(text: str, words: list[str], body: str | None) -> str:
    """`text` once it parses back to one request with exactly `words` (unquoted) and `body`: defence in depth
    against any argument that would change the request's shape."""
    request: Request = parse_request(text)
    rest = request.header.partition(" ")[2]
    if split_arguments(substitute(rest, {})) != words or request.body != body:
        raise StringError("INVALID_PAYLOAD", "The arguments would not reach the command as given",
                          "Leave line breaks and heredoc markers out of one-line arguments.")
    return text


def shell_request(command: str) -> str:
    """`!command` for one plain line (the reply's `re:` line names it), else `!` with the script as a heredoc body
    (bash gets it verbatim: no `{name}` substitution, no heredoc of String's in the way)."""
    one_line = not any(ch in command for ch in "\r\n\x00{") and "<<" not in command and len(command) < 4096
    if one_line:
        text = "!" + command.strip()
        request = parse_request(text)
        if request.header == text and request.body is None:
            return text
    return build("!", [], command)
