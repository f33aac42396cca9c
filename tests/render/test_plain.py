"""The agent rendering: String's renderer steps, windowing with a read-on point, includes and their failures."""

from __future__ import annotations

import json
from pathlib import Path

from stringsh.render.document import Document
from stringsh.render.plain import cut_hint, render_block, render_document, render_text, required_env

DOC = """---
title: Demo
requires: [API_KEY, REGION]
---
[!nav:main](./nav/main.md)
[!nav:api](./nav/api.md)
[!requirements](./setup.md)
# Demo

See [the docs][docs] and [@home Home](./index.md), [GitHub](https://github.com), [GitHub](https://github.com/x),
[a very long label here](https://example.com/a), [short](./a.md) and `[code](https://in.code)`.
![logo](https://img.example.com/logo.png)

[docs]: https://example.com/docs

<!-- #tip -->
Tip text.
<!-- /tip -->

```act.deploy
POST https://api.example.com/deploy
```

```act.deploy.response
Deployed
```

````md
```act.inner
still code
```
[GitHub](https://github.com) <!-- #fake -->
````
"""


def test_whole_document_follows_strings_steps() -> None:
    doc = Document.parse(DOC)
    rendered = render_document(doc, missing_env=["REGION"])
    assert rendered.text == (
        "[nav] main, api — /nav <name>\n"
        "[actions] deploy  ·  /act --help (all)  ·  /act.<name> --help\n"
        "[!] Missing required env: $REGION\n"
        '    Set: /set $REGION="..."\n'
        "    Setup: /open ./setup.md\n"
        "\n"
        "# Demo\n"
        "\n"
        "See [the docs][@the-docs] and [Home][@home], [GitHub][@github], [GitHub][@github-2],\n"
        "[a very long label here][@link-1], [short](./a.md) and `[code](https://in.code)`.\n"
        "![logo][@logo]\n"
        "\n"
        "\n"
        "Tip text.\n"
        "\n"
        "\n"
        "\n"
        "````md\n"
        "```act.inner\n"
        "still code\n"
        "```\n"
        "[GitHub](https://github.com) <!-- #fake -->\n"
        "````"
    )
    assert rendered.shortcuts == {
        "the-docs": "https://example.com/docs",
        "github": "https://github.com",
        "github-2": "https://github.com/x",
        "link-1": "https://example.com/a",
        "logo": "https://img.example.com/logo.png",
    }
    assert rendered.next_line is None
    assert required_env(doc) == ["API_KEY", "REGION"]


def test_block_rendering_has_no_hints() -> None:
    doc = Document.parse(DOC)
    assert render_block(doc, doc.resolve("tip")).text == "Tip text."
    assert render_block(doc, doc.resolve("demo")).text.startswith("# Demo\n\nSee [the docs][@the-docs]")


def test_budget_cuts_and_says_where_to_read_on() -> None:
    text = "".join(f"line {i}\n" for i in range(1, 101))
    doc = Document.parse(text)
    first = render_document(doc, budget=10)
    assert first.text.split("\n") == [f"line {i}" for i in range(1, 11)]
    assert first.next_line == 10
    assert cut_hint("big.md", first, doc.index.line_count, 10) == (
        "[cut] Output limit of 10 lines reached; the rest starts at source line 11 of 100. "
        "Read on: /open big.md --from 11"
    )
    second = render_document(doc, start=first.next_line, budget=10)
    assert second.text.split("\n")[0] == "line 11"
    last = render_document(doc, start=95, budget=10)
    assert last.next_line is None and last.text.endswith("line 100")


def test_window_starting_inside_a_fence_keeps_it_verbatim() -> None:
    doc = Document.parse("# T\n\n```act.x\nGET https://a\n```\n\n```\n[l](https://x.y) <!-- #m -->\n```\n")
    assert render_document(doc, start=3).text == "```\n[l](https://x.y) <!-- #m -->\n```"
    assert render_document(doc, start=7).text == "[l](https://x.y) <!-- #m -->\n```"


