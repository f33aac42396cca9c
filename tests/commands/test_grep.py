"""/grep: matching lines grouped by file, `path:line: text`, a summary line with counts and skips."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def make_tree(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("import os\n\ndef main():\n    # TODO: parse args\n    return 0\n")
    (ws / "src" / "util.py").write_text("def helper():\n    pass  # todo later\n")
    (ws / "README.md").write_text("# App\nTODO: write docs\n")
    (ws / "blob.bin").write_bytes(b"TODO\x00\x01")


def test_literal_search_grouped_by_file_with_summary(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/grep TODO").text == (
        're: /grep TODO\nGrep "TODO" in ./: 2 matches in 2 files\n---\n'
        "README.md:2: TODO: write docs\n"
        "\n"
        "src/app.py:4:     # TODO: parse args\n"
        "\n"
        "2 matches in 2 files; skipped 1 binary or not UTF-8"
    )


def test_ignore_case_glob_context_and_path(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/grep todo src -i --glob '*.py' -C 1").text == (
        "re: /grep todo src -i --glob '*.py' -C 1\n"
        'Grep "todo" in src/: 2 matches in 2 files\n---\n'
        "src/app.py-3- def main():\n"
        "src/app.py:4:     # TODO: parse args\n"
        "src/app.py-5-     return 0\n"
        "\n"
        "src/util.py-1- def helper():\n"
        "src/util.py:2:     pass  # todo later\n"
        "\n"
        "2 matches in 2 files"
    )


def test_one_file(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute("/grep TODO README.md").text == (
        're: /grep TODO README.md\nGrep "TODO" in README.md: 1 match in 1 file\n---\n'
        "README.md:2: TODO: write docs\n\n1 match in 1 file"
    )


def test_context_gaps_are_marked(ws: Path, dispatcher) -> None:
    (ws / "a.txt").write_text("x\n1\n2\n3\n4\nx\n")
    assert dispatcher.execute("/grep x -C 1").text == (
        're: /grep x -C 1\nGrep "x" in ./: 2 matches in 1 file\n---\n'
        "a.txt:1: x\na.txt-2- 1\n--\na.txt-5- 4\na.txt:6: x\n\n"
        "2 matches in 1 file"
    )


def test_regex_and_no_matches(ws: Path, dispatcher) -> None:
    make_tree(ws)
    assert dispatcher.execute(r"/grep --regex '^def \w+\(' src").text == (
        r"re: /grep --regex '^def \w+\(' src" "\n"
        'Grep "^def \\w+\\(" in src/: 2 matches in 2 files\n---\n'
        "src/app.py:3: def main():\n\nsrc/util.py:1: def helper():\n\n"
        "2 matches in 2 files"
    )
    assert dispatcher.execute("/grep nowhere src").text == (
        're: /grep nowhere src\nGrep "nowhere" in src/: no matches\n---\n'
        "0 matches in 0 files"
    )


def test_max_stops_and_says_how_to_narrow(ws: Path, dispatcher) -> None:
    (ws / "a.txt").write_text("x\nx\nx\n")
    assert dispatcher.execute("/grep x --max 2").text == (
        're: /grep x --max 2\nGrep "x" in ./: 2 matches in 1 file\n---\n'
        "a.txt:1: x\na.txt:2: x\n\n"
        "2 matches in 1 file\n"
        "Stopped after 2 results: narrow the search (a path, --glob) or set --max N."
    )


def test_secret_in_a_hit_is_redacted_and_secret_files_are_not_searched(ws: Path, dispatcher) -> None:
    token = "ghp_" + "x" * 36
    (ws / "config.py").write_text(f"TOKEN = '{token}'  # needle\n")
    (ws / ".env").write_text("needle=1\n")
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "config").write_text("needle\n")
    reply = dispatcher.execute("/grep needle")
    assert reply.text == (
        're: /grep needle\nGrep "needle" in ./: 1 match in 1 file\n---\n'
        "config.py:1: TOKEN = '***REDACTED***'  # needle\n\n"
        "1 match in 1 file"
    )
    # a secret is never found by its own text, and the query is masked in the reply, its echo on `re:` too
    assert dispatcher.execute(f"/grep {token}").text == (
        're: /grep ***REDACTED***\nGrep "***REDACTED***" in ./: no matches\n---\n'
        "0 matches in 0 files"
    )


def test_long_lines_are_cut_and_marked(ws: Path, dispatcher) -> None:
    (ws / "min.js").write_text("needle" + "a" * 5000 + "\n")
    reply = dispatcher.execute("/grep needle")
    assert reply.text == (
        're: /grep needle\nGrep "needle" in ./: 1 match in 1 file\n---\n'
        f"min.js:1: needle{'a' * 4090} [cut at 4096 bytes]\n\n"
        "1 match in 1 file"
    )


def encoded_tree(ws: Path) -> str:
    """A file in each encoding /open reads, and a binary one; the token a Latin-1 line holds."""
    token = "ghp_" + "a" * 36
    (ws / "latin1.txt").write_bytes(b"un caf\xe9 cr\xe8me\ncaf\xe9 " + token.encode() + b"\n")
    (ws / "cp1252.txt").write_bytes(b"\x93Caf\xe9\x94 costs \x805\n")  # curly quotes and the euro sign
    (ws / "bom.txt").write_bytes("\ufeffcafé with a BOM\n".encode())
    (ws / "utf16.txt").write_bytes("café in UTF-16\n".encode("utf-16"))
    (ws / "blob.bin").write_bytes("\x00café binary\n".encode())
    return token


ALL_FOUND = ("bom.txt:1: café with a BOM\n\ncp1252.txt:1: “Café” costs €5\n\nlatin1.txt:1: un café crème\n"
             "latin1.txt:2: café ***REDACTED***\n\nutf16.txt:1: café in UTF-16\n\n5 matches in 4 files")


@pytest.mark.parametrize(("command", "reply"), [
    ("/grep CAFÉ -i", 'Grep "CAFÉ" in ./: 5 matches in 4 files\n---\n' + ALL_FOUND
     + "; skipped 1 binary or not UTF-8"),
    ("/grep CAFÉ -i --stats", 'Grep "CAFÉ" in ./: 5 matches in 4 files\n---\n' + ALL_FOUND
     + "; scanned 5 files (5 entries); skipped 1 binary or not UTF-8"),
    ("/grep Café", 'Grep "Café" in ./: 1 match in 1 file\n---\ncp1252.txt:1: “Café” costs €5\n\n1 match in 1 file'),
    ("/grep Café --stats", 'Grep "Café" in ./: 1 match in 1 file\n---\ncp1252.txt:1: “Café” costs €5\n\n'
     "1 match in 1 file; scanned 5 files (5 entries)"),
])
def test_latin1_and_cp1252_files_are_searched_as_open_shows_them(ws: Path, dispatcher, command: str,
                                                                reply: str) -> None:
    """Each rg path (its walk; with -i its prefilter of the counted walk) and the Python engine (the counted walk
    of a case-sensitive literal) give the reply: lines decoded as /open decodes them, masked, and only the binary
    file skipped."""
    token = encoded_tree(ws)
    assert dispatcher.execute("/open latin1.txt").text.startswith(
        "re: /open latin1.txt\nOpened latin1.txt\n---\nun café crème\ncafé ***REDACTED***\n\n[latin-1] ")
    text = dispatcher.execute(command).text
    assert token not in text
    assert text == f"re: {command}\n{reply}"


def test_a_utf8_query_finds_its_latin1_and_cp1252_bytes(ws: Path, dispatcher) -> None:
    encoded_tree(ws)
    assert dispatcher.execute("/grep '“Café” costs €'").text == (
        "re: /grep '“Café” costs €'\nGrep \"“Café” costs €\" in ./: 1 match in 1 file\n---\n"
        "cp1252.txt:1: “Café” costs €5\n\n1 match in 1 file")
    assert dispatcher.execute("/grep --regex 'caf. cr\\w+'").text == (
        "re: /grep --regex 'caf. cr\\w+'\nGrep \"caf. cr\\w+\" in ./: 1 match in 1 file\n---\n"
        "latin1.txt:1: un café crème\n\n1 match in 1 file")


@pytest.mark.parametrize(("request_text", "error"), [
    ("/grep", "ERROR(INVALID_PAYLOAD): Usage: /grep PATTERN [path] [--regex] [-i] [--glob G] [-C N] [--max N] "
              "[--stats]\nQuote a pattern that contains spaces: /grep 'two words' src"),
    ("/grep a b c", "ERROR(INVALID_PAYLOAD): Usage: /grep PATTERN [path] [--regex] [-i] [--glob G] [-C N] "
                    "[--max N] [--stats]\nQuote a pattern that contains spaces: /grep 'two words' src"),
    ("/grep ''", "ERROR(INVALID_PAYLOAD): Search query is empty.\nGive text to search for: /grep TEXT [path]."),
    ("/grep '  '", "ERROR(INVALID_PAYLOAD): Search query is empty.\nGive text to search for: /grep TEXT [path]."),
    ("/grep --regex '(a+)+$'", "ERROR(INVALID_PAYLOAD): Regex not accepted (a repeat inside a repeat can take "
                               "exponential time): (a+)+$\nRepeat the group's parts instead of nesting repeats, "
                               "e.g. (ab)+ rather than (a+b)+."),
    ("/grep --regex '(x'", "ERROR(INVALID_PAYLOAD): Not a valid regex (missing ), unterminated subpattern at "
                           "position 0): (x\nFix the pattern, or leave out --regex to search for the literal "
                           "text."),
    ("/grep x -C many", "ERROR(INVALID_PAYLOAD): -C needs a whole number from 0 to 50, got: many\n"
                        "For example -C 2."),
    ("/grep x --max", "ERROR(INVALID_PAYLOAD): --max needs a value.\nUsage: see /help grep."),
    ("/grep x -w", "ERROR(INVALID_PAYLOAD): Unknown flag for /grep: -w\nFlags of /grep: --regex, -i, --stats, "
                   "--glob, -C, --max. A path that starts with - goes after --: /grep -- -w"),
    ("/grep x ../", "ERROR(INVALID_PATH): Path escapes the workspace root: ../\nUse a path inside the workspace."),
    ("/grep x --glob ../*", "ERROR(INVALID_PATH): --glob pattern must not climb out with '..': ../*\n"
                            "Patterns name paths inside the workspace; give a folder as the path argument instead."),
    ("/grep x nowhere", "ERROR(NOT_FOUND): File not found: nowhere\n/ls shows what is there."),
])
def test_bad_input_is_a_coded_error(ws: Path, dispatcher, request_text: str, error: str) -> None:
    (ws / "a.txt").write_text("x\n")
    reply = dispatcher.execute(request_text)
    assert reply.text == f"re: {request_text}\n{error}"
    assert dispatcher.execute("/grep x").ok  # the loop goes on


def test_symlinks_met_during_the_walk_are_not_followed_and_counted_with_stats(ws: Path, dispatcher,
                                                                              tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.txt").write_text("needle outside\n")
    os.symlink(outside, ws / "dir-out")
    os.symlink(outside / "leak.txt", ws / "file-out.txt")
    (ws / "in.txt").write_text("needle inside\n")
    os.symlink("in.txt", ws / "alias.txt")  # inside, and not followed either: grep never follows a symlink
    assert dispatcher.execute("/grep needle").text == (
        're: /grep needle\nGrep "needle" in ./: 1 match in 1 file\n---\n'
        "in.txt:1: needle inside\n\n"
        "1 match in 1 file"
    )
    assert dispatcher.execute("/grep needle --stats").text == (
        're: /grep needle --stats\nGrep "needle" in ./: 1 match in 1 file\n---\n'
        "in.txt:1: needle inside\n\n"
        "1 match in 1 file; scanned 1 file (4 entries); skipped 3 symlinks"
    )
