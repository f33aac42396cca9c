"""rich's Markdown as people read it in stringsh: a code line is cut at the width with a mark, never wrapped
(wrapped code misleads about where a line ends), and with colour off inline code keeps its backticks, its only
mark. Its own module: rich's markdown pulls in pygments, loaded on the first document, not at start-up."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.markdown import CodeBlock, Markdown, MarkdownElement
from rich.syntax import Syntax

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult

#: Where a code line longer than the screen is cut.
CUT_MARK = "…"


class _CutCodeBlock(CodeBlock):
    """A code block whose lines are cut at the width, each with `CUT_MARK`."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.cells import cell_len, set_cell_size

        room = max(options.max_width - 2, 2)  # the block's padding of one column each side
        lines = str(self.text).rstrip().split("\n")
        cut = [line if cell_len(line) <= room else set_cell_size(line, room - 1) + CUT_MARK for line in lines]
        yield Syntax("\n".join(cut), self.lexer_name, theme=self.theme, word_wrap=False, padding=1)


class PeopleMarkdown(Markdown):
    """rich's Markdown with code lines cut, not wrapped, and inline code backticked where colour is off."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements, "fence": _CutCodeBlock, "code_block": _CutCodeBlock,
    }

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if console.no_color or console.color_system is None:
            for token in self.parsed:
                for child in token.children or ():
                    if child.type == "code_inline" and not child.meta.get("marked"):
                        child.content, child.meta = f"`{child.content}`", {**child.meta, "marked": True}
        yield from super().__rich_console__(console, options)