def test_includes_expand_and_fail_visibly() -> None:
    parts = {
        "tips.md": "<!-- #tip -->\nIncluded [site](https://example.com).\n<!-- /tip -->\n",
        "loop.md": "# Loop\n\n[!include:loop](./loop.md)\n",
    }

    def load(path: str, base: str) -> tuple[str, Document]:
        name = path.removeprefix("./")
        if name not in parts:
            raise FileNotFoundError(f"File not found: {name}")
        return name, Document.parse(parts[name])

    doc = Document.parse(
        "# Main\n\n[!include:tip](./tips.md)\n[!include:nope](./tips.md)\n[!include:x](./missing.md)\n"
        "[!include:loop](./loop.md)\n`[!include:tip](./tips.md)`\n"
    )
    text = render_document(doc, load_include=load, identity="main.md").text
    assert text == (
        "# Main\n\n"
        "Included [site][@site].\n"
        "⚠ Include failed: Block #nope not found in ./tips.md\n"
        "Supported formats:\n"
        "  1. Markers: <!-- #nope --> ... <!-- /nope -->\n"
        "  2. Explicit ID: ## Heading {#nope}\n"
        '  3. Heading slug: ## Heading Text (where slug matches "nope")\n'
        "⚠ Include failed: ./missing.md - File not found: missing.md\n"
        "# Loop\n\n"
        "⚠ Circular include detected: ./loop.md (already included in this chain)\n"
        "`[!include:tip](./tips.md)`"
    )


def test_text_files_are_shown_as_they_are() -> None:
    lines = ["a [x](https://y)\r", "<!-- #m -->\r", ""]
    assert render_text(lines).text == "a [x](https://y)\n<!-- #m -->"


def test_every_commonmark_example_opens_and_renders() -> None:
    examples = json.loads((Path(__file__).parent / "data" / "commonmark-examples.json").read_text(encoding="utf-8"))
    for example in examples:
        doc = Document.parse(example["markdown"])
        render_document(doc)
        for _line, _end, _level, _text, explicit, slug in doc.index.headings:
            block = doc.resolve(explicit or slug) if (explicit or slug) else None
            if block is not None:
                render_block(doc, block)
                doc.splice_block(block, "new\n")


def test_a_huge_line_is_cut_by_characters() -> None:
    from stringsh.render.plain import MAX_CHARS

    lines = ["x" * (MAX_CHARS * 3), "next", ""]
    first = render_text(lines, budget=10)
    assert first.text == "x" * MAX_CHARS + f" … (line cut at {MAX_CHARS} characters)"
    assert first.next_line == 1 and first.cut_by == "characters"
    assert cut_hint("min.js", first, 2, 10) == (
        f"[cut] Output limit of {MAX_CHARS} characters reached; the rest starts at source line 2 of 2. "
        "Read on: /open min.js --from 2"
    )
    many = render_text(["y" * 1000] * 500, budget=400)
    assert len(many.text.split("\n")) == 99 and many.next_line == 99
    assert render_text(lines, budget=0).next_line is None


def test_window_past_a_long_removed_fence_falls_back_to_the_whole_text() -> None:
    text = "```act.big\nGET https://x\n" + "  f: string\n" * 400 + "```\n\nafter one\n\nafter two\n\nafter three\n"
    doc = Document.parse(text)
    rendered = render_document(doc, start=1, budget=2)
    assert rendered.text == "after one"
    assert rendered.next_line == 405
    assert render_document(Document.parse(text), start=1, budget=0).text == "after one\n\nafter two\n\nafter three"


def test_prefix_lines_match_a_full_split() -> None:
    for text in ["", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "x\r\ny\r\n"]:
        for count in range(5):
            got, complete = Document(text).prefix_lines(count)
            full = text.split("\n")
            assert got == (full if complete else full[: max(count, 1)])


def test_included_links_continue_the_shortcut_numbering() -> None:
    part = Document.parse(
        "<!-- #p -->\n[GitHub](https://github.com/other) and [a long one here!](https://b.example)\n<!-- /p -->\n"
    )
    doc = Document.parse("[GitHub](https://github.com) [x y z?](https://a.example)\n\n[!include:p](./part.md)\n")
    rendered = render_document(doc, load_include=lambda path, base: ("part.md", part), identity="main.md")
    assert rendered.text == (
        "[GitHub][@github] [x y z?][@link-1]\n\n[GitHub][@github-2] and [a long one here!][@link-2]"
    )
    assert rendered.shortcuts["github-2"] == "https://github.com/other"
