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
    short = items("<𝒞=bash:dev>\ncat <<END\nx\nEND\n</𝒞>\n".encode(), envelopes=True)
    assert [(item.text, item.topic) for item in short] == [("cat <<END\nx\nEND\n", "bash:dev")]


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


def test_a_heredoc_body_line_has_no_length_limit() -> None:
    """Read in pieces and joined: a body line three times the read size arrives whole, and so does the next."""
    line = b"0123456789abcdef" * (3 * MAX_LINE_BYTES // 16) + b"!"
    got = items(b"/write a <<EOF\n" + line + b"\nshort\nEOF\n/ls\n")
    assert [item.error for item in got] == [None, None]
    assert got[0].request.body == line.decode() + "\nshort\n"
    assert got[1].text == "/ls"


def test_a_body_line_exactly_at_a_read_boundary() -> None:
    line = b"x" * (MAX_LINE_BYTES - 1) + b"\n"  # the piece ends with the newline
    got = items(b"/write a <<EOF\n" + line + b"x" * MAX_LINE_BYTES + b"\nEOF\n")
    assert got[0].request.body == (line + b"x" * MAX_LINE_BYTES + b"\n").decode()


def test_the_limits_that_remain_are_named_exactly() -> None:
    """A first line is held to the header's 64 KB (one wording however long it is), a quoted value's line to
    1 MiB; either refusal consumes the line and reading goes on."""
    over_header = b"/ls " + b"a" * (64 * 1024) + b"\n"
    over_read = b"/ls " + b"a" * (MAX_LINE_BYTES + 10) + b"\n"
    quoted = b"/act.x --note 'a\n" + b"b" * (MAX_LINE_BYTES + 1) + b"'\n"
    got = items(over_header + over_read + quoted + b"/info\n")
    hint = "Put long content in the body (after the first line, or in a <<EOF heredoc)."
    assert [item.error for item in got] == [
        ("TOO_LARGE", f"Request line is longer than 64 KB.\n{hint}"),
        ("TOO_LARGE", f"Request line is longer than 64 KB.\n{hint}"),
        ("TOO_LARGE", "A line of a quoted value is longer than 1 MiB (1048576 bytes); the command was not run.\n"
                      "Put long content in a <<EOF heredoc body (no line limit)."),
        None,
    ]
    assert got[3].text == "/info"
