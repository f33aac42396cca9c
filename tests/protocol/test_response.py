"""The reply formatter: the `re:` line and the three kinds of String's reply format (docs/string-commands.md)."""

from __future__ import annotations

from stringsh.protocol.framing import envelope, envelope_topic, json_reply
from stringsh.protocol.response import Result, cut_header, format_reply


def test_category_a_message_separator_content() -> None:
    reply = format_reply("/open hello.md", "003qm", Result("Opened hello.md", "# Hello World\n\nWelcome"))
    assert reply.text == "re: [003qm] /open hello.md\nOpened hello.md\n---\n# Hello World\n\nWelcome"
    assert (reply.ok, reply.code, reply.id) == (True, None, "003qm")


def test_category_b_message_only() -> None:
    reply = format_reply("/write a.md", None, Result("Written: a.md (42 bytes, 3 lines)"))
    assert reply.text == "re: /write a.md\nWritten: a.md (42 bytes, 3 lines)"


def test_category_c_error_never_has_a_separator() -> None:
    reply = format_reply("/open nonexistent.md", "003qm", error=("NOT_FOUND", "File not found: nonexistent.md"))
    assert reply.text == "re: [003qm] /open nonexistent.md\nERROR(NOT_FOUND): File not found: nonexistent.md"
    assert (reply.ok, reply.code) == (False, "NOT_FOUND")


def test_failing_result_with_content_keeps_its_code() -> None:
    reply = format_reply("!false", None, Result("exit: 1 | cwd: /w", "(no output)", ok=False, code="EXIT_1"))
    assert reply.text == "re: !false\nexit: 1 | cwd: /w\n---\n(no output)"
    assert (reply.ok, reply.code) == (False, "EXIT_1")


def test_header_is_cut_at_80_characters() -> None:
    exact = "/" + "a" * 79
    assert cut_header(exact) == exact
    long = "/" + "b" * 80
    assert cut_header(long) == "/" + "b" * 76 + "..."
    assert len(cut_header(long)) == 80


def test_envelope_and_json_frames() -> None:
    assert envelope("main", "re: /ls\nx") == "<𝒞=string:main>\nre: /ls\nx\n</𝒞>"
    assert envelope_topic("<𝒞=string:bash:dev>") == "bash:dev"
    assert envelope_topic("<𝒞=bash:dev>") == "bash:dev"  # the README's `bash:<name>` topic, written alone
    assert envelope_topic("<𝒞=tab:dev>") is None
    assert envelope_topic("</𝒞>") is None
    assert json_reply("1", True, None, "main", "re: /ls") == (
        '{"id": "1", "ok": true, "code": null, "topic": "main", "content": "re: /ls"}'
    )
