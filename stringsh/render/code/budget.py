"""Bounds on indexing one source file, so a small hostile file costs no more than a large ordinary one.

A parse and the walk finding its definitions share a time budget (`PARSE_SECONDS` and more per MiB, checked from the
parser's progress callback, which stops the C code within a few tokens, and every few thousand nodes of the walk); a
file past it opens as text with a `[syntax]` note and no symbols. Definitions nested more than `MAX_NESTING` deep
are not indexed (a qualified name has at most that many parts), and the qualified names of one file may hold at most
`QUALIFIED_PER_BYTE` characters per byte of it (plus `QUALIFIED_FLOOR`): a thousand methods of a class whose name is
a megabyte long would otherwise make a gigabyte of names. `WORK` counts what indexing looked at, so tests prove
linear growth by counting, never by the clock.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Query, Tree

#: Seconds one file's parse and definition walk may take together, plus PARSE_SECONDS_PER_MIB for each MiB of it
#: (an ordinary 2 MiB JavaScript file parses in about one second, three on a busy machine).
PARSE_SECONDS = 5.0
PARSE_SECONDS_PER_MIB = 2.0
#: Definitions nested deeper than this are not indexed; their lines stay inside the symbol that holds them.
MAX_NESTING = 64
#: Characters of qualified names one index may hold per byte of its file, and at least.
QUALIFIED_PER_BYTE = 4
QUALIFIED_FLOOR = 1 << 20
#: The bytes handed to the parser per read.
_CHUNK = 1 << 16

#: Work done by indexing, by kind: "parses" (files parsed), "queries" (definition queries run), "walked" (nodes of
#: erroneous parts walked here), "scanned" (bytes the look-backs read), "qualified" (characters of qualified names
#: built). Only ever added to; tests read the difference around a call.
WORK: Counter[str] = Counter()


class Budget:
    """One file's time budget: `parse` and `captures` return None once it is spent (`exceeded` says so)."""

    def __init__(self, size: int) -> None:
        self.seconds = PARSE_SECONDS + PARSE_SECONDS_PER_MIB * size / (1 << 20)
        self.deadline = time.monotonic() + self.seconds
        self.exceeded = False

    def _spent(self, *_progress: object) -> bool:
        if time.monotonic() >= self.deadline:
            self.exceeded = True
        return self.exceeded

    def parse(self, parser: Parser, data: bytes) -> Tree | None:
        """The tree of `data`, None when the budget ran out first (the parser is reset for its next file)."""
        WORK["parses"] += 1
        try:
            return parser.parse(lambda offset, _point: data[offset : offset + _CHUNK], progress_callback=self._spent)
        except ValueError:  # the progress callback stopped it: "Parsing failed"
            parser.reset()
            self.exceeded = True
            return None

    def captures(self, query: Query, kinds: frozenset[str], root: Node, capture: str = "def") -> list[Node] | None:
        """The nodes `query` captures as `capture` (nodes of the types `kinds`: the definitions, or the identifiers
        for `/symbols --refs`), None when the budget ran out first. The query runs in C on each part of the tree
        without errors; error nodes are walked here, a child at a time: a query cursor pays for a flat run of error
        tokens (thousands of `[`) with the square of their number."""
        from tree_sitter import QueryCursor

        if self._spent():
            return None
        found: list[Node] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if not node.has_error:
                WORK["queries"] += 1
                found += QueryCursor(query).captures(node).get(capture, [])
                continue
            if node.is_named and node.type in kinds:
                found.append(node)
            cursor = node.walk()
            more = cursor.goto_first_child()
            while more:
                WORK["walked"] += 1
                child = cursor.node
                if child is not None and (child.child_count or (child.is_named and child.type in kinds)):
                    stack.append(child)
                more = cursor.goto_next_sibling()
                if not WORK["walked"] % 4096 and self._spent():
                    return None
        return found


def qualified_budget(size: int) -> int:
    """The characters of qualified names an index of a `size`-byte file may hold."""
    return QUALIFIED_PER_BYTE * size + QUALIFIED_FLOOR
