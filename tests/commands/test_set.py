"""/set: session variables, echo texts, listing and errors (String's /set replies)."""

from __future__ import annotations


def test_set_braced_echoes_as_seed(dispatcher) -> None:
    assert dispatcher.execute('/set {var} = "val"').text == 're: /set {var} = "val"\n{var} = "val"'


def test_bare_and_single_quoted_and_unquoted_values(dispatcher) -> None:
    assert dispatcher.execute("/set name = two words ").text == 're: /set name = two words\n{name} = "two words"'
    assert dispatcher.execute("/set {q} = 'it is'").text.endswith('\n{q} = "it is"')


def test_several_assignments_in_one_body(dispatcher) -> None:
    reply = dispatcher.execute('/set\n{a} = 1\nb = "two"\n\nc=3')
    assert reply.text == 're: /set\n{a} = "1"\n{b} = "two"\n{c} = "3"'


def test_fenced_multiline_value(dispatcher) -> None:
    reply = dispatcher.execute("/set <<EOF\n```{notes}\nline 1\nline 2\n```\nEOF")
    assert reply.text == "re: /set\n{notes} = (2 lines)"
    assert dispatcher.session().variables["notes"] == "line 1\nline 2"


def test_listing_and_empty_listing(dispatcher) -> None:
    assert dispatcher.execute("/set").text == "re: /set\nNo variables set."
    dispatcher.execute('/set {a} = "1"')
    dispatcher.execute("/set b = x")
    assert dispatcher.execute("/set").text == 're: /set\nVariables\n---\n{a} = "1"\n{b} = "x"'


def test_invalid_assignment_and_unclosed_fence(dispatcher) -> None:
    assert dispatcher.execute("/set nonsense").text == (
        "re: /set nonsense\nERROR(INVALID_PAYLOAD): Invalid assignment: nonsense\n"
        'Write {name} = "value", name = value, or a fence ```{name} … ``` for several lines.'
    )
    reply = dispatcher.execute("/set\n```{x}\nnever closed")
    assert (reply.ok, reply.code) == (False, "INVALID_PAYLOAD")
    assert dispatcher.session().variables == {}


def test_variables_are_substituted_into_later_commands(ws, dispatcher) -> None:
    (ws / "docs").mkdir()
    dispatcher.execute("/set {dir} = docs")
    assert dispatcher.execute("/ls {dir}").text == "re: /ls {dir}\nListing docs/\n---\n(empty)"
    assert dispatcher.execute("/ls {unknown}").text.startswith("re: /ls {unknown}\nERROR(NOT_FOUND)")


def test_variables_are_per_topic(dispatcher) -> None:
    dispatcher.execute("/set a = 1", "main")
    assert dispatcher.execute("/set", "other").text == "re: /set\nNo variables set."
