"""A body pasted from a numbered view (`815 |     def abort…` on every line, as /open and view_symbol print
lines) is refused in every dialect's symbol, block and whole-file writes, even with --force, and the hint asks
for the line numbers to go (never --force, which would write them into the code). Real files, real dispatcher."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher
from tests.dialects.tools.client import call

APP = "class A:\n    def abort(self):\n        return 1\n"
HINT = "Remove the line numbers (the 'N | ' at the start of each line) and send the code alone."


def refusal(label: str) -> str:
    return (f"ERROR(INVALID_PAYLOAD): Refusing to write {label}: every line of the body starts with a line number "
            f"('N | '), as numbered views show lines; nothing was written.\n{HINT}")


def test_a_view_pasted_as_a_body_is_refused_even_forced(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "app.py").write_text(APP)
    shown = dispatcher.execute("/open app.py#A.abort").text
    assert shown == ("re: /open app.py#A.abort\nOpened app.py#A.abort\n---\n2 |     def abort(self):\n"
                     "3 |         return 1\n\n(method A.abort, lines 2-3 of 3)")
    pasted = "2 |     def abort(self):\n3 |         return 2\n"
    for header in ("/edit app.py#A.abort", "/edit --force app.py#A.abort"):
        assert dispatcher.execute(f"{header}\n{pasted}").text == f"re: {header}\n{refusal('app.py#A.abort')}"
    aligned = " 9 | a\n10 | b\n\n11 |\n"  # right-aligned numbers, an empty line's bare `11 |`
    assert dispatcher.execute(f"/write n.txt\n{aligned}").text == f"re: /write n.txt\n{refusal('n.txt')}"
    assert (ws / "app.py").read_text() == APP and not (ws / "n.txt").exists()


def test_numbers_that_do_not_count_up_or_not_on_every_line_are_text(dispatcher: Dispatcher, ws: Path) -> None:
    for body in ("1 | a\n3 | b\n", "| a | b |\n|---|---|\n1 | x\n", "1 | only this one\nand more\n"):
        reply = dispatcher.execute(f"/write --force t.md\n{body}").text
        assert reply.startswith(("re: /write --force t.md\nCreated: t.md",
                                 "re: /write --force t.md\nWritten: t.md")), body
        assert (ws / "t.md").read_text() == body


def test_the_json_tools_refuse_it_too(ws: Path) -> None:
    (ws / "app.py").write_text(APP)
    reply = call(ws, "edit_symbol", {"file_path": "app.py", "symbol": "A.abort", "force": True,
                                     "new_body": "2 |     def abort(self):\n3 |         return 2"})
    assert reply == {"id": 1, "ok": False, "code": "INVALID_PAYLOAD", "error": refusal("app.py#A.abort").split(
        "\n")[0].removeprefix("ERROR(INVALID_PAYLOAD): "), "hint": HINT}
    assert (ws / "app.py").read_text() == APP
