"""Parse one String request: optional `[id]`, a header line, an optional body (multi-line text or heredoc).

One parser for every front end; `is_complete` decides when a line stream has a whole request.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from stringsh.errors import StringError

REQUEST_ID = re.compile(r"^\[([A-Za-z0-9._:-]{1,64})\]\s*")
#: Patterns that most requests never need are kept as text: `re` compiles (and caches) them on first use.
HEREDOC = (
    r"""\s*<<-?\s*(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)"|([A-Za-z_][A-Za-z0-9_]*))\s*$"""
)
VARIABLE = r"\{([A-Za-z_][A-Za-z0-9_.-]*)\}"
#: `{{name}}`: the escape that yields a literal `{name}` where `{name}` would be substituted.
ESCAPED_VARIABLE = r"\{(\{[A-Za-z_][A-Za-z0-9_.-]*\})\}"
#: A request for `/act` or `/act.<id>` (optionally `[id]`-prefixed): String's flag values are the one place a quote
#: groups words across lines. Other commands refuse an unbalanced quote at once (split_arguments), and free-text
#: ones (`/write path it's`) take it as a character, so neither ever swallows the next line of a script.
ACT_WORD = r"^\s*(?:\[[A-Za-z0-9._:-]{1,64}\]\s*)?//?[Aa][Cc][Tt](?:\.[A-Za-z0-9_-]+)?(?=\s|$)"
UNTERMINATED_QUOTE = (
    "Unterminated quote: a quoted value on the first line never closes{where}; the command was not run."
)
UNTERMINATED_HINT = "Close the quote: a quoted value may span lines, and keeps every one."
MAX_HEADER_BYTES = 64 * 1024
TOO_LONG_HINT = "Put long content in the body (after the first line, or in a <<EOF heredoc)."
#: An OPERATOR_CMD block sent as a request: the marker line starts it, the END marker line ends it; the
#: whole block is the request's body, answered by stringsh/dialects/operator/ (`operator-block`, a hidden command).
OPERATOR_START = "OPERATOR_CMD"
OPERATOR_END = "END_OPERATOR_CMD"


class Request:
    """A request as received: `header` is the first line without the id and heredoc marker.

    A plain class, like the other values every request builds: a dataclass costs about a millisecond of start-up.
    """

    __slots__ = ("body", "header", "heredoc", "id", "tag")

    def __init__(
        self,
        header: str,
        body: str | None = None,
        id: str | None = None,
        heredoc: str | None = None,
        tag: str | None = None,
    ) -> None:
        self.header = header
        self.body = body
        self.id = id
        #: The `<<TAG` marker as typed and its tag, when the body came from a heredoc.
        self.heredoc = heredoc
        self.tag = tag

    def _fields(self) -> tuple[str | None, ...]:
        return (self.header, self.body, self.id, self.heredoc, self.tag)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Request) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment] - mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return "Request(header={!r}, body={!r}, id={!r}, heredoc={!r}, tag={!r})".format(*self._fields())

    def shell_text(self, command: str) -> str:
        """The text a shell runs for `command` (the header's command part) and the body.

        A heredoc on a shell command is bash's own as well (`!cat > f <<'EOF'` writes the lines to `f`): String uses
        it to find the request's end, bash gets the marker, the lines and the terminator. `!<<EOF` with nothing
        before the marker, or a header that still ends in another marker (`!cat <<'A' <<B`), keeps the body as script.
        """
        if self.heredoc and self.tag and command.strip() and re.search(HEREDOC, command) is None:
            return f"{command} {self.heredoc}\n{self.body or ''}{self.tag}\n"
        return command if self.body is None else f"{command}\n{self.body}"


class Invocation:
    """A request split into a command: `name` lower-cased without the slash, `args` shell-split."""

    __slots__ = ("arg_text", "args", "body", "is_shell", "name")

    def __init__(
        self,
        name: str,
        args: list[str] | None = None,
        arg_text: str = "",
        body: str | None = None,
        is_shell: bool = False,
    ) -> None:
        self.name = name
        self.args: list[str] = [] if args is None else args
        self.arg_text = arg_text
        self.body = body
        self.is_shell = is_shell

    def _fields(self) -> tuple[object, ...]:
        return (self.name, self.args, self.arg_text, self.body, self.is_shell)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Invocation) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Invocation(name={!r}, args={!r}, arg_text={!r}, body={!r}, is_shell={!r})".format(*self._fields())


