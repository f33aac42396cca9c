"""/patch's Codex format matches lines as Codex does (codexmatch.py): exactly first, then with trailing whitespace
ignored, then all surrounding whitespace, then Unicode punctuation folded; a relaxed match must be the only one.
Real-world shaped patches (an `@@ def …` line without the method's indentation, ASCII typed for an en dash), the
file's own context bytes kept, and refusals saying what was looked for, from where, and the nearest candidate."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher

RELAXED = "exactly or with whitespace and Unicode punctuation relaxed"
HINT = "Re-read those lines and redo the hunk: /open {}"


def patch(*lines: str) -> str:
    return "/patch\n" + "".join(line + "\n" for line in lines)


FLASK = (b"class Flask:\r\n"
         b"    def make_response(self) -> Response:\r\n"
         b"        raise NotImplementedError()\r\n"
         b"\r\n"
         b"    def abort(self) -> t.NoReturn:\r\n"
         b"        \"\"\"Stop.\"\"\"\r\n"
         b"        raise NotImplementedError()\r\n")


def test_an_unindented_at_line_finds_the_method_and_keeps_the_files_bytes(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "app.py").write_bytes(FLASK)
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: app.py", "@@ def abort(self) -> t.NoReturn:",
                                     ' """Stop."""', "-raise NotImplementedError()",
                                     "+        raise Abort(500)", "*** End Patch"))
    assert reply.text == "re: /patch\nPatched app.py (+1 -1)"
    assert (ws / "app.py").read_bytes() == FLASK.replace(b"raise NotImplementedError()\r\n",
                                                         b"raise Abort(500)\r\n").replace(
        b"raise Abort(500)\r\n\r\n", b"raise NotImplementedError()\r\n\r\n")


def test_each_level_in_turn(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "t.py").write_text("x = 1   \n    y = 2\nz = a \u2013 b  # \u201cq\u201d\u00a0end\n")
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: t.py", "@@", " x = 1", "-y = 2", "+y = 3",
                                     "-z = a - b  # \"q\" end", "+z = 0", "*** End Patch"))
    assert reply.text == "re: /patch\nPatched t.py (+2 -2)"
    assert (ws / "t.py").read_text() == "x = 1   \ny = 3\nz = 0\n"


def test_an_exact_match_wins_and_a_relaxed_one_must_be_the_only_one(dispatcher: Dispatcher, ws: Path) -> None:
    (ws / "a.txt").write_text("  x\nx\n")
    assert dispatcher.execute(patch("*** Begin Patch", "*** Update File: a.txt", "@@", "-x", "+X",
                                    "*** End Patch")).text == "re: /patch\nPatched a.txt (+1 -1)"
    assert (ws / "a.txt").read_text() == "  x\nX\n"
    (ws / "b.txt").write_text("    x\n\tx\n  x\n")
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: b.txt", "@@", "-x", "+X", "*** End Patch"))
    assert reply.text == (
        "re: /patch\nERROR(PATCH_FAILED): Chunk 1 of b.txt: its 1 context and removed lines (first: 'x') match "
        "nothing exactly and more than one place with surrounding whitespace ignored (lines 1, 2, 3); a relaxed "
        "match must be the only one. Add a context line that tells them apart. Nothing was written.\n"
        + HINT.format("b.txt"))
    assert (ws / "b.txt").read_text() == "    x\n\tx\n  x\n"
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: b.txt", "@@ x", "-x", "+X", "*** End Patch"))
    assert reply.text == (
        "re: /patch\nERROR(PATCH_FAILED): Chunk 1 of b.txt: its line '@@ x' matches nothing exactly and more than "
        "one place with surrounding whitespace ignored (lines 1, 2, 3); a relaxed match must be the only one. Add a "
        "context line that tells them apart. Nothing was written.\n" + HINT.format("b.txt"))


def test_refusals_say_what_was_looked_for_from_where_and_the_nearest_candidate(dispatcher: Dispatcher,
                                                                               ws: Path) -> None:
    (ws / "app.py").write_bytes(FLASK)
    cases = {
        ("@@ def abort(self) -> NoReturn:", "-raise NotImplementedError()", "+pass"): (
            "Chunk 1 of app.py: its line '@@ def abort(self) -> NoReturn:' is not in the file, " + RELAXED
            + "; the nearest to its first line is line 5: '    def abort(self) -> t.NoReturn:'."),
        ("@@ def abort(self) -> t.NoReturn:", ' """Stop."""', "-raise Abort()", "+pass"): (
            "Chunk 1 of app.py: its 2 context and removed lines (first: '\"\"\"Stop.\"\"\"') are not in the file "
            "after its @@ line (line 5), " + RELAXED + "; the nearest is line 6, where its first 1 of 2 lines "
            "match, then line 7 reads '        raise NotImplementedError()' where the patch has 'raise Abort()'."),
        ("@@ def abort(self) -> t.NoReturn:", "-raise NotImplementedError()", "+pass", "@@",
         " def make_response(self) -> Response:", "+    pass"): (
            "Chunk 2 of app.py: its 1 context and removed lines (first: 'def make_response(self) -> Response:') "
            "are not in the file after line 7 (where chunk 1 ended), " + RELAXED + "; it stands at line 2, before "
            "that (chunks come in the file's order)."),
        ("@@", " class Flask:", "+# end", "*** End of File"): (
            "Chunk 1 of app.py: its 1 context and removed lines (first: 'class Flask:') are not in the file at "
            "the end of the file, " + RELAXED + "; it stands at line 1, not at the end of the file."),
        ("@@", "-nothing like it at all", "+x"): (
            "Chunk 1 of app.py: its 1 context and removed lines (first: 'nothing like it at all') are not in the "
            "file, " + RELAXED + "."),
    }
    for lines, expected in cases.items():
        reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: app.py", *lines, "*** End Patch"))
        assert reply.text == f"re: /patch\nERROR(PATCH_FAILED): {expected} Nothing was written.\n" + HINT.format(
            "app.py"), lines
        assert (ws / "app.py").read_bytes() == FLASK
