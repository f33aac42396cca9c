"""Rendering for people: rich markdown in small chunks; no escape codes without colour."""

from __future__ import annotations

from stringsh.render.people import Links, chunks, render_markdown


def test_plain_output_has_no_escape_codes_and_strips_controls() -> None:
    out = render_markdown("# Title\n\nSome *text*\x1b[31m red\x07.\n\n```py\nx = 1\n```\n", color=False, width=60)
    assert "\x1b" not in out and "\x07" not in out
    assert "Title" in out and "x = 1" in out


def test_colour_output_uses_ansi() -> None:
    assert "\x1b[" in render_markdown("# Title\n\n**bold**\n", color=True)


def test_chunks_split_at_blank_lines_outside_fences() -> None:
    text = "\n".join(["para"] * 5 + [""] + ["```"] + [""] * 3 + ["```"] + [""] + ["end"])
    pieces = chunks(text, size=3)
    assert "\n".join(pieces) == text
    assert all(piece.count("```") in (0, 2) for piece in pieces)
    assert len(pieces) >= 2


def test_inline_code_is_backticked_only_where_colour_is_off() -> None:
    source = "Run `rg -uuu` here.\n"
    assert render_markdown(source, color=False, width=60).split("\n")[0].rstrip() == "Run `rg -uuu` here."
    coloured = render_markdown(source, color=True, width=60)
    assert "rg -uuu" in coloured and "`" not in coloured


def test_links_read_as_their_text_and_where_they_lead() -> None:
    source = ("See [#892][@link-1] and [docs][@docs], [WSGI], [the spec][spec]; [![CI][@ci]](https://ci.example/x) "
              "![logo][@logo] `[not][@link-1]` [unknown][@nowhere].\n")
    links = Links({"link-1": "https://github.com/o/r/issues/892", "docs": "docs/a b.md", "logo": "img/l.png"},
                  {"wsgi": "https://wsgi.example/", "Spec": "https://spec.example/"})
    text = " ".join(render_markdown(source, color=False, width=400, links=links).split())
    assert text == ("See #892 (https://github.com/o/r/issues/892) and docs (docs/a%20b.md), WSGI "
                    "(https://wsgi.example/), the spec (https://spec.example/); CI (https://ci.example/x) 🌆 logo "
                    "`[not][@link-1]` unknown.")


def test_without_targets_a_link_is_its_label() -> None:
    text = render_markdown("See [#892][@link-1] and [x] there.\n", color=False, width=60)
    assert text.split("\n")[0].rstrip() == "See #892 and [x] there."