def heredoc_tag(header: str, *, shell_line: bool = False) -> str | None:
    """The terminator a header's `<<TAG` asks for, or None. A line for a shell (bash topic or mode) is any line."""
    if "<<" not in header:
        return None
    match = re.search(HEREDOC, header)
    if not match or not (shell_line or header.lstrip().startswith(("/", "!", "["))):
        return None
    return next(group for group in match.groups() if group)


def _head(text: str) -> str:
    """The first line alone: every request is asked whether it is an OPERATOR_CMD block, and a 1 MB body is not
    copied to answer it (as partition would)."""
    end = text.find("\n")
    return text if end < 0 else text[:end]


def _first_line(text: str) -> tuple[str, str | None]:
    head, sep, rest = text.partition("\n")
    return head.rstrip("\r"), (rest if sep else None)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern kept as text, compiled on its first use (start-up compiles none); later uses skip `re`'s cache."""
    return re.compile(pattern)


def quotes_span_lines(first_line: str) -> bool:
    """True for an `/act` header: a quote opened there may close on a later line."""
    return _compiled(ACT_WORD).match(first_line) is not None


def open_quote(text: str) -> str | None:
    """The quote still open at the end of `text` under String's flag rules (`'` or `"`, no escapes), or None."""
    if "'" not in text and '"' not in text:
        return None  # (most requests: two scans in C, not a loop over every character)
    quote: str | None = None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
    return quote


def split_header(text: str, *, shell_line: bool = False) -> tuple[str, str | None] | None:
    """(header, rest) of a request text. A quoted value that opens on the first line keeps every line up to its
    closing quote in the header (`/act.echo -c "alpha` … `gamma"`); None while that quote is still open."""
    header, rest = _first_line(text)
    if shell_line or open_quote(header) is None or not quotes_span_lines(header):  # (no quote: no regex compiled)
        return header, rest
    lines = [header]
    while rest is not None:
        line, rest = _first_line(rest)
        lines.append(line)
        if open_quote("\n".join(lines)) is None:
            return "\n".join(lines), rest
    return None


def is_operator_block(header: str) -> bool:
    """True for a request's first line that starts an OPERATOR_CMD block: the marker, optionally after an `[id]`
    (as `daemon --json` adds), blanks and a CR around it allowed (the block's scanner then judges the marker)."""
    if OPERATOR_START not in header:  # nearly every request: the marker is nowhere in it
        return False
    header = header.strip()
    if header.startswith("["):
        match = REQUEST_ID.match(header)
        header = header[match.end() :] if match else header
    return header == OPERATOR_START


def is_complete(text: str, *, shell_line: bool = False) -> bool:
    """True when `text` holds a whole request: a header (its quotes closed) without heredoc, a heredoc with its
    terminator, or an OPERATOR_CMD block with its END line."""
    if not shell_line and is_operator_block(_head(text.lstrip("\n"))):
        return any(line.rstrip("\r").rstrip(" \t").strip(" \t>") == OPERATOR_END for line in text.split("\n"))
    split = split_header(text.lstrip("\n"), shell_line=shell_line)
    if split is None:
        return False
    header, rest = split
    tag = heredoc_tag(header, shell_line=shell_line)
    if tag is None:
        return True
    if rest is None:
        return False
    return any(line.rstrip("\r") == tag for line in rest.split("\n"))


