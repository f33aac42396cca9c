"""The request parser: ids, headers, bodies, heredocs, quoting, names, variables."""

from __future__ import annotations

import pytest

from stringsh.errors import StringError
from stringsh.protocol.request import (
    is_complete,
    parse_invocation,
    parse_request,
    reply_header,
    split_arguments,
    substitute,
)


def invocation(text: str, variables: dict[str, str] | None = None, raw: frozenset[str] = frozenset()):
    return parse_invocation(parse_request(text), variables, raw_names=raw)


def test_id_is_optional_and_echoed_only_when_given() -> None:
    assert parse_request("[003qm] /open hello.md").id == "003qm"
    assert parse_request("[003qm] /open hello.md").header == "/open hello.md"
    assert parse_request("/open hello.md").id is None


def test_id_with_allowed_punctuation_and_invalid_id_stays_in_header() -> None:
    assert parse_request("[a.b_c:d-1] /ls").id == "a.b_c:d-1"
    request = parse_request("[bad id] /ls")
    assert request.id is None
    assert request.header == "[bad id] /ls"
    assert parse_request("[" + "x" * 65 + "] /ls").id is None


def test_body_is_everything_after_the_first_newline_byte_for_byte() -> None:
    request = parse_request("/write a.md\n  line one\r\n\n\tline three  \n")
    assert request.header == "/write a.md"
    assert request.body == "  line one\r\n\n\tline three  \n"


def test_single_line_request_has_no_body() -> None:
    assert parse_request("/ls").body is None


def test_heredoc_body_runs_to_the_terminator_exclusive() -> None:
    request = parse_request("[a3] /write todo.md <<EOF\n- ship\n\nEOF\n")
    assert (request.id, request.header, request.body) == ("a3", "/write todo.md", "- ship\n\n")


@pytest.mark.parametrize("marker", ["<<'END'", '<<"END"', "<< END", "<<END"])
def test_heredoc_tag_spellings(marker: str) -> None:
    request = parse_request(f"/write x {marker}\nEOF is not the end\nEND")
    assert request.body == "EOF is not the end\n"
    assert request.header == "/write x"


def test_empty_heredoc_body() -> None:
    assert parse_request("/write x <<EOF\nEOF").body == ""


def test_heredoc_terminator_must_be_the_whole_line() -> None:
    request = parse_request("/write x <<EOF\n EOF\nEOF \nEOF\n")
    assert request.body == " EOF\nEOF \n"


def test_unterminated_heredoc_is_an_error() -> None:
    with pytest.raises(StringError) as err:
        parse_request("/write x <<EOF\nbody\n")
    assert err.value.code == "INVALID_PAYLOAD"
    assert err.value.text == (
        "Unterminated heredoc: no line 'EOF' before the end of input; the command was not run.\n"
        "End the body with a line that is exactly EOF."
    )


def test_is_complete_waits_for_the_heredoc_terminator() -> None:
    assert is_complete("/ls")
    assert is_complete("/write x\nbody without heredoc")
    assert not is_complete("/write x <<EOF")
    assert not is_complete("/write x <<EOF\nline\nEOFX")
    assert is_complete("/write x <<EOF\nline\nEOF")
    assert is_complete("[id1] /write x <<'END'\nEND\n")
    assert is_complete("echo a <<EOF")  # not a command: no heredoc to wait for


def test_nul_byte_is_refused() -> None:
    with pytest.raises(StringError) as err:
        parse_request("/ls a\x00b")
    assert (err.value.code, err.value.message) == ("INVALID_PAYLOAD", "Request contains a NUL byte.")


def test_header_over_the_limit_is_too_large() -> None:
    with pytest.raises(StringError) as err:
        parse_request("/ls " + "a" * 70000)
    assert err.value.code == "TOO_LARGE"


def test_shell_like_quoting_and_whitespace_runs() -> None:
    assert split_arguments("""a   "b c"  'd  e' f\\ g""") == ["a", "b c", "d  e", "f g"]
    assert split_arguments("") == []


@pytest.mark.parametrize("text", ["big.md", " a\tb\r\nc  ", "a#b c;d $x {v} \x0bq\xa0r \u2028 -- --from 3", "é ü"])
def test_words_without_quotes_split_as_shlex_splits_them(text: str) -> None:
    import shlex

    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    assert split_arguments(text) == list(lexer)


def test_unbalanced_quote_is_invalid_payload() -> None:
    with pytest.raises(StringError) as err:
        split_arguments('"open')
    assert err.value.code == "INVALID_PAYLOAD"
    assert err.value.message == "Cannot parse arguments: No closing quotation."


def test_double_slash_loses_one_slash_and_names_are_case_insensitive() -> None:
    assert invocation("//HELP").name == "help"
    assert invocation("/Ls Docs").args == ["Docs"]


def test_act_dot_name_becomes_act_name() -> None:
    inv = invocation("/act.deploy --env prod")
    assert (inv.name, inv.args) == ("act", ["deploy", "--env", "prod"])
    assert invocation("/ACT.Deploy").args == ["Deploy"]


@pytest.mark.parametrize("text", ["hello", "ls -la", "/", "/ ls", " "])
def test_input_that_is_not_a_command(text: str) -> None:
    with pytest.raises(StringError) as err:
        invocation(text)
    assert (err.value.code, err.value.text) == (
        "COMMAND_UNSUPPORTED",
        "Commands must start with /.\nUse /help for details.",
    )


def test_bang_runs_a_shell_command_with_variables() -> None:
    inv = invocation('!git commit -m "v{version}"', {"version": "1.4"})
    assert (inv.name, inv.arg_text, inv.is_shell) == ("!", 'git commit -m "v1.4"', True)


def test_variables_are_substituted_and_unknown_ones_stay() -> None:
    assert substitute("notes/release-{version}.md {other}", {"version": "1.4.0"}) == "notes/release-1.4.0.md {other}"
    assert invocation("/ls {dir}", {"dir": "my docs"}).args == ["my", "docs"]
    assert invocation('/ls "{dir}"', {"dir": "my docs"}).args == ["my docs"]


def test_raw_commands_keep_their_text() -> None:
    inv = invocation('/set {v} = "a  b"', {"v": "x"}, raw=frozenset({"set"}))
    assert (inv.arg_text, inv.args) == ('{v} = "a  b"', [])


def test_reply_header_strips_id_and_heredoc_marker() -> None:
    assert reply_header("[q1] /write x <<EOF\nbody") == ("/write x", "q1")
    assert reply_header("\n\n/ls\x00") == ("/ls", None)


def test_shell_text_gives_bash_its_own_heredoc() -> None:
    request = parse_request("!cat > f <<'EOF'\nline $X\nEOF")
    assert (request.header, request.body, request.heredoc, request.tag) == ("!cat > f", "line $X\n", "<<'EOF'", "EOF")
    assert request.shell_text("cat > f") == "cat > f <<'EOF'\nline $X\nEOF\n"
    assert request.shell_text("") == "\nline $X\n"  # nothing before the marker: the body is the script
    empty = parse_request("!cat <<EOF\nEOF")
    assert empty.shell_text("cat") == "cat <<EOF\nEOF\n"
    plain = parse_request("!echo a\necho b")
    assert plain.shell_text("echo a") == "echo a\necho b"
    assert parse_request("!ls").shell_text("ls") == "ls"


def test_shell_lines_may_open_a_heredoc_without_a_command_prefix() -> None:
    assert not is_complete("cat > f <<EOF", shell_line=True)
    assert is_complete("cat > f <<EOF\nx\nEOF", shell_line=True)
    assert is_complete("cat > f <<EOF")
