"""OPERATOR_CMD blocks in, `Command`/`Invalid` out, one block at a time as its END arrives (an agent waits for the
answer before it sends more). The rules, as `/help operator` states them to agents:

- Lines end at LF. A trailing CR is removed (CRLF input works), then trailing spaces and tabs: both are invisible
  and chat front ends add them. Nothing else is normalised.
- A marker is `OPERATOR_CMD` / `END_OPERATOR_CMD` alone from the first column. An indented marker (a list item, a
  quote, an indented code block) opens a block that is refused as ERR_MARKER_INDENTED when it ends; a marker with
  other text on its line is ERR_MARKER_NOT_ALONE. Markdown fence lines (```) around a block are text outside it,
  and ignored like any prose; inside a block they are not `key: value` lines.
- Inside a block every line is `key: value` (key `[A-Za-z0-9_.-]+`, case-sensitive, then `: `; `key:` alone is an
  empty value). No blank lines, no control characters, no key twice.
- A second `OPERATOR_CMD` before the END refuses the first block (ERR_NESTED_BLOCK) and starts a new one, so a
  resent block after a cut one still runs. A stray END outside a block is prose. A missing END at the end of input
  is ERR_MISSING_END_MARKER.
- `*_b64` fields are strict base64 (alphabet, `=` padding only at the end, length a multiple of 4, no whitespace,
  canonical so it round-trips) of strict UTF-8, at most the policy's cap once decoded (`limits.max_write_bytes` for
  content_b64, `limits.max_patch_bytes` for patch_b64 and edits_b64); a longer value is refused from its length,
  without being decoded. Block caps derive from those: a line may hold the largest payload the policy allows
  (upstream's 50,000 characters would refuse any file over 37 KB), a block that much plus 64 KiB, and 200 lines.

Every block that started is answered: an `Invalid` echoes the block's id whenever it had an `id:` line.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass
from typing import NamedTuple

from stringsh.protocol.operator_model import ACTIONS, Command, Invalid

START = "OPERATOR_CMD"
END = "END_OPERATOR_CMD"
KEY_VALUE = re.compile(r"([A-Za-z0-9_.-]+):(?: (.*))?")
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
#: Bytes that were not UTF-8, as the reader decodes them (surrogateescape).
NOT_UTF8 = re.compile(r"[\udc80-\udcff]")
BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]*={0,2}")
#: A line the reader cut because it was longer than `Caps.line`: its head, then this mark (a lone surrogate:
#: decoding with surrogateescape never makes one).
TRUNCATED = "\ud800"
#: Fields naming a workspace: refused with their own message (HARD RULE 10), compared without case.
WORKSPACE_KEYS = frozenset(
    {"workspace", "workspaceroot", "workspace_root", "workspacedir", "workspace_dir", "root", "rootdir", "root_dir",
     "cwd", "workdir", "working_dir", "workingdirectory", "basedir", "base_dir", "project", "projectroot"}
)
#: Fields an action needs (any one of the names: upstream's aliases), checked once the keys are known allowed.
REQUIRED: dict[str, tuple[tuple[str, ...], str, str]] = {
    "fs.patch": (("patch_b64",), "ERR_MISSING_PATCH_B64", "patch_b64 is required."),
    "fs.applyEdits": (("edits_b64",), "ERR_MISSING_EDITS_B64", "edits_b64 is required."),
    "fs.search": (("query", "q"), "ERR_MISSING_QUERY", "missing query; use query: <text>."),
    "fs.symbols": (("query", "q"), "ERR_MISSING_QUERY", "missing query; use query: <text>."),
    "fs.findDefinition": (("line",), "ERR_MISSING_LINE", "line is required (and column)."),
    "fs.readSymbol": (("symbol",), "ERR_MISSING_SYMBOL", "missing symbol; use symbol: <id> (fs.symbols lists them)."),
    "fs.editSymbol": (("body_b64",), "ERR_MISSING_BODY_B64", "body_b64 is required."),
    "fs.renameSymbol": (("new_name",), "ERR_MISSING_NEW_NAME", "new_name is required."),
    "fs.copy": (("path_to",), "ERR_MISSING_PATH_TO", "path_to is required."),
    "fs.move": (("path_to",), "ERR_MISSING_PATH_TO", "path_to is required."),
    "fs.rename": (("path_to",), "ERR_MISSING_PATH_TO", "path_to is required."),
}
MAX_LINES = 200
OTHER_LINES_CHARS = 64 * 1024
MAX_ID_CHARS = 1024
SHOWN = 60
#: The defaults of `stringsh.workspace.policy.Limits` (kept here so a front end's reader needs no policy).
DEFAULT_WRITE_BYTES = 8 * 1024 * 1024
DEFAULT_PATCH_BYTES = 1024 * 1024


def encoded_chars(size: int) -> int:
    """The base64 length of `size` bytes."""
    return 4 * ((size + 2) // 3)


class Caps(NamedTuple):
    """Size caps, from the policy: decoded bytes per payload field, characters per line and per block."""

    write_bytes: int = DEFAULT_WRITE_BYTES
    patch_bytes: int = DEFAULT_PATCH_BYTES

    @property
    def line(self) -> int:
        return len("content_b64: ") + encoded_chars(max(self.write_bytes, self.patch_bytes))

    @property
    def block(self) -> int:
        return self.line + OTHER_LINES_CHARS

    def payload(self, key: str) -> tuple[int, str]:
        """The decoded-size cap of a payload field and the policy key it comes from."""
        if key == "content_b64":
            return self.write_bytes, "limits.max_write_bytes"
        return self.patch_bytes, "limits.max_patch_bytes"


def invalid_summary(code: str, detail: str) -> str:
    return f"Invalid OPERATOR_CMD ({code}): {detail}"


def shown(text: str) -> str:
    """A line as quoted in a summary: one line, at most SHOWN characters."""
    text = CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace(TRUNCATED, ""))
    text = NOT_UTF8.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def clean(line: str) -> str:
    """The line as the rules read it: no LF, no trailing CR, no trailing spaces or tabs."""
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return line.rstrip(" \t")


def near_marker(line: str) -> str | None:
    """The marker an indented or crowded line names (`  OPERATOR_CMD`, `OPERATOR_CMD x`), else None."""
    stripped = line.lstrip(" \t>")
    for marker in (END, START):
        if stripped.startswith(marker) and (len(stripped) == len(marker) or stripped[len(marker)] in " \t"):
            return marker
    return None


@dataclass
class _Block:
    line: int
    lines: list[str]
    chars: int = 0
    error: tuple[str, str] | None = None


class BlockScanner:
    """Feed input lines; each call returns the blocks that ended on that line, in order."""

    def __init__(self, caps: Caps | None = None) -> None:
        self.caps = caps or Caps()
        self.number = 0
        self._block: _Block | None = None
        self._skipping = False

    @property
    def open(self) -> bool:
        """A block has started and not yet been answered, or a refused one's rest is being skipped."""
        return self._block is not None or self._skipping

    @property
    def skipping(self) -> bool:
        return self._skipping

    def feed(self, line: str) -> list[Command | Invalid]:
        self.number += 1
        text = clean(line)
        block = self._block
        if self._skipping:
            if text == START:
                self._skipping = False
                self._block = _Block(self.number, [])
            elif text == END:
                self._skipping = False
            return []
        if block is None:
            if text == START:
                self._block = _Block(self.number, [])
                return []
            marker = near_marker(text)
            if marker == START and text.lstrip(" \t>") == START:
                self._block = _Block(self.number, [], error=_marker_error(text, indented=True))
            elif marker is not None and text.lstrip(" \t>") != marker:
                code, detail = _marker_error(text, indented=False)
                return [Invalid(None, code, invalid_summary(code, detail), self.number)]
            return []
        if text == END or (block.error is not None and block.error[0] == "ERR_MARKER_INDENTED"
                           and text.lstrip(" \t>") == END):
            self._block = None
            return [self._close(block)]
        if text == START:
            self._block = _Block(self.number, [])
            return [self._refuse(block, ("ERR_NESTED_BLOCK", f"{START} started before {END}."))]
        marker = near_marker(text)
        if marker is not None and block.error is None:
            block.error = _marker_error(text, indented=text.lstrip(" \t>") == marker)
        block.lines.append(text)
        block.chars += len(text) + 1
        if TRUNCATED in text or len(text) > self.caps.line:
            return self._too_large(block, _long_line(text, self.caps))
        if len(block.lines) > MAX_LINES:
            return self._too_large(block, ("ERR_BLOCK_TOO_LARGE", f"too many lines (>{MAX_LINES})."))
        if block.chars > self.caps.block:
            return self._too_large(block, ("ERR_BLOCK_TOO_LARGE", f"too many characters (>{self.caps.block})."))
        return []

    def finish(self) -> list[Command | Invalid]:
        """End of input: a block still open is refused."""
        block, self._block, self._skipping = self._block, None, False
        if block is None:
            return []
        return [self._refuse(block, ("ERR_MISSING_END_MARKER", f"reached end of text without {END}."))]

    def _too_large(self, block: _Block, error: tuple[str, str]) -> list[Command | Invalid]:
        """Answer at once and skip the rest of the block unread (up to its END or the next START)."""
        self._block = None
        self._skipping = True
        return [self._refuse(block, error)]

    def _refuse(self, block: _Block, error: tuple[str, str]) -> Invalid:
        code, detail = block.error or error
        return Invalid(_find_id(block.lines), code, invalid_summary(code, detail), block.line)

    def _close(self, block: _Block) -> Command | Invalid:
        if block.error is not None:
            return self._refuse(block, block.error)
        outcome = validate(block.lines, self.caps)
        if isinstance(outcome, tuple):
            return self._refuse(block, outcome)
        fields, payloads = outcome.fields, outcome.payloads
        identity = fields.pop("id")
        action = fields.pop("action")
        del fields["version"]
        return Command(identity, action, fields, payloads, block.line)