def parse_request(text: str) -> Request:
    """Split text into id, header and body; a heredoc body runs to its terminator line, exclusive."""
    if "\x00" in text:
        raise StringError("INVALID_PAYLOAD", "Request contains a NUL byte.", "Remove the NUL byte and send it again.")
    text = text.lstrip("\r\n")
    if is_operator_block(_head(text)):
        first, rest = _first_line(text)
        match = REQUEST_ID.match(first.strip())
        if match is None:
            return Request(OPERATOR_START, text, None, None, OPERATOR_END)
        return Request(OPERATOR_START, f"{OPERATOR_START}\n{rest or ''}", match.group(1), None, OPERATOR_END)
    split = split_header(text)
    if split is None:
        raise StringError("INVALID_PAYLOAD", UNTERMINATED_QUOTE.format(where=" before the end of the request"),
                          UNTERMINATED_HINT)
    header, rest = split
    header = header.strip()
    # a character is at most 4 bytes in UTF-8: only a long header needs encoding to be measured
    if len(header) > MAX_HEADER_BYTES // 4 and len(header.encode("utf-8", "surrogatepass")) > MAX_HEADER_BYTES:
        raise StringError("TOO_LARGE", f"Request line is longer than {MAX_HEADER_BYTES // 1024} KB.", TOO_LONG_HINT)
    request_id = None
    match = REQUEST_ID.match(header) if header.startswith("[") else None
    if match:
        request_id = match.group(1)
        header = header[match.end() :]
    tag = heredoc_tag(header)
    if tag is None:
        return Request(header=header, body=rest, id=request_id)
    marker = re.search(HEREDOC, header)
    assert marker is not None
    header = header[: marker.start()].rstrip()
    lines = (rest or "").split("\n")
    for index, line in enumerate(lines):
        if line.rstrip("\r") == tag:
            body = "\n".join(lines[:index])
            return Request(header, body + "\n" if index else "", request_id, marker.group(0).strip(), tag)
    raise StringError(
        "INVALID_PAYLOAD",
        f"Unterminated heredoc: no line {tag!r} before the end of input; the command was not run.",
        f"End the body with a line that is exactly {tag}.",
    )


def reply_header(text: str) -> tuple[str, str | None]:
    """The (header, id) a reply echoes for text that could not be parsed as a whole request."""
    header = text.lstrip("\r\n").split("\n", 1)[0].replace("\x00", "").strip()
    request_id = None
    match = REQUEST_ID.match(header) if header.startswith("[") else None
    if match:
        request_id, header = match.group(1), header[match.end() :]
    if heredoc_tag(header) is not None:
        header = re.sub(HEREDOC, "", header).rstrip()
    return header, request_id


#: shlex's whitespace (` \t\r\n`) as spaces: alone it separates words holding no quote or backslash.
SHLEX_SPACES = str.maketrans("\t\r\n", "   ")


def split_arguments(text: str) -> list[str]:
    """Shell-like split of the header's arguments; an unbalanced quote is a coded error."""
    if not text.strip(" \t\r\n"):  # shlex's whitespace: nothing to split (and `-c /ls` never imports shlex)
        return []
    if "'" not in text and '"' not in text and "\\" not in text:  # no quote or escape: shlex would split at its
        return [word for word in text.translate(SHLEX_SPACES).split(" ") if word]  # whitespace only, so no import
    import shlex

    try:
        lexer = shlex.shlex(text, posix=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError as exc:
        raise StringError(
            "INVALID_PAYLOAD",
            f"Cannot parse arguments: {exc}.",
            "Close the quote, or escape it with a backslash.",
        ) from None


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Replace `{name}` with a session variable; unknown names stay literal; `{{name}}` is a literal `{name}`."""
    if "{" not in text:
        return text
    pattern = f"{ESCAPED_VARIABLE}|{VARIABLE}"
    return re.sub(pattern, lambda m: m.group(1) or variables.get(m.group(2), m.group(0)), text)


def parse_invocation(
    request: Request, variables: dict[str, str] | None = None, *, raw_names: frozenset[str] = frozenset()
) -> Invocation:
    """Turn a request into a command name and arguments.

    `raw_names` are commands whose arguments are neither substituted nor split (they parse their own text).
    """
    header = request.header
    if request.tag == OPERATOR_END and header == OPERATOR_START:
        return Invocation(name="operator-block", body=request.body)
    if header.startswith("!"):
        command_text = substitute(header[1:].strip(), variables or {})
        return Invocation(name="!", arg_text=command_text, body=request.body, is_shell=True)
    if header.startswith("//"):
        header = header[1:]
    if not header.startswith("/") or len(header) == 1 or header[1].isspace():
        raise StringError("COMMAND_UNSUPPORTED", "Commands must start with /.", "Use /help for details.")
    word, _, rest = header[1:].partition(" ")
    if "\t" in word:
        word, _, extra = word.partition("\t")
        rest = f"{extra} {rest}".strip()
    name = word.lower()
    rest = rest.strip()
    if name.startswith("act.") and len(name) > 4:
        rest = f"{word[4:]} {rest}".strip()
        name = "act"
    if name in raw_names:
        return Invocation(name=name, arg_text=rest, body=request.body)
    rest = substitute(rest, variables or {})
    return Invocation(name=name, args=split_arguments(rest), arg_text=rest, body=request.body)
