"""Request text built from MCP tool arguments (stringsh/dialects/mcp/requests.py): whatever a client sends, the
command gets exactly those words and that body, through the real request parser, or the call is refused."""

from __future__ import annotations

import pytest

from stringsh.dialects.mcp.requests import build, flag, shell_request
from stringsh.errors import StringError
from stringsh.protocol.request import parse_invocation, parse_request

NASTY = ["plain", "two words", "it's", 'say "hi"', "{name}", "{{name}}", "{{{name}}}", "a\\b", "-rf", "--force",
         "x <<EOF", "<<'EOF'", 'x <<"EOF"', "$HOME", "`id`", "a;b", "#block", "path#blk", "ünï 日本", "'", '"', "\t"]


@pytest.mark.parametrize("value", NASTY)
def test_a_word_reaches_the_command_as_given(value: str) -> None:
    text = build("/open", [flag("--"), ("target", value)])
    invocation = parse_invocation(parse_request(text), {"name": "SUBST"})
    assert invocation.args == ["--", value]
    assert invocation.body is None


@pytest.mark.parametrize("body", ["x\nEOF\ny", "EOF\nEOF1\n", "EOF", "", "a\r\nEOF\r\n", "no newline"])
def test_a_body_reaches_the_command_whole(body: str) -> None:
    request = parse_request(build("/edit", [flag("--"), ("target", "a.md#x")], body))
    assert request.body == (body if body.endswith("\n") or not body else body + "\n")
    assert parse_invocation(request).args == ["--", "a.md#x"]


@pytest.mark.parametrize("value", ["a\nb", "a\rb", "a\x00b", ""])
def test_one_line_arguments_refuse_line_breaks(value: str) -> None:
    with pytest.raises(StringError) as caught:
        build("/open", [flag("--"), ("target", value)])
    assert caught.value.code == "INVALID_PAYLOAD"


def test_shell_commands_go_in_the_header_only_when_plain() -> None:
    assert shell_request("ls -la") == "!ls -la"
    assert shell_request("echo {x}") == "! <<EOF\necho {x}\nEOF"
    assert shell_request("cat <<EOF\nx\nEOF") == "! <<EOF1\ncat <<EOF\nx\nEOF\nEOF1"
