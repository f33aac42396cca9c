"""A menu unfolds above the page the first time a topic sees its file (String's `— first view`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import script_replies


def make_site(ws: Path) -> None:
    (ws / "nav").mkdir()
    entries = "".join(f"[@p{n} Page {n}](../page{n}.md)\n" for n in range(1, 23))
    (ws / "nav" / "main.md").write_text(entries)
    (ws / "nav" / "side.md").write_text("[@home Home](../a.md)\n")
    (ws / "nav" / "none.md").write_text("no entries here\n")
    (ws / "a.md").write_text("[!nav:main](nav/main.md)\n[!nav:gone](nav/missing.md)\n# A\n\ntext a\n")
    (ws / "b.md").write_text("[!nav:side](nav/side.md)\n[!nav:main](nav/main.md)\n[!nav:none](nav/none.md)\n# B\n")


def test_each_menu_file_unfolds_once_per_topic(ws: Path) -> None:
    make_site(ws)
    out = script_replies(ws, "/open a.md\n/refresh\n/open b.md\n/back\n/open a.md#a\n")
    main = "".join(f"[Page {n}][@main.p{n}]\n" for n in range(1, 21))
    assert out[0] == (
        "re: /open a.md\nOpened a.md\n---\n"
        f"[nav] main — first view\n{main}... 2 more — /nav main\n"
        "[nav] gone — /nav <name>\n\n"  # an unreadable menu file stays folded
        "# A\n\ntext a"
    )
    assert out[1] == "re: /refresh\nRefreshed a.md\n---\n[nav] main, gone — /nav <name>\n\n# A\n\ntext a"
    # another page: its new menu files unfold (an empty one says so), the shared one does not
    assert out[2] == (
        "re: /open b.md\nOpened b.md\n---\n"
        "[nav] side — first view\n[Home][@side.home]\n"
        "[nav] none — first view\nMenu none is empty.\n"
        "[nav] main — /nav <name>\n\n# B"
    )
    assert out[3] == "re: /back\nBack to a.md\n---\n[nav] main, gone — /nav <name>\n\n# A\n\ntext a"
    assert out[4] == "re: /open a.md#a\nOpened a.md#a\n---\n# A\n\ntext a"  # a block shows no hints

