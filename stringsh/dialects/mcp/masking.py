"""Where MCP output is masked, once, for every tool: each text block masked with line breaks kept, and a media
or blob block refused when its bytes hold a secret.

A media block is refused rather than masked: masking would corrupt an image or a recording, and a file whose
bytes carry a token (an SVG, a text file named `.png`, a PNG text chunk) is not something a client should get
raw when `read_text_file` would mask it. The bytes are checked as Latin-1 (every byte one character, so ASCII
tokens inside binary data are found) and, after a UTF-16 byte order mark, as UTF-16.
"""

from __future__ import annotations

import base64
import binascii
import codecs
from typing import TYPE_CHECKING

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from stringsh.errors import StringError
from stringsh.escapes import escape_controls

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def holds_secret(ws: Workspace, data: bytes) -> bool:
    """Whether the bytes, read as text, hold anything the workspace's redactor masks."""
    finds = ws.redactor.finds_secret
    if finds(data.decode("latin-1")):
        return True
    return data.startswith(UTF16_BOMS) and finds(data.decode("utf-16", "replace"))


def secret_media() -> StringError:
    return StringError("SECRET_DENIED", "The file's bytes hold a secret (a token or a private key); its content "
                       "is not sent", "read_text_file shows a text file with its secrets masked.")


def _blob_secret(ws: Workspace, encoded: str) -> bool:
    try:
        data = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        return True  # not base64: nothing can be checked, so nothing is sent
    return holds_secret(ws, data)


def shown(ws: Workspace, text: str) -> str:
    """A text block as the client gets it: masked, then made safe for a terminal (`escapes.escape_controls`:
    ESC, BEL, C1, DEL and a bare CR as `\\x1b`-style text, docs/security.md)."""
    return escape_controls(ws.redact_lines(text))


def masked_result(ws: Workspace, result: CallToolResult) -> CallToolResult:
    """`result` with every text masked (and escaped: `shown`); a refusal (SECRET_DENIED) in place of a media or
    blob block holding a secret."""
    blocks: list[ContentBlock] = []
    for block in result.content:
        if isinstance(block, TextContent):
            block = block.model_copy(update={"text": shown(ws, block.text)})
        elif isinstance(block, ImageContent | AudioContent):
            if _blob_secret(ws, block.data):
                raise secret_media()
        elif isinstance(block, EmbeddedResource):
            resource = block.resource
            if isinstance(resource, BlobResourceContents) and _blob_secret(ws, resource.blob):
                raise secret_media()
            if isinstance(resource, TextResourceContents):
                block = block.model_copy(update={"resource": resource.model_copy(
                    update={"text": shown(ws, resource.text)})})
        blocks.append(block)
    return result.model_copy(update={"content": blocks})
