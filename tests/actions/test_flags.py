from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.actions.fences import parse_actions
from stringsh.actions.flags import bind, missing_required, needs_schema_only, parse_flags, tokenize
from stringsh.errors import StringError

(ACTION,) = parse_actions(
    "```act.go\nCLI run {city} {days}\n"
    '  city, -c: string (required) "City"\n  days: number (optional)\n  loud: boolean\n'
    '  region: string = "eu"\n```\n'
)


def payload(text: str, variables: dict[str, str] | None = None, shortcuts: dict[str, str] | None = None):
    table = shortcuts or {}
    parsed = parse_flags(text, {"c": "city"})
    return bind(ACTION, parsed, variables or {}, table.get, lambda: list(table))[0]


def test_tokenize_quotes() -> None:
    assert tokenize("--a \"x y\" 'z' ''  b\"c d\"e") == ["--a", "x y", "z", "", "bc de"]


def test_forms() -> None:
    assert payload("--city Paris --days 3") == {"city": "Paris", "days": "3", "region": "eu"}
    assert payload("--city=Paris --days=3 --region=us") == {"city": "Paris", "days": "3", "region": "us"}
    assert payload("-c Oslo --loud") == {"city": "Oslo", "loud": "true", "region": "eu"}
    assert payload("Rome 2") == {"city": "Rome", "days": "2", "region": "eu"}
    assert payload("--days 1 Rome") == {"days": "1", "city": "Rome", "region": "eu"}
    assert payload("-- -5") == {"city": "-5", "region": "eu"}
    assert payload('--city "New York"') == {"city": "New York", "region": "eu"}


def test_help_anywhere() -> None:
    assert parse_flags("--city x --help").help and parse_flags("-h").help and not parse_flags("x").help


def test_variables_and_shortcuts() -> None:
    assert payload("--city {home}", {"home": "Lyon"})["city"] == "Lyon"
    assert payload("--city {nope}")["city"] == "{nope}"
    assert payload("--city @hq", shortcuts={"hq": "https://hq.example"})["city"] == "https://hq.example"
    assert payload("--city @menu.hq", shortcuts={"menu.hq": "ops/hq.md"})["city"] == "ops/hq.md"
    assert payload("--city 'mail @x said'")["city"] == "mail @x said"


def error(text: str, **kw: object) -> StringError:
    with pytest.raises(StringError) as info:
        payload(text, **kw)  # type: ignore[arg-type]
    return info.value


def test_errors_have_strings_texts() -> None:
    err = error("a b c d e")
    assert err.code == "INVALID_PAYLOAD"
    assert err.message == (
        "Too many positional arguments for /act.go.\n"
        "Expected up to 4 positional values (fields: city, days, loud, region), got 5.\n"
        "Use -- to pass values that start with '-'."
    )
    err = error("--city")
    assert err.message == "Flag --city requires a value (declared type: string).\nUsage: /act.go --city <string>"
    err = error("--city $HOME")
    assert err.message.startswith("$var cannot be used in command arguments.")
    err = error("--city x --days many")
    assert err.message == 'Flag --days expects a number, got "many".\nUsage: /act.go --days <number>'
    err = error("--city @nowhere", shortcuts={"a": "x", "b": "y"})
    assert (err.code, err.text) == ("NOT_FOUND", "Unknown shortcut: @nowhere\nAvailable: @a, @b")
    assert error("--city @nowhere").text == "Unknown shortcut: @nowhere\n(no shortcuts on this page)"


def test_dollar_in_a_session_variable_value_is_data() -> None:
    assert payload("--city {v}", {"v": "$HOME"})["city"] == "$HOME"


def test_missing_required_and_schema_only() -> None:
    with pytest.raises(StringError) as info:
        missing_required(ACTION, {"days": "1"}, {})
    assert info.value.message == (
        "Missing required flags: city\n\nUsage:\n  --city <string> (required)\n  --days <number>\n"
        "  --loud <boolean>\n  --region <string>"
    )
    missing_required(ACTION, {}, {"city": "from session"})
    assert needs_schema_only(ACTION, "") and not needs_schema_only(ACTION, "--days 1")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_parse_never_crashes_and_binds_or_refuses(text: str) -> None:
    parsed = parse_flags(text, {"c": "city"})
    try:
        bind(ACTION, parsed, {}, lambda _: None, list)
    except StringError as exc:
        assert exc.code in ("INVALID_PAYLOAD", "NOT_FOUND")
