"""A markdown document in memory: its text, lines and index, block extraction and byte-faithful block splicing."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from stringsh.render.cache import IndexCache
from stringsh.render.index import Block, DocIndex, build_index, update_index
from stringsh.render.kinds import MARKDOWN_SUFFIXES, is_markdown
from stringsh.render.record import Record

__all__ = ["MARKDOWN_SUFFIXES", "Document", "is_markdown"]


class Document(Record):
    """Source text plus its index. `lines` are split on `\\n` only and keep any `\\r`."""

    _fields = ("text", "sha256", "index")

    def __init__(self, text: str, sha256: str = "", index: DocIndex | None = None) -> None:
        self.text = text
        self.sha256 = sha256
        self.index = index if index is not None else DocIndex()

    @classmethod
    def parse(cls, text: str, sha256: str = "", cache: IndexCache | None = None) -> Document:
        if not sha256:
            import hashlib  # (not when the caller has the hash: importing it loads OpenSSL)

            sha256 = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        doc = cls(text, sha256)
        index = cache.lookup(sha256) if cache is not None else None
        if index is None:
            index = build_index(text, doc.lines)
            if cache is not None:
                cache.put(sha256, index, len(text))
        doc.index = index
        return doc

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def prefix_lines(self, count: int) -> tuple[list[str], bool]:
        """The first `count` lines (all of them when the text is split already) and whether that is every line.

        Rendering the start of a 10 MB document needs its first few hundred lines, not a split of the whole text.
        """
        if "lines" in self.__dict__:
            return self.lines, True
        text, end = self.text, -1
        for _ in range(max(count, 1)):
            end = text.find("\n", end + 1)
            if end < 0:
                return self.lines, True
        return text[:end].split("\n"), False

    def resolve(self, block_id: str) -> Block | None:
        return self.index.resolve(block_id)

    def source_lines(self, start: int, end: int) -> list[str]:
        """Lines without their line endings."""
        return [line.rstrip("\r") for line in self.lines[start:end]]

    def block_source(self, block: Block) -> str:
        """A block's text as String extracts it: markers dropped, heading line kept, then trimmed."""
        return "\n".join(self.source_lines(block.start, block.end)).strip()

    def newline(self) -> str:
        """The file's line ending: that of its first line."""
        first = self.text.find("\n")
        return "\r\n" if first > 0 and self.text[first - 1] == "\r" else "\n"

    def region_newline(self, start: int, end: int) -> str:
        """The line ending new lines get: that of the replaced region's last line, else of the line before it,
        else the file's (so a mixed-ending file keeps each region's own style)."""
        lines = self.lines
        candidates = ([end - 1] if end > start else []) + [start - 1]
        for i in candidates:
            if 0 <= i < len(lines) - 1:  # a line followed by a line break
                return "\r\n" if lines[i].endswith("\r") else "\n"
        return self.newline()

    def splice_block(self, block: Block, body: str) -> str:
        """The full new text with a block's content replaced and every byte outside it unchanged.

        Markers and the heading line stay, and so do the blank lines between them and the old content;
        the body's line endings follow the file's.
        """
        start, end = self.block_range(block)
        return self.splice_lines(start, end, body)

    def splice_lines(self, start: int, end: int, body: str) -> str:
        """Replace lines[start:end] by the body's lines (one final newline of the body is not a line)."""
        return "\n".join(self.spliced(start, end, body)[0])

    def block_range(self, block: Block) -> tuple[int, int]:
        """The lines a block edit replaces: the content without the heading and surrounding blank lines."""
        lines = self.lines
        start = block.start + block.head
        end = min(block.end, len(lines))
        while start < end and not lines[start].strip():
            start += 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        return start, end

    def edit_block(self, block: Block, body: str) -> Document:
        """The document after a block edit, its index updated around the block instead of rebuilt."""
        start, end = self.block_range(block)
        new_lines, count = self.spliced(start, end, body)
        text = "\n".join(new_lines)
        doc = Document(text)
        doc.__dict__["lines"] = new_lines
        index = update_index(self.index, new_lines, start, end, count)
        doc.index = index if index is not None else build_index(text, new_lines)
        return doc

    def spliced(self, start: int, end: int, body: str) -> tuple[list[str], int]:
        """The new lines after replacing lines[start:end] by the body, and how many lines the body became."""
        lines = self.lines
        cr = "\r" if self.region_newline(start, end) == "\r\n" else ""
        body = body.replace("\r\n", "\n")
        if body.endswith("\n"):
            body = body[:-1]
        new = [line + cr for line in body.split("\n")] if body else []
        if new and cr and end == len(lines):
            new[-1] = new[-1][: -len(cr)]  # the file's last line has no line ending
        if not new and end == len(lines) and 0 < start < end:
            return [*lines[:start], ""], 0  # the kept line before keeps its own line ending
        return lines[:start] + new + lines[end:], len(new)


class LazyDocument(Document):
    """A Document over bytes known to be UTF-8 (a signed cache entry says so), decoded on first use of `text`.

    Until then `prefix_lines` decodes only the lines asked for: a repeat `/open` of a 10 MB page renders its first
    window without decoding the rest. Everything else (`text`, `lines`, equality) sees the whole decoded text.

    With `load`, `raw` is read on first use too: `head` holds the file's first bytes (a file the cache knew by its
    identity, render/cache.py), and `load` returns the whole bytes, verified to hash to `sha256` (it raises when
    they do not: no byte of a change is ever shown as this view).
    """

    def __init__(self, raw: bytes, sha256: str, index: DocIndex | None = None,
                 load: Callable[[], bytes] | None = None) -> None:
        if load is None:
            self.raw = raw
        else:
            self.head = raw
            self.load = load
        self.sha256 = sha256
        self.index = index if index is not None else DocIndex()

    def __getattr__(self, name: str) -> Any:
        if name == "text":
            text = self.__dict__["text"] = self.raw.decode("utf-8")
            return text
        if name == "raw" and "load" in self.__dict__:
            try:
                raw = self.__dict__["raw"] = self.__dict__["load"]()
            except BaseException:
                self.__dict__["changed"] = True  # the file is not what was shown: the view is stale (view.py)
                raise
            return raw
        raise AttributeError(name)

    def prefix_lines(self, count: int) -> tuple[list[str], bool]:
        if "text" in self.__dict__ or "lines" in self.__dict__:
            return super().prefix_lines(count)
        loaded = "raw" in self.__dict__
        raw, end = self.raw if loaded else self.head, -1
        for _ in range(max(count, 1)):
            end = raw.find(b"\n", end + 1)
            if end < 0:
                if loaded:
                    return self.lines, True
                self.__getattr__("raw")  # the first bytes ran out: read them all
                return self.prefix_lines(count)
        return raw[:end].decode("utf-8").split("\n"), False
