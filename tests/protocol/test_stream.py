"""Cutting a line stream into requests: comments, heredocs, envelopes and bad bytes."""

from __future__ import annotations

import io

from stringsh.protocol.stream import MAX_LINE_BYTES, read_requests


def items(data: bytes, **kwargs):
    return list(read_requests(io.BytesIO(data).readline, **kwargs))


def test_blank_lines_and_comments_are_skipped() -> None:
    got = items(b"\n# a comment\n/ls\n   \n  # indented comment\n/info\n")
    assert [item.text for item in got] == ["/ls", "/info"]


def test_heredoc_keeps_blank_lines_and_comments_in_the_body() -> None:
    got = items(b"/write a.md <<EOF\n# Title\n\n  body\nEOF\n/ls\n")
    assert [item.text for item in got] == ["/write a.md <<EOF\n# Title\n\n  body\nEOF\n", "/ls"]


def test_crlf_lines() -> None:
    got = items(b"/ls\r\n/write a <<EOF\r\nx\r\nEOF\r\n")
    assert got[0].text == "/ls"
    assert got[1].text == "/write a <<EOF\r\nx\r\nEOF\r\n"


def test_unterminated_heredoc_at_end_of_input_is_an_error_item() -> None:
    (item,) = items(b"/write a <<EOF\nline\n")
    assert item.error is not None
    assert item.error[0] == "INVALID_PAYLOAD"
    assert item.text == "/write a <<EOF"


def test_invalid_utf8_and_nul_are_reported_and_reading_goes_on() -> None:
    got = items(b"/ls \xff\n/ls a\x00b\n/info\n")
    assert got[0].error == (
        "INVALID_PAYLOAD",
        "Request is not valid UTF-8 (byte 0xff at offset 4).\nSend text encoded as UTF-8.",
    )
    assert got[0].text == "/ls \\xff"
    assert got[1].error[0] == "INVALID_PAYLOAD"
    assert got[2].text == "/info" and got[2].error is None


def test_overlong_line_is_consumed_not_buffered() -> None:
    data = b"/ls " + b"a" * (MAX_LINE_BYTES + 10) + b"\n/info\n"
    got = items(data)
    assert got[0].error[0] == "TOO_LARGE"
    assert len(got[0].text) <= 200
    assert got[1].text == "/info"


def test_bad_line_inside_a_heredoc_fails_the_whole_request() -> None:
    got = items(b"/write a <<EOF\n\xff\nEOF\n/ls\n")
    assert got[0].error[0] == "INVALID_PAYLOAD"
    assert got[1].text == "/ls"


def test_envelopes_route_requests_to_topics() -> None:
    got = items("/ls\n<𝒞=string:docs>\n/info\n/ls\n</𝒞>\n/set\n".encode(), envelopes=True)
    assert [(item.text, item.topic) for item in got] == [
        ("/ls", None),
        ("/info", "docs"),
        ("/ls", "docs"),
        ("/set", None),
    ]


def test_comment_lines_go_to_the_shell_in_bash_mode() -> None:
    got = items(b"# keep me\n", is_bash_mode=lambda: True)
    assert [item.text for item in got] == ["# keep me"]


def test_heredoc_in_bash_mode_and_bash_topics_needs_no_command_prefix() -> None:
    got = items(b"cat > f <<EOF\nline\nEOF\nls\n", is_bash_mode=lambda: True)
    assert [item.text for item in got] == ["cat > f <<EOF\nline\nEOF\n", "ls"]
    routed = items("<𝒞=string:bash:dev>\ncat <<END\nx\nEND\n</𝒞>\n".encode(), envelopes=True)
    assert [(item.text, item.topic) for item in routed] == [("cat <<END\nx\nEND\n", "bash:dev")]


def test_each_whole_request_is_parsed_once_by_the_reader() -> None:
    """Front ends hand `item.request` on; nothing parses the text again."""
    from stringsh.protocol.request import parse_request

    texts = ["[a1] /ls docs", "/write a <<'EOF'\nx\n\ny\nEOF\n", "!cat <<EOF\nz\nEOF\n"]
    got = items("\n".join(texts).encode() + b"\n")
    assert [item.request for item in got] == [parse_request(text) for text in texts]


def test_a_header_too_long_to_parse_is_an_error_item_with_the_text_for_re() -> None:
    line = "/ls " + "x" * (64 * 1024)
    (item,) = items(line.encode() + b"\n")
    assert item.request is None and item.error is not None
    assert item.error[0] == "TOO_LARGE" and item.text == line