def _marker_error(text: str, *, indented: bool) -> tuple[str, str]:
    marker = near_marker(text) or START
    if indented:
        return ("ERR_MARKER_INDENTED",
                f"marker line '{shown(text)}' is indented or quoted; {marker} must start the line.")
    return ("ERR_MARKER_NOT_ALONE", f"line '{shown(text)}' must be only {marker}")


def _long_line(text: str, caps: Caps) -> tuple[str, str]:
    match = KEY_VALUE.match(text)
    if match and match.group(1).endswith("_b64"):
        key = match.group(1)
        cap, name = caps.payload(key)
        return ("ERR_PAYLOAD_TOO_LARGE",
                f"field={key} is longer than {encoded_chars(cap)} characters, the base64 of {cap} bytes ({name}).")
    return ("ERR_BLOCK_TOO_LARGE", f"line longer than {caps.line} characters.")


def _find_id(lines: list[str]) -> str | None:
    """The block's id as written on its first `id:` line (indentation forgiven: only to echo it)."""
    for line in lines:
        match = KEY_VALUE.fullmatch(line.lstrip(" \t>"))
        if match and match.group(1) == "id":
            value = match.group(2) or ""
            if value and len(value) <= MAX_ID_CHARS and not CONTROL.search(value) and not NOT_UTF8.search(value):
                return value
            return None
    return None


