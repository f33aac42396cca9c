"""Tricky documents for block resolution, shared by the render and command tests."""

from __future__ import annotations

TRICKY = {
    "setext": "Title\n=====\n\nintro\n\nPart two\n--------\n\ntext\n\nPart three\n---\n",
    "fenced_heading": "# Real\n\n```md\n# Not a heading\n<!-- #fake -->\n```\n\n~~~~\n## Also not\n~~~~\n\n## Second\n",
    "html_heading": "# Top\n\n<div>\n# inside html\n</div>\n\n<!--\n# inside comment\n-->\n\n## After\n",
    "nested_markers": "<!-- #outer -->\nA\n<!-- #inner -->\nB\n<!-- /inner -->\nC\n<!-- /outer -->\n",
    "unclosed": "<!-- #open -->\nnever closed\n\n# Heading\n\n<!-- /stray -->\n",
    "duplicate": (
        "<!-- #a -->\none\n<!-- /a -->\n<!-- #a -->\ntwo\n<!-- /a -->\n\n## Same\n\nfirst\n\n## Same\n\nsecond\n"
    ),
    "crlf": "# One\r\n\r\nfirst\r\n\r\n<!-- #m -->\r\nmarked\r\n<!-- /m -->\r\n\r\n## Two\r\n\r\nsecond\r\n",
    "front_matter": "---\ntitle: Demo Doc\ndefault: status\nrequires:\n  - API_KEY\n  - REGION\n---\n# Demo\n\nbody\n",
    "unicode": "# Café Über\n\nx\n\n## 日本語\n\ny\n\n## Ünïcödé & Friends!\n\nz\n",
    "explicit_ids": "# Intro {#start}\n\ntext\n\n## Deep Dive []{#deep}\n\nmore\n\n### Child\n\nc\n\n## Next\n",
    "list_heading": (
        "- item\n# real heading\n\n- a\n\n      # code in list\n\n  ```\n  # fenced in list\n  ```\n\n## End\n"
    ),
    "indented_code": "para\n\n    # indented code, not a heading\n\n# Heading\n",
    "blockquote": "> # quoted heading\n> text\n\n# Outside\n",
    "table": "a | b\n--|--\nc | d\n---\n\n# After table\n",
}
