"""`stringsh daemon --json` echoes every JSON scalar id as it was sent (its JSON type and value, as JSON decoding
reads it), also on refusals, and quotes an id it cannot echo; the JSON dialects refuse unknown request fields in
one wording. Each through the real program on pipes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_stringsh

HINT = 'Send one object per line: {"id": "1", "cmd": "/help", "topic": "main"}'
LISTING = "Listing ./\n---\n(empty)"

#: (the id as written on the request line, the id as its reply must write it, the `re:` line's `[id]`)
IDS = [
    ('"a-1"', '"a-1"', "[a-1] "),
    ('"has space"', '"has space"', ""),
    ('"\\u00e9t\\u00e9"', '"été"', ""),
    ('""', '""', ""),
    ("7", "7", "[7] "),
    ("-3", "-3", "[-3] "),
    ("0", "0", "[0] "),
    ("12345678901234567890123", "12345678901234567890123", "[12345678901234567890123] "),
    ("2.5", "2.5", "[2.5] "),
    ("1e2", "100.0", "[100.0] "),
    ("-0.0", "-0.0", "[-0.0] "),
    ("true", "true", "[true] "),
    ("false", "false", "[false] "),
    ("null", "null", ""),
]


def daemon(ws: Path, *lines: str) -> list[dict[str, object]]:
    """The replies of one real `stringsh daemon --json` to `lines`, in the order they came."""
    done = run_stringsh(["daemon", "--json"], ws, stdin="".join(line + "\n" for line in lines))
    assert done.returncode == 0, done.stderr.decode()
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def raw_id(reply: dict[str, object]) -> str:
    """The reply's id as JSON text: `100.0` and `100`, `true` and `1` differ here."""
    return json.dumps(reply["id"], ensure_ascii=False)


@pytest.mark.parametrize(("sent", "echoed", "prefix"), IDS, ids=[case[0] for case in IDS])
def test_every_scalar_id_comes_back_as_sent(ws: Path, sent: str, echoed: str, prefix: str) -> None:
    replies = daemon(
        ws,
        f'{{"id": {sent}, "cmd": "/ls"}}',
        f'{{"id": {sent}, "cmd": "/nope"}}',
        f'{{"id": {sent}, "cmd": "/ls", "topik": "t1"}}',
        f'{{"id": {sent}, "command": "/ls"}}',
        f'{{"id": {sent}, "cmd": "/ls", "topic": "bad topic"}}',
        f'{{"id": {sent}, "cmd": "/write x <<EOF\\nno end"}}',
    )
    assert [raw_id(reply) for reply in replies] == [echoed] * 6
    # refusals made while reading may overtake a running request's reply: take them by what they say
    by_kind = {(reply["code"], str(reply["content"]).startswith("re: (")): reply for reply in replies}
    ok, failed, unknown = by_kind[None, False], by_kind["COMMAND_UNSUPPORTED", False], by_kind["INVALID_REQUEST", True]
    no_cmd, bad_topic, cut = by_kind["INVALID_PAYLOAD", True], by_kind["INVALID_TARGET", False], by_kind[
        "INVALID_PAYLOAD", False]
    assert (ok["ok"], ok["content"]) == (True, f"re: {prefix}/ls\n{LISTING}")
    assert (failed["code"], str(failed["content"]).split("\n")[0]) == ("COMMAND_UNSUPPORTED", f"re: {prefix}/nope")
    assert unknown == {"id": unknown["id"], "ok": False, "code": "INVALID_REQUEST", "topic": "main",
                       "content": "re: (invalid request)\nERROR(INVALID_REQUEST): Unknown request field: topik\n"
                                  'A request has "id", "cmd" and "topic" only.'}
    assert (no_cmd["code"], no_cmd["content"]) == (
        "INVALID_PAYLOAD",
        f're: (invalid request)\nERROR(INVALID_PAYLOAD): Malformed JSON request: expected an object with a string '
        f'"cmd"\n{HINT}',
    )
    assert bad_topic["code"] == "INVALID_TARGET"
    assert (cut["code"], str(cut["content"]).split("\n")[0]) == ("INVALID_PAYLOAD", f"re: {prefix}/write x")
    assert not (ws / "x").exists()


