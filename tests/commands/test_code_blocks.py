"""Source files as documents through the String Commands: the outline under /open, `/open path#Symbol`, `/edit`
and `/replace` of a symbol (every other byte kept, one journal entry, /undo byte-exact), insertion beside one,
and the refusals (wrong definition, new syntax errors, repeated names); in-process, on real files."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.commands.documents import body

APP = '''import os


class Parser:
    """Parses."""

    @staticmethod
    def parse(text):
        return text.split()


def main():
    print(Parser.parse("a b"))
'''


def outside(data: bytes, start: int, end: int) -> str:
    """The hash of every byte but those in [start, end)."""
    return hashlib.sha256(data[:start] + data[end:]).hexdigest()


def test_open_lists_the_outline_and_a_symbol_shows_with_file_line_numbers(ws: Path, dispatcher) -> None:
    (ws / "app.py").write_text(APP)
    assert body(dispatcher.execute("/open app.py").text) == f"Opened app.py\n---\n{APP}\n" + (
        "Symbols (3), open one with /open app.py#<id>:\n"
        "  #Parser        class     L4-L9\n"
        "  #Parser.parse  method    L7-L9\n"
        "  #main          function  L12-L13"
    )
    assert body(dispatcher.execute("/open app.py#Parser.parse").text) == (
        "Opened app.py#Parser.parse\n---\n"
        "7 |     @staticmethod\n8 |     def parse(text):\n9 |         return text.split()\n\n"
        "(method Parser.parse, lines 7-9 of 13)"
    )
    assert body(dispatcher.execute("/open app.py#Parser --from 8 --to 8").text) == (
        "Opened app.py#Parser\n---\n8 |     def parse(text):\n\n(class Parser, lines 4-9 of 13)\n"
        "[--to 8] Shown up to line 8. Read on: /open app.py#Parser --from 9"
    )
    assert body(dispatcher.execute("/open app.py#nope").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #nope in app.py\nAvailable blocks: Parser, Parser.parse, main"
    )
    info = dispatcher.execute("/info").text
    assert "language:  python\n" in info and "blocks:    Parser, Parser.parse, main\n" in info


def test_a_bare_repeated_name_is_ambiguous_and_numbered_ids_name_one(ws: Path, dispatcher) -> None:
    (ws / "h.js").write_text("function handler() { return 1; }\nfunction handler() { return 2; }\n")
    assert body(dispatcher.execute("/open h.js#handler").text) == (
        "ERROR(AMBIGUOUS_BLOCK): #handler names 2 symbols in h.js; nothing was done.\n"
        "Name one: #handler-0 (line 1), #handler-1 (line 2)"
    )
    assert body(dispatcher.execute("/edit h.js#handler-1\nfunction handler() { return 3; }").text) == (
        "Edited h.js#handler-1 (2 lines): 1 line replaced by 1 line"
    )
    assert (ws / "h.js").read_text() == "function handler() { return 1; }\nfunction handler() { return 3; }\n"


def test_edit_of_a_method_keeps_every_other_byte_and_undo_puts_them_back(ws: Path, dispatcher) -> None:
    raw = APP.replace("\n", "\r\n").replace("    ", "\t").encode("utf-8")
    raw = b"\xef\xbb\xbf" + raw.replace(b"a b", "ä b".encode())
    (ws / "app.py").write_bytes(raw)
    view = body(dispatcher.execute("/edit app.py#Parser.parse").text)
    assert view.startswith("[editing: app.py#Parser.parse]\n---\n7 | \t@staticmethod\n8 | \tdef parse(text):\n")
    start = raw.index(b"\t@staticmethod")
    end = raw.index(b"split()") + len(b"split()")
    reply = dispatcher.execute("/edit app.py#Parser.parse\n@staticmethod\ndef parse(text):\n"
                               "    words = text.split()\n    return words\n")
    assert body(reply.text) == "Edited app.py#Parser.parse (14 lines): 3 lines replaced by 4 lines"
    after = (ws / "app.py").read_bytes()
    new = b"\t@staticmethod\r\n\tdef parse(text):\r\n\t    words = text.split()\r\n\t    return words"
    assert after[start : start + len(new)] == new
    assert outside(after, start, start + len(new)) == outside(raw, start, end)
    assert body(dispatcher.execute("/undo").text).startswith("Undo: reverted app.py")
    assert (ws / "app.py").read_bytes() == raw


def test_a_body_that_is_not_the_same_definition_or_breaks_the_parse_is_refused(ws: Path, dispatcher) -> None:
    (ws / "app.py").write_text(APP)
    assert body(dispatcher.execute("/edit app.py#main\ndef other():\n    pass").text) == (
        "ERROR(INVALID_PAYLOAD): Refusing to edit app.py#main: the body defines other (function), not main "
        "(function).\nTo add a definition use --after or --before; to write it anyway: /edit --force app.py#main. "
        "Nothing was written."
    )
    assert body(dispatcher.execute("/edit app.py#main\ndef main(:\n    pass").text) == (
        "ERROR(INVALID_PAYLOAD): Refusing to edit app.py#main: with this body the python parser finds an error at "
        "line 12, column 10 (body line 1), and the file had none.\n"
        "Fix the body, or write it anyway: /edit --force app.py#main. Nothing was written."
    )
    assert (ws / "app.py").read_text() == APP
    assert body(dispatcher.execute("/edit --force app.py#main\ndef other():\n    pass").text) == (
        "Edited app.py#main (13 lines): 2 lines replaced by 2 lines"
    )
    assert (ws / "app.py").read_text() == APP.replace('def main():\n    print(Parser.parse("a b"))',
                                                      "def other():\n    pass")


def test_insert_before_and_after_with_the_files_indentation_and_blank_lines(ws: Path, dispatcher) -> None:
    (ws / "app.py").write_text(APP)
    assert body(dispatcher.execute("/edit app.py#Parser.parse --after\ndef more(self):\n    return 3").text) == (
        "Inserted 2 lines after app.py#Parser.parse (16 lines), from line 11"
    )
    assert body(dispatcher.execute("/edit app.py#main --before\ndef helper():\n    return 1\n").text) == (
        "Inserted 2 lines before app.py#main (20 lines), from line 15"
    )
    assert (ws / "app.py").read_text() == APP.replace(
        "text.split()\n", "text.split()\n\n    def more(self):\n        return 3\n"
    ).replace("def main", "def helper():\n    return 1\n\n\ndef main")
    assert body(dispatcher.execute("/edit app.py#main --after\nx = (").text).startswith(
        "ERROR(INVALID_PAYLOAD): Refusing to edit app.py#main: with this body the python parser finds an error"
    )
    assert body(dispatcher.execute("/edit app.py --after\ndef z(): pass").text) == (
        "ERROR(INVALID_PAYLOAD): --after adds a definition beside a symbol of a source file\n"
        "Name the symbol: /edit app.py#<symbol> --after (/open app.py lists them)."
    )


def test_replace_path_symbol_delegates_and_go_methods_are_qualified(ws: Path, dispatcher) -> None:
    go = "package p\n\ntype T struct{}\n\n// Get gets.\nfunc (t *T) Get() int {\n\treturn 1\n}\n"
    (ws / "t.go").write_text(go)
    reply = dispatcher.execute("/replace t.go#T.Get\n// Get gets two.\nfunc (t *T) Get() int {\n\treturn 2\n}")
    assert body(reply.text) == "Edited t.go#T.Get (8 lines): 4 lines replaced by 4 lines"
    assert (ws / "t.go").read_text() == go.replace("gets.", "gets two.").replace("return 1", "return 2")


def test_a_file_with_a_syntax_error_opens_as_text_with_a_note_and_others_have_no_outline(ws: Path,
                                                                                        dispatcher) -> None:
    (ws / "bad.py").write_text("def ok():\n    return 1\n\ndef broken(:\n")
    text = body(dispatcher.execute("/open bad.py").text)
    assert text.startswith("Opened bad.py\n---\ndef ok():\n")
    assert "#ok " in text and "[syntax] The python parser found an error at line 4" in text
    (ws / "notes.txt").write_text("def looks_like_code(): pass\n")
    assert body(dispatcher.execute("/open notes.txt").text) == "Opened notes.txt\n---\ndef looks_like_code(): pass"


def test_the_open_symbol_stays_open_across_an_edit_and_a_change_on_disk_is_reindexed(ws: Path, dispatcher) -> None:
    (ws / "app.py").write_text(APP)
    dispatcher.execute("/open app.py#main")
    assert body(dispatcher.execute("/edit #main\ndef main():\n    return 0").text) == (
        "Edited app.py#main (13 lines): 2 lines replaced by 2 lines"
    )
    assert body(dispatcher.execute("/open").text) == (
        "Opened app.py#main\n---\n12 | def main():\n13 |     return 0\n\n(function main, lines 12-13 of 13)"
    )
    (ws / "app.py").write_text("def other():\n    pass\n")  # changed outside stringsh
    assert body(dispatcher.execute("/open app.py#other").text) == (
        "Opened app.py#other\n---\n1 | def other():\n2 |     pass\n\n(function other, lines 1-2 of 2)"
    )
    assert body(dispatcher.execute("/edit app.py#other --from 2").text) == (
        "[editing: app.py#other]\n---\n2 |     pass\n\n(2 lines)"
    )


def test_a_five_megabyte_generated_module_opens_by_symbol_and_edits_one(ws: Path, dispatcher) -> None:
    data = "".join(f'CHUNK_{i} = "{"x" * 2000}"\n' for i in range(2600))
    text = f"def first():\n    return 1\n\n{data}\ndef last():\n    return 2\n"
    (ws / "gen.py").write_text(text)
    assert len(text) > 5_000_000
    assert body(dispatcher.execute("/open gen.py#last").text) == (
        "Opened gen.py#last\n---\n2605 | def last():\n2606 |     return 2\n\n(function last, lines 2605-2606 of 2606)"
    )
    assert body(dispatcher.execute("/edit gen.py#last\ndef last():\n    return 3").text) == (
        "Edited gen.py#last (2606 lines): 2 lines replaced by 2 lines"
    )
    assert (ws / "gen.py").read_text() == text.replace("return 2", "return 3")
