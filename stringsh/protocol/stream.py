"""Cut a byte line stream (pipe, pty, script file) into whole requests.

Shared by `run`, the plain loop and the daemon so that heredocs, comments and bad bytes behave the same everywhere.
Each whole request is parsed here, once: front ends hand `StreamItem.request` on and never parse its text again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stringsh.errors import StringError
from stringsh.protocol.framing import ENVELOPE_CLOSE, envelope_topic
from stringsh.protocol.request import (
    MAX_HEADER_BYTES,
    OPERATOR_END,
    OPERATOR_START,
    REQUEST_ID,
    TOO_LONG_HINT,
    UNTERMINATED_HINT,
    UNTERMINATED_QUOTE,
    Request,
    heredoc_tag,
    is_operator_block,
    open_quote,
    parse_request,
    quotes_span_lines,
)

#: The longest line read whole where a line has a limit: a request's first line (whose header is then held to
#: request.MAX_HEADER_BYTES) and each line of a quoted value. A heredoc body line has none (`LineReader.whole`).
MAX_LINE_BYTES = 1024 * 1024


@dataclass
class StreamItem:
    """A whole request text and its parsed `request`, or an error found while reading or parsing one (then `text`
    is what `re:` echoes)."""

    text: str
    topic: str | None = None
    error: tuple[str, str] | None = None
    request: Request | None = None
    #: The stream's line number (from 1) of the request's first line, so a script can say where it stopped.
    line: int = 0


def whole_request(text: str, topic: str | None, line: int = 0) -> StreamItem:
    """The item for a whole request's text: parsed, or the parse error to answer with."""
    try:
        return StreamItem(text, topic, request=parse_request(text), line=line)
    except StringError as exc:
        return StreamItem(text, topic, (exc.code, exc.text), line=line)


def _decode(raw: bytes) -> tuple[str | None, tuple[str, str] | None]:
    if b"\x00" in raw:
        return None, ("INVALID_PAYLOAD", "Request contains a NUL byte.\nRemove the NUL byte and send it again.")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, (
            "INVALID_PAYLOAD",
            f"Request is not valid UTF-8 (byte {raw[exc.start]:#04x} at offset {exc.start}).\n"
            "Send text encoded as UTF-8.",
        )


def _safe_header(raw: bytes) -> str:
    return raw.split(b"\n", 1)[0].replace(b"\x00", b"").decode("utf-8", "backslashreplace").strip()[:200]


class LineReader:
    """Reads lines of at most MAX_LINE_BYTES; a longer line is consumed and reported, never buffered whole."""

    def __init__(self, readline: Callable[[int], bytes]) -> None:
        self._readline = readline
        #: Lines read so far: the number of the line the last call returned.
        self.count = 0

    def __call__(self, limit: int = MAX_LINE_BYTES) -> tuple[bytes, bool]:
        """Return (line, too_long); an empty line means end of input."""
        line = self._readline(limit + 1)
        if line:
            self.count += 1
        if len(line) <= limit or line.endswith(b"\n"):
            return line, False
        head = line[:200]
        while line and not line.endswith(b"\n"):
            line = self._readline(MAX_LINE_BYTES)
        return head, True

    def whole(self) -> bytes:
        """One line however long, read in MAX_LINE_BYTES pieces; b"" at end of input. For heredoc bodies: the body
        is held whole anyway, so one long line costs no more than as many bytes in short lines."""
        line = self._readline(MAX_LINE_BYTES)
        if not line:
            return line
        self.count += 1
        parts = [line]
        while not parts[-1].endswith(b"\n") and (more := self._readline(MAX_LINE_BYTES)):
            parts.append(more)
        return b"".join(parts) if len(parts) > 1 else line


def read_requests(
    readline: Callable[[int], bytes],
    *,
    envelopes: bool = False,
    on_continuation: Callable[[], None] | None = None,
    is_bash_mode: Callable[[], bool] | None = None,
    on_skipped: Callable[[], None] | None = None,
) -> Iterator[StreamItem]:
    """Yield whole requests. Blank lines and `#` comments between requests are skipped (`on_skipped` is told,
    so an interactive loop can prompt again).

    With `envelopes`, a line `<𝒞=string:TOPIC>` sends the requests up to `</𝒞>` to that topic.
    `is_bash_mode` keeps `#` lines (they are shell comments) when every line goes to a shell.
    """
    next_line = LineReader(readline)
    topic: str | None = None
    while True:
        raw, too_long = next_line()
        if not raw:
            return
        if too_long:
            yield StreamItem(
                _safe_header(raw),
                topic,
                # the header's own limit (parse_request): the longer line is never held to be measured
                ("TOO_LARGE", f"Request line is longer than {MAX_HEADER_BYTES // 1024} KB.\n{TOO_LONG_HINT}"),
                line=next_line.count,
            )
            continue
        line, error = _decode(raw)
        if error or line is None:
            yield StreamItem(_safe_header(raw), topic, error, line=next_line.count)
            continue
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and not (is_bash_mode and is_bash_mode())):
            if on_skipped:
                on_skipped()
            continue
        if envelopes:
            opened = envelope_topic(stripped)
            if opened is not None:
                topic = opened
                continue
            if stripped == ENVELOPE_CLOSE:
                topic = None
                continue
        shell_line = bool(is_bash_mode and is_bash_mode()) or (topic or "").startswith("bash:")
        number = next_line.count
        if not shell_line and is_operator_block(stripped):
            yield _read_operator_block(line, next_line, topic, on_continuation, number)
            continue
        if not shell_line and open_quote(line) is not None and quotes_span_lines(stripped):
            quoted = _read_quoted(line, next_line, topic, on_continuation, number)
            if isinstance(quoted, StreamItem):
                yield quoted
                continue
            line = quoted
        tag = heredoc_tag(line.strip(), shell_line=shell_line)
        if tag is None:
            yield whole_request(line.rstrip("\r\n"), topic, number)
            continue
        yield _read_heredoc(line, tag, next_line, topic, on_continuation, number)


