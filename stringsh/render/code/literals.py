"""Which lines of a source text are not code at their level: the lines a symbol edit must leave as the caller sent
them.

A line that starts inside a string (Python's triple-quoted strings, JavaScript template literals, Rust's
`r#"…"#`, Go's raw strings, Java's text blocks), a heredoc or a block comment holds bytes of a value or a
terminator that must stay where it is, and a C preprocessor directive (`#ifdef` at column 0 inside a method, with
its backslash continuations) is not indented with the code around it. The parse tree says which lines those are, in
every grammar alike: node types naming strings, comments, heredocs and regexes, and the directive tokens (`#ifdef`,
`#define`, `#pragma`, …). Pure: it parses the text it is given and reads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.render.code.budget import Budget
from stringsh.render.code.languages import grammar

if TYPE_CHECKING:
    from tree_sitter import Node

#: Grammars that read indentation: an edit is parsed re-indented there to find its strings (no string's end depends
#: on its line's indentation in them), and as sent elsewhere (a heredoc's terminator may).
INDENTED = frozenset({"python"})
#: Words in node types of literals whose inside is not code (`string_literal`, `template_string`, `block_comment`,
#: `heredoc_body`, `raw_string_literal`, …).
_WORDS = ("string", "comment", "heredoc", "regex")
#: Node types holding such words that are code (the lines between adjacent strings), and literals without them
#: (Ruby's backticks and `%i[…]`, TypeScript's template literal types, Java's text blocks in older grammars).
_CODE = frozenset({"concatenated_string"})
_LITERALS = frozenset({"subshell", "symbol_array", "template_literal_type", "text_block"})


def _literal(kind: str) -> bool:
    return kind in _LITERALS or (kind not in _CODE and any(word in kind for word in _WORDS))


def _directive(kind: str) -> bool:
    """A preprocessor directive's token: `#ifdef`, `#endif`, `#define`, … or an unknown one (`#pragma`)."""
    return kind == "preproc_directive" or (kind[:1] == "#" and kind[1:2].isalpha())


def _inside(node: Node, data: bytes) -> range:
    """The rows whose line starts inside a literal: those after its first, up to its last unless it ends at that
    line's start. A heredoc body or Ruby `=begin` comment starting at a line's start holds that line too."""
    start, end = node.start_point, node.end_point
    first = start.row + 1
    if start.column == 0 and ("heredoc_body" in node.type or data.startswith(b"=begin", node.start_byte)):
        first = start.row
    return range(first, end.row + (1 if end.column else 0))


def _logical_line(node: Node, data: bytes, last: int) -> list[int]:
    """The rows of a directive: its own and those its trailing backslashes continue it onto (before `last`)."""
    row = node.start_point.row
    rows = [row]
    newline = data.find(b"\n", node.end_byte)
    while newline > 0 and row + 1 < last:
        end = newline - 1 if data[newline - 1] == 13 else newline  # before a CR
        if data[end - 1 : end] != b"\\":
            break
        row += 1
        rows.append(row)
        newline = data.find(b"\n", newline + 1)
    return rows


def verbatim_rows(text: str, language: str, first: int, last: int) -> frozenset[int]:
    """The 0-based rows in [first, last) of `text` that start inside a string, heredoc, template literal, regex or
    comment, or hold a preprocessor directive: the rest carry code. Only the part of the tree over those rows is
    walked. A parse past its time budget finds none."""
    data = text.encode("utf-8", "surrogatepass")
    tree = Budget(len(data)).parse(grammar(language).parser(), data)
    if tree is None or first >= last:
        return frozenset()
    rows: set[int] = set()
    cursor = tree.walk()
    point = (first, 0)
    while True:
        node = cursor.node
        if node is not None:
            if _directive(node.type):
                rows.update(_logical_line(node, data, last))
            elif _literal(node.type) and node.start_point.row != node.end_point.row:
                rows.update(_inside(node, data))
            elif cursor.goto_first_child_for_point(point) is not None:
                if cursor.node is not None and cursor.node.start_point.row < last:
                    continue  # into the first child over the rows
                cursor.goto_parent()
        while not (cursor.goto_next_sibling() and cursor.node is not None and cursor.node.start_point.row < last):
            if not cursor.goto_parent():
                return frozenset(row for row in rows if first <= row < last)