@dataclass
class Checked:
    """A block that passed: its fields as written and its payloads decoded."""

    fields: dict[str, str]
    payloads: dict[str, str]


def validate(lines: list[str], caps: Caps) -> Checked | tuple[str, str]:
    """A block's lines (between the markers) checked against every rule: its fields and decoded payloads, or the
    first rule it breaks as (code, detail)."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            return ("ERR_EMPTY_LINE_IN_CMD", f"empty line inside {START}.")
        match = KEY_VALUE.fullmatch(line)
        if match is None:
            return ("ERR_NON_KEY_VALUE_LINE", f"line '{shown(line)}' is not key: value.")
        key, value = match.group(1), match.group(2) or ""
        if not value.isascii() and NOT_UTF8.search(value):  # str checks first: fast on a 100 KB payload
            return ("ERR_INVALID_UTF8", f"line '{shown(line)}' is not UTF-8.")
        bad = None if value.isprintable() else CONTROL.search(value)
        if bad is not None:
            if key == "content" and bad.group() == "\r":
                return ("ERR_CONTENT_HAS_NEWLINES", "content contains newline; use content_b64.")
            return ("ERR_CONTROL_CHARACTER", f"line '{shown(line)}' has control character U+{ord(bad.group()):04X}.")
        if key in fields:
            return ("ERR_DUPLICATE_KEY", f"key '{key}' appears more than once.")
        fields[key] = value
    missing = [name for name in ("version", "id", "action") if not fields.get(name)]
    if missing:
        return ("ERR_MISSING_REQUIRED_FIELDS", f"missing {', '.join(missing)}")
    if len(fields["id"]) > MAX_ID_CHARS:
        return ("ERR_INVALID_ID", f"id is longer than {MAX_ID_CHARS} characters.")
    if fields["version"] != "1":
        return ("ERR_UNSUPPORTED_VERSION", "version must be 1.")
    for key in fields:
        if key.lower() in WORKSPACE_KEYS:
            return ("ERR_WORKSPACE_FIELD", f"field '{key}' is not allowed: the workspace is the folder stringsh "
                                           "serves; give paths relative to its root.")
    action = fields["action"]
    shape = ACTIONS.get(action)
    if shape is None:
        return ("ERR_UNKNOWN_ACTION", f"Unknown action: {shown(action)}")
    has_path = "path" in fields
    if shape.needs_path and not fields.get("path"):
        return ("ERR_ACTION_REQUIRES_PATH", "fs.* actions require path.")
    if not shape.needs_path and has_path:
        prefix = action.split(".", 1)[0]
        return ("ERR_ACTION_FORBIDS_PATH", f"{prefix}.* actions must not include path.")
    allowed = {"version", "id", "action", *(("path",) if shape.needs_path else ()), *shape.keys}
    for key in fields:
        if key not in allowed:
            extra = sorted(allowed - {"version", "id", "action"})
            return ("ERR_UNKNOWN_KEY",
                    f"unknown key '{key}' for {action} (allowed: {', '.join(extra) if extra else 'none'}).")
    if action == "fs.write":
        if "content" in fields and "content_b64" in fields:
            return ("ERR_CONFLICTING_CONTENT", "give content or content_b64, not both.")
        if "content" not in fields and "content_b64" not in fields:
            return ("ERR_MISSING_WRITE_CONTENT", "fs.write requires content or content_b64.")
    needed = REQUIRED.get(action)
    if needed is not None and not any(fields.get(name) for name in needed[0]):
        return needed[1], needed[2]
    payloads: dict[str, str] = {}
    for key, value in fields.items():
        if key.endswith("_b64"):
            decoded = decode_payload(key, value, caps)
            if isinstance(decoded, tuple):
                return decoded
            payloads[key] = decoded
    return Checked(fields, payloads)


def decode_payload(key: str, value: str, caps: Caps) -> str | tuple[str, str]:
    """Strict base64 of strict UTF-8 within the cap, checked from the length before anything is decoded."""
    cap, name = caps.payload(key)
    if len(value) > encoded_chars(cap):
        return ("ERR_PAYLOAD_TOO_LARGE",
                f"field={key} decodes to more than {cap} bytes ({name}).")
    problem = base64_problem(value)
    if problem:
        return ("ERR_INVALID_BASE64", f"field={key} is not valid base64 ({problem}).")
    raw = binascii.a2b_base64(value)
    if len(raw) > cap:
        return ("ERR_PAYLOAD_TOO_LARGE", f"field={key} decodes to {len(raw)} bytes, more than {cap} ({name}).")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ("ERR_INVALID_UTF8",
                f"field={key} is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                "encode the text as UTF-8.")


def base64_problem(value: str) -> str:
    """Why `value` is not canonical padded base64, or "" when it is."""
    if BASE64_TEXT.fullmatch(value) is None:
        for offset, char in enumerate(value):
            if not (char.isascii() and (char.isalnum() or char in "+/=")):
                return f"character {char!r} at offset {offset}"
        return "'=' before the end"
    if len(value) % 4:
        return f"length {len(value)} is not a multiple of 4"
    raw = binascii.a2b_base64(value)
    if binascii.b2a_base64(raw, newline=False).decode("ascii") != value:
        return "not canonical: the last character carries extra bits"
    return ""
