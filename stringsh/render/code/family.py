"""The parents and siblings of a file's definitions, from one walk of the tree down to them.

tree-sitter answers `node.parent`, `prev_named_sibling` and `next_sibling` by descending from the root and counting
children along the way, so asking them of each of 300,000 definitions on one minified line (all children of one
node) costs the square of their number. One cursor walk instead visits only the nodes that hold a definition's start
and their siblings (up to the last definition), remembers the parents of those that hold one, and lists a parent's
children once when a definition asks for its siblings.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING

from stringsh.render.code.budget import WORK

if TYPE_CHECKING:
    from tree_sitter import Node

#: What a declaration declares one of: `const a = …, b = …` or a Go `type ( … )` group holds several definitions.
_DECLARATORS = frozenset({"variable_declarator", "type_spec", "type_alias", "init_declarator"})


class Family:
    """Parents and siblings of the nodes on the way from `root` to each of `nodes` (their siblings included)."""

    def __init__(self, root: Node, nodes: list[Node]) -> None:
        self._parents: dict[int, Node] = {}  # the nodes holding a definition's start, and listed children
        self._children: dict[int, tuple[list[Node], dict[int, int]]] = {}
        self._declarators: dict[int, int] = {}
        starts = sorted({node.start_byte for node in nodes})
        if not starts:
            return
        cursor = root.walk()
        stack = [root]
        more = cursor.goto_first_child()
        while more:
            node = cursor.node
            assert node is not None
            WORK["family"] += 1
            if node.start_byte > starts[-1]:
                break  # every node after it starts later still
            at = bisect_left(starts, node.start_byte)
            if at < len(starts) and starts[at] < node.end_byte:
                self._parents[node.id] = stack[-1]
                if cursor.goto_first_child():
                    stack.append(node)  # it holds a definition's start: go down
                    continue
            while not cursor.goto_next_sibling():
                if len(stack) == 1 or not cursor.goto_parent():
                    more = False
                    break
                stack.pop()

    def parent(self, node: Node) -> Node | None:
        return self._parents.get(node.id) if node.id in self._parents else node.parent

    def _family(self, node: Node) -> tuple[list[Node], int] | None:
        parent = self.parent(node)
        if parent is None:
            return None
        known = self._children.get(parent.id)
        if known is None:
            children = parent.children
            WORK["family"] += len(children)
            known = self._children[parent.id] = (children, {child.id: i for i, child in enumerate(children)})
            for child in children:
                self._parents.setdefault(child.id, parent)
        children, index = known
        return (children, index[node.id]) if node.id in index else None

    def prev_sibling(self, node: Node, named: bool = False) -> Node | None:
        """The sibling before `node` (the named one, with `named`: an anonymous run is walked by the one node after
        it)."""
        found = self._family(node)
        if found is None:
            return None
        children, i = found
        i -= 1
        while named and i >= 0 and not children[i].is_named:
            WORK["family"] += 1
            i -= 1
        return children[i] if i >= 0 else None

    def next_sibling(self, node: Node) -> Node | None:
        found = self._family(node)
        if found is None:
            return None
        children, i = found
        return children[i + 1] if i + 1 < len(children) else None

    def declarators(self, parent: Node) -> int:
        """How many declarators `parent` (a declaration) holds, counted once per parent."""
        count = self._declarators.get(parent.id)
        if count is None:
            count = self._declarators[parent.id] = sum(
                1 for n in parent.named_children if n.type in _DECLARATORS)
        return count
