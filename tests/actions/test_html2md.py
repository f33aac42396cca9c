from __future__ import annotations

from stringsh.actions.html2md import html_to_markdown, looks_like_html


def test_common_elements() -> None:
    html = (
        "<!doctype html><html><head><title>x</title><style>b{}</style><script>evil()</script></head><body>"
        "<h1>Title</h1><p>Some <b>bold</b>, <em>soft</em> and <code>code</code> with "
        "<a href='https://e.example/a'>a link</a>.</p>"
        "<ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>"
        "<pre>  keep\n    spacing</pre><hr><blockquote>quoted</blockquote>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table>"
        "<p>x &amp; y<br>next</p><img src='p.png' alt='pic'></body></html>"
    )
    assert html_to_markdown(html) == (
        "# Title\n\n"
        "Some **bold**, *soft* and `code` with [a link](https://e.example/a).\n\n"
        "- one\n- two\n  1. nested\n\n"
        "```\n  keep\n    spacing\n```\n\n---\n\n> quoted\n\n"
        "| k | v |\n| --- | --- |\n| a\\|b | 1 |\n\n"
        "x & y  \nnext\n\n![pic](p.png)"
    )


def test_detection() -> None:
    assert looks_like_html("text/html; charset=utf-8", "")
    assert looks_like_html("", "  <!DOCTYPE html><p>")
    assert not looks_like_html("text/plain", "<b>not a page</b>")


def test_blockquote_keeps_every_paragraph_quoted_and_links_made_absolute() -> None:
    html = (
        "<blockquote><p>Back <b>up</b>.</p><p>See <a href='guide#x'>guide</a>.</p><pre>a\n b</pre></blockquote>"
        "<p>out</p>"
    )
    assert html_to_markdown(html, base="https://e.example/docs/page") == (
        "> Back **up**.\n>\n> See [guide](https://e.example/docs/guide#x).\n>\n> ```\n> a\n>  b\n> ```\n\nout"
    )


def test_url_links_stay_followable_headerless_tables_get_a_header_and_text_is_not_escaped() -> None:
    html = (
        "<p><a href='https://e.example/x'>https://e.example/x</a></p>"
        "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"
        "<noscript>enable js</noscript><svg><text>logo</text></svg><template><p>later</p></template>"
        "<p>snake_case and 2*3</p>"
    )
    assert html_to_markdown(html) == (
        "[https://e.example/x](https://e.example/x)\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\nsnake_case and 2*3"
    )


def test_a_page_nested_deeper_than_the_converter_can_follow_is_shown_as_its_text() -> None:
    depth = 5000  # far past Python's recursion limit: the converter walks one frame per element
    html = "<div>" * depth + "<p>deep   <b>words</b></p>\n\n<p>more</p>" + "</div>" * depth
    assert html_to_markdown(html) == "deep words\nmore"
