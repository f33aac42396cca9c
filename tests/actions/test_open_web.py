"""`/open https://…` and web `@shortcuts` through the real program against a real loopback server: pages as
markdown, `/source` the original, and every refusal (binary, size, time, redirects, plain http) coded."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

ARTICLE = """# Release notes

Version `2.0` is out. Read the [docs][@docs].

> Back up first.
>
> Really.

## Install

```
pip install thing
```"""

ARTICLE_HTML = (
    "<!doctype html><html><head><title>Article</title><script>track()</script></head><body>"
    "<h1>Release notes</h1><p>Version <code>2.0</code> is out. Read the <a href='docs'>docs</a>.</p>"
    "<blockquote><p>Back up first.</p><p>Really.</p></blockquote>"
    "<h2 id='install'>Install</h2><pre>pip install thing</pre></body></html>"
)


def run_script(ws: Path, server: str, script: str) -> list[str]:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin=script.replace("BASE", server))
    return [reply.replace(server, "BASE") for reply in split_replies(proc.stdout.decode())]


def test_open_a_web_page_as_markdown_with_source_links_back_and_refresh(ws: Path, server: str) -> None:
    replies = run_script(
        ws, server,
        "/open BASE/to-article\n/source\n/open @docs\n/back\n/refresh\n/open BASE/article#install\n/info\n",
    )
    assert replies[0] == f"re: /open BASE/to-article\nOpened BASE/article\n---\n{ARTICLE}"
    assert replies[1] == f"re: /source\n[source: BASE/article]\n---\n{ARTICLE_HTML}"
    assert replies[2] == "re: /open @docs\nOpened BASE/docs\n---\n# Docs\n\nEverything."
    assert replies[3] == f"re: /back\nBack to BASE/article\n---\n{ARTICLE}"
    assert replies[4] == f"re: /refresh\nRefreshed BASE/article\n---\n{ARTICLE}"
    assert replies[5] == (
        "re: /open BASE/article#install\nOpened BASE/article#install\n---\n## Install\n\n```\npip install thing\n```"
    )
    assert "\nurl:       BASE/article\n" in replies[6]


def test_text_json_and_markdown_answers(ws: Path, server: str) -> None:
    replies = run_script(ws, server, "/open BASE/text\n/open BASE/items\n/open BASE/markdown\n")
    assert replies[0] == "re: /open BASE/text\nOpened BASE/text\n---\nplain words, not JSON\nsecond line"
    assert replies[1] == (
        "re: /open BASE/items\nOpened BASE/items\n---\n```json\n{\n  \"total\": 2,\n  \"items\": [\n    {\n"
        "      \"name\": \"alpha\",\n      \"size\": 1\n    },\n    {\n      \"name\": \"beta\",\n      \"size\": 2\n"
        "    }\n  ]\n}\n```"
    )
    assert replies[2] == "re: /open BASE/markdown\nOpened BASE/markdown\n---\n# Remote\n\nFrom the server."


def test_refusals_are_coded_with_hints_and_the_page_stays_open(ws: Path, server: str) -> None:
    replies = run_script(
        ws, server,
        "/open BASE/article\n/open BASE/picture.png\n/open BASE/nul\n/open BASE/to-plain-web\n"
        "/open http://example.org/x\n/open BASE/missing\n/open BASE/loop\n/set {_http_timeout} = 0.3\n"
        "/open BASE/slow?s=3\n/open\n",
    )
    only_text = "Only text pages open here: HTML, markdown, plain text or JSON."
    assert replies[1:8] == [
        f"re: /open BASE/picture.png\nERROR(BINARY_FILE): BASE/picture.png is image/png (binary); it is not shown.\n"
        f"{only_text}",
        f"re: /open BASE/nul\nERROR(BINARY_FILE): BASE/nul sent binary data (NUL bytes); it is not shown.\n{only_text}",
        "re: /open BASE/to-plain-web\nERROR(NOT_PERMITTED): Plain http:// pages open only from this machine "
        "(loopback): http://example.org/\nUse https://example.org/",
        "re: /open http://example.org/x\nERROR(NOT_PERMITTED): Plain http:// pages open only from this machine "
        "(loopback): http://example.org/x\nUse https://example.org/x",
        "re: /open BASE/missing\nERROR(NOT_FOUND): HTTP 404 Not Found: GET BASE/missing\nno such thing here",
        "re: /open BASE/loop\nERROR(LOAD_ERROR): Too many redirects (more than 5): GET BASE/loop\n"
        "Open the page the site means directly.",
        're: /set {_http_timeout} = 0.3\n{_http_timeout} = "0.3"',
    ]
    assert replies[8] == (
        "re: /open BASE/slow?s=3\nERROR(TIMEOUT): No answer within 0.3s: GET BASE/slow?s=3\n"
        "Try again later, or allow more time: /set {_http_timeout} = 60"
    )
    assert replies[9].startswith("re: /open\nOpened BASE/article\n---\n# Release notes\n")  # still the open page


def test_size_cap_is_the_policy_read_limit(ws: Path, server: str) -> None:
    (ws / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 1024\n")  # a workspace may narrow limits
    replies = run_script(ws, server, "/open BASE/big\n/open BASE/article\n")
    assert replies[0] == (
        "re: /open BASE/big\nERROR(TOO_LARGE): BASE/big is larger than 1 KiB; it was not read.\n"
        "Open a smaller page, or raise [limits] max_read_bytes in your policy."
    )
    assert replies[1].startswith("re: /open BASE/article\nOpened BASE/article\n")


def test_web_shortcut_of_a_workspace_page(ws: Path, server: str) -> None:
    (ws / "links.md").write_text(f"# Links\n\nSee [@notes Release notes]({server}/article#install).\n")
    replies = run_script(ws, server, "/open links.md\n/open @notes\n/back\n")
    assert replies[1] == (
        "re: /open @notes\nOpened BASE/article#install\n---\n## Install\n\n```\npip install thing\n```"
    )
    assert replies[2] == "re: /back\nBack to links.md\n---\n# Links\n\nSee [Release notes][@notes]."
