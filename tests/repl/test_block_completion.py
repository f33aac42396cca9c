"""`#` completion offers every heading's distinct id (the ids the document index lists), so a
repeated `### Changes` is offered as `#changes-0`, `#changes-1`, … rather than once as an id that is ambiguous."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from stringsh.dispatcher import Dispatcher
from stringsh.repl.completer import StringCompleter
from stringsh.repl.sources import Sources

RELEASES = "# Releases\n\n## One\n\n### Changes\n\nfirst\n\n## Two\n\n### Changes\n\nsecond\n\n## Säction\n\ns\n"


def results(dispatcher: Dispatcher, text: str) -> list[str]:
    completer = StringCompleter(Sources(dispatcher, "main"))
    event = CompleteEvent(completion_requested=True)
    return [text[: len(text) + c.start_position] + c.text for c in completer.get_completions(Document(text), event)]


def test_repeated_headings_are_offered_by_their_distinct_ids(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "releases.md").write_text(RELEASES)
    assert results(dispatcher, "/open releases.md#") == [
        "/open releases.md#releases",
        "/open releases.md#one",
        "/open releases.md#changes-0",
        "/open releases.md#two",
        "/open releases.md#changes-1",
        "/open releases.md#sction",
    ]
    assert results(dispatcher, "/edit releases.md#ch") == ["/edit releases.md#changes-0", "/edit releases.md#changes-1"]
    for offered in results(dispatcher, "/open releases.md#"):
        assert dispatcher.execute(offered).ok, offered  # every id offered opens exactly one block


def test_a_source_files_symbols_are_offered_after_the_hash(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "app.py").write_text("class Parser:\n    def parse(self): pass\n\ndef handler(): pass\ndef handler(): pass\n")
    assert results(dispatcher, "/open app.py#") == [
        "/open app.py#Parser", "/open app.py#Parser.parse", "/open app.py#handler-0", "/open app.py#handler-1"]
    dispatcher.execute("/open app.py")
    assert results(dispatcher, "/edit #Pa") == ["/edit #Parser", "/edit #Parser.parse"]
    for offered in results(dispatcher, "/open app.py#"):
        assert dispatcher.execute(offered).ok, offered


def test_with_a_source_file_open_shortcuts_complete_and_symbols_hits_are_offered(ws: Path,
                                                                                   dispatcher: Dispatcher) -> None:
    (ws / "app.py").write_text("def handler(): pass\n")
    dispatcher.execute("/open app.py")
    assert results(dispatcher, "/open @") == []  # a source file has no page shortcuts (and nothing breaks)
    dispatcher.execute("/symbols handler")
    assert results(dispatcher, "/open @s") == ["/open @s1"]
