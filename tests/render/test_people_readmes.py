"""Three real READMEs (excerpts of cobra, ripgrep and flask, readmes/SOURCES.txt) as a person sees them in the
REPL at 80 columns with colour off, side by side with rich's own rendering of the same markdown: the same words, but
links read as their text and where they lead (never an agent's `@link-N`), badges as their alt text, tables wrap
inside their cells, code lines are cut with a mark instead of wrapped, and inline code keeps its backticks. The
screens are kept as text (screens/) and every reply must match its screen exactly."""

from __future__ import annotations

import io
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console
from rich.markdown import Markdown

from stringsh.dispatcher import Dispatcher
from stringsh.render.peoplemarkdown import CUT_MARK
from stringsh.render.replies import print_reply
from stringsh.repl.sources import Sources

HERE = Path(__file__).parent
READMES = ["cobra.md", "ripgrep.md", "flask.md"]
WIDTH = 80


def console(buffer: io.StringIO, width: int = WIDTH) -> Console:
    return Console(file=buffer, width=width, force_terminal=False, color_system=None, no_color=True)


def trimmed(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n"))


def people_screen(ws: Path, name: str, width: int = WIDTH) -> str:
    """What the REPL prints for `/open name`: the reply through the people's rendering, with the open document's
    links as the REPL's completion sources know them."""
    shutil.copy(HERE / "readmes" / name, ws / name)
    dispatcher = Dispatcher(ws, no_sandbox=True)
    try:
        reply = dispatcher.execute(f"/open {name}")
        buffer = io.StringIO()
        print_reply(console(buffer, width), reply.text, Sources(dispatcher, "main").links(), echo=False)
    finally:
        dispatcher.close()
    return trimmed(buffer.getvalue())


def rich_screen(name: str) -> str:
    """rich's own rendering of the README, the reference a person already knows."""
    buffer = io.StringIO()
    console(buffer).print(Markdown((HERE / "readmes" / name).read_text(), hyperlinks=False))
    return trimmed(buffer.getvalue())


def words(screen: str) -> Counter[str]:
    """The words a screen shows, leaving out link targets and the pieces of them rich cuts at a line's or a
    cell's end (anything with a `/`, `?`, `=` or `…`)."""
    kept = [token for token in screen.split() if not re.search(r"[/?=…]", token)]
    return Counter(re.findall(r"[A-Za-z][A-Za-z'’-]{2,}", " ".join(kept)))  # a 2-letter piece may be a cut URL's tail


@pytest.mark.parametrize("name", READMES)
def test_a_readme_reads_as_its_kept_screen(ws: Path, name: str) -> None:
    kept = (HERE / "screens" / f"{Path(name).stem}.{WIDTH}.txt").read_text()
    assert people_screen(ws, name) == kept


@pytest.mark.parametrize("name", READMES)
def test_a_readme_shows_the_words_rich_shows_with_links_read_as_text(ws: Path, name: str) -> None:
    ours = people_screen(ws, name)
    missing = words(rich_screen(name)) - words(ours)
    assert not missing, missing
    assert "@link" not in ours and "][@" not in ours and "][" not in ours
    assert all(len(line) <= WIDTH for line in ours.split("\n"))


@pytest.mark.parametrize("width", [WIDTH, 40])
@pytest.mark.parametrize("name", READMES)
def test_code_lines_are_cut_with_a_mark_never_wrapped(ws: Path, name: str, width: int) -> None:
    screen_lines = [line.strip() for line in people_screen(ws, name, width).split("\n")]
    source = (HERE / "readmes" / name).read_text().split("\n")
    fence = [index for index, line in enumerate(source) if line.startswith("```")]
    code = [line.strip() for start, end in zip(fence[::2], fence[1::2], strict=True)
            for line in source[start + 1 : end]]
    cut = 0
    for line in filter(None, code):
        if line not in screen_lines:
            assert any(shown.endswith(CUT_MARK) and line.startswith(shown[: -len(CUT_MARK)].rstrip())
                       for shown in screen_lines), line
            cut += 1
    assert code and (cut > 0) == any(len(line) > width - 2 for line in code)


def test_links_lead_where_the_document_says(ws: Path) -> None:
    screen = people_screen(ws, "cobra.md")
    assert "such as Kubernetes (https://kubernetes.io/)," in " ".join(screen.split())
    assert "Go Reference (https://pkg.go.dev/github.com/spf13/cobra)" in " ".join(screen.split())
    flask = " ".join(people_screen(ws, "flask.md").split())
    assert "is a lightweight WSGI (https://wsgi.readthedocs.io/) web application" in flask
    assert "please donate today (https://palletsprojects.com/donate)." in flask


def test_inline_code_keeps_its_backticks_with_colour_off(ws: Path) -> None:
    screen = " ".join(people_screen(ws, "ripgrep.md").split())
    assert "use `rg -uuu`.)" in screen