@pytest.mark.parametrize(("sent", "quoted"), [
    ("[1]", "[1]"),
    ('{"a": 1}', '{"a": 1}'),
    ("[]", "[]"),
    ('["' + "x" * 100 + '"]', '["' + "x" * 61 + "…"),
], ids=["array", "object", "empty array", "long array"])
def test_an_id_that_cannot_be_echoed_is_refused_and_quoted(ws: Path, sent: str, quoted: str) -> None:
    (refused, after) = daemon(ws, f'{{"id": {sent}, "cmd": "/write x.txt\\ny\\n"}}', '{"id": "after", "cmd": "/ls"}')
    assert refused == {
        "id": None, "ok": False, "code": "INVALID_REQUEST", "topic": "main",
        "content": f"re: (invalid request)\nERROR(INVALID_REQUEST): id must be a string, number or boolean: {quoted}"
                   f"\n{HINT}",
    }
    assert not (ws / "x.txt").exists()
    assert (after["id"], after["content"]) == ("after", f"re: [after] /ls\n{LISTING}")  # the loop goes on


@pytest.mark.parametrize(("sent", "reason"), [
    ("NaN", "NaN is not JSON"),
    ("Infinity", "Infinity is not JSON"),
    ("1e400", "number out of range: 1e400"),
])
def test_a_number_json_cannot_carry_is_a_malformed_line(ws: Path, sent: str, reason: str) -> None:
    """Echoed, these would not be JSON (Python would write `NaN` or `Infinity`): the line is refused whole."""
    (refused,) = daemon(ws, f'{{"id": {sent}, "cmd": "/write x.txt\\ny\\n"}}')
    assert (refused["id"], refused["code"]) == (None, "INVALID_PAYLOAD")
    assert refused["content"] == (
        f"re: (invalid request)\nERROR(INVALID_PAYLOAD): Malformed JSON request: {reason}\n{HINT}"
    )
    assert not (ws / "x.txt").exists()


def test_interleaved_topics_keep_their_ids(ws: Path) -> None:
    """Requests to several topics, answered in any order: each reply names its own request."""
    ids = ["1", 1, 1.0, True, 2.5, "2.5", False, 0]
    lines = [json.dumps({"id": id_, "cmd": f"/set n = {n}", "topic": f"t{n % 3}"}) for n, id_ in enumerate(ids)]
    replies = daemon(ws, *lines)
    by_value = {str(reply["content"]).split("\n")[1]: raw_id(reply) for reply in replies}
    assert by_value == {f'{{n}} = "{n}"': json.dumps(id_) for n, id_ in enumerate(ids)}


def test_unknown_fields_are_refused_in_every_json_dialect_alike(ws: Path) -> None:
    """The same wording in `daemon --json` and `stringsh tools`, each naming its own fields; nothing runs."""
    (daemon_reply,) = daemon(ws, '{"id": 5, "cmd": "/write a.txt\\nx\\n", "extra": 1, "another": 2}')
    tools = run_stringsh(["tools"], ws, stdin='{"id": 5, "tool": "write", "args": {"file_path": "b.txt", '
                                              '"content": "x"}, "extra": 1, "another": 2}\n')
    (tools_reply,) = map(json.loads, tools.stdout.decode().splitlines())
    assert daemon_reply == {"id": 5, "ok": False, "code": "INVALID_REQUEST", "topic": "main",
                            "content": "re: (invalid request)\nERROR(INVALID_REQUEST): Unknown request field: another"
                                       '\nA request has "id", "cmd" and "topic" only.'}
    assert tools_reply == {"id": 5, "ok": False, "code": "INVALID_REQUEST", "error": "Unknown request field: another",
                           "hint": 'A request has "id", "tool" and "args" only.'}
    assert sorted(path.name for path in ws.iterdir() if path.name != ".stringsh") == []


def test_a_field_name_that_would_break_the_reply_is_quoted(ws: Path) -> None:
    (reply,) = daemon(ws, json.dumps({"id": 1, "cmd": "/ls", "a\nERROR(OK): b": 1}))
    assert reply["content"] == ('re: (invalid request)\nERROR(INVALID_REQUEST): Unknown request field: '
                                '"a\\nERROR(OK): b"\nA request has "id", "cmd" and "topic" only.')