def _read_quoted(
    first: str,
    next_line: LineReader,
    topic: str | None,
    on_continuation: Callable[[], None] | None,
    number: int,
) -> str | StreamItem:
    """A header whose quoted value opened on its first line: every line up to the closing quote, or the refusal
    when the input ends first (a line that cannot be read is refused at once: the value would be cut)."""
    text = first if first.endswith("\n") else first + "\n"
    while True:
        if on_continuation:
            on_continuation()
        raw, too_long = next_line()
        if not raw:
            where = " before the end of input"
            return StreamItem(first.strip(), topic, ("INVALID_PAYLOAD", f"{UNTERMINATED_QUOTE.format(where=where)}\n"
                                                      f"{UNTERMINATED_HINT}"), line=number)
        if too_long:
            problem = ("TOO_LARGE", f"A line of a quoted value is longer than 1 MiB ({MAX_LINE_BYTES} bytes); "
                       "the command was not run.\nPut long content in a <<EOF heredoc body (no line limit).")
            return StreamItem(first.strip(), topic, problem, line=number)
        line, error = _decode(raw)
        if error or line is None:
            return StreamItem(first.strip(), topic, error, line=number)
        text += line if line.endswith("\n") else line + "\n"
        if open_quote(text) is None:
            return text


def _read_operator_block(
    first: str,
    next_line: LineReader,
    topic: str | None,
    on_continuation: Callable[[], None] | None,
    number: int,
) -> StreamItem:
    """An OPERATOR_CMD block, up to where the dialect's scanner says it ends (its END, a cap, the end of input).
    Lines are read up to the default payload cap (a longer one is kept as its head and the scanner's TRUNCATED
    mark); bytes that are not UTF-8 are kept escaped for the scanner to refuse by name; lines the scanner skips
    after a cap are not kept. The request's body is the block: `operator-block` scans it again under the policy."""
    from stringsh.protocol.operator_blocks import TRUNCATED, BlockScanner

    scanner = BlockScanner()
    request_id = None
    if first.lstrip().startswith("["):  # `[id] OPERATOR_CMD`: the id is the request's, the block starts clean
        match = REQUEST_ID.match(first.strip())
        request_id, first = (match.group(1), OPERATOR_START) if match else (None, first)
    lines = [first.rstrip("\n")]
    scanner.feed(first)
    while scanner.open:
        if on_continuation:
            on_continuation()
        raw, too_long = next_line(scanner.caps.line + 2)
        if not raw:
            break
        line = raw.decode("utf-8", "surrogateescape").rstrip("\n") + (TRUNCATED if too_long else "")
        kept = not scanner.skipping
        scanner.feed(line)
        if kept:
            lines.append(line)
    text = "\n".join(lines) + "\n"
    return StreamItem(text, topic, request=Request(OPERATOR_START, text, request_id, None, OPERATOR_END),
                      line=number)


def _read_heredoc(
    first: str,
    tag: str,
    next_line: LineReader,
    topic: str | None,
    on_continuation: Callable[[], None] | None,
    number: int = 0,
) -> StreamItem:
    parts = [first if first.endswith("\n") else first + "\n"]
    problem: tuple[str, str] | None = None
    while True:
        if on_continuation:
            on_continuation()
        raw = next_line.whole()
        if not raw:
            header = first.strip()
            return StreamItem(
                header,
                topic,
                (
                    "INVALID_PAYLOAD",
                    f"Unterminated heredoc: no line {tag!r} before the end of input; the command was not run.\n"
                    f"End the body with a line that is exactly {tag}.",
                ),
                line=number,
            )
        line, error = _decode(raw)
        if error or line is None:
            problem = problem or error
            continue
        if line.rstrip("\r\n") == tag:
            parts.append(line)
            if problem:
                return StreamItem(first.strip(), topic, problem, line=number)
            return whole_request("".join(parts), topic, number)
        parts.append(line)
