"""Masking before matching: every query meets text as the reply shows it, secrets masked. A
name, line or path that masking hides is never found, counted, ranked or suggested by its own characters, so it
cannot be recovered a character at a time: `ghp_a*` (the token's first letter) and `ghp_b*` (a wrong one) get the
same reply. The mask itself (`***REDACTED***`) is text like any other and may be searched for.

Through the real program (`stringsh run`, one process per script), with the JSON tools' `symbols` beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import script_replies
from tests.dialects.tools.client import tools

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"  # 36 letters: a GitHub token to the built-in patterns
NEAR = TOKEN[:-1] + "X"  # one letter off: close enough for a "did you mean"


@pytest.fixture
def planted(ws: Path) -> Path:
    (ws / "mod.py").write_text(f"def {TOKEN}(): pass\n\n\ndef helper():\n    return {TOKEN}()\n")
    (ws / f"{TOKEN}.txt").write_text("named after a token\n")
    (ws / "conf.txt").write_text(f'tok = "{TOKEN}"\n')
    (ws / "blob.dat").write_bytes(f'tok = "{TOKEN}"\n'.encode() + b"\xff\xfe\x00 not UTF-8\n")
    return ws


def test_a_symbol_named_after_a_token_is_not_found_by_its_letters(planted: Path) -> None:
    right, wrong, whole, refs = script_replies(
        planted, f"/symbols ghp_a*\n/symbols ghp_b*\n/symbols {TOKEN}\n/symbols --refs {TOKEN}\n")
    assert right == ('re: /symbols ghp_a*\nSymbols "ghp_a*" in ./: none found\n---\n'
                     "0 definitions in 0 files; 0 source files indexed; scanned 4 files (4 entries)")
    assert wrong == right.replace("ghp_a*", "ghp_b*")
    # the token itself, asked for whole, is masked in the reply and found nowhere
    assert whole == ('re: /symbols ***REDACTED***\nSymbols "***REDACTED***" in ./: none found\n---\n'
                     "0 definitions in 0 files; 0 source files indexed; scanned 4 files (4 entries)")
    assert refs == ('re: /symbols --refs ***REDACTED***\nReferences to "***REDACTED***" in ./: none found\n---\n'
                    "By syntax, not types: roles come from the parse (definitions, imports, parameters and locals by "
                    "function scope, `x.name` access); what a value holds is not known, so `obj.***REDACTED***` is a "
                    "member of whatever obj is, and names a star import or a re-export brings in are not followed.\n"
                    "0 occurrences in 0 files; 0 source files indexed; scanned 4 files (4 entries)")


def test_the_mask_is_searched_as_shown(planted: Path) -> None:
    definitions, refs = script_replies(planted, "/symbols *REDACTED*\n/symbols --refs ***REDACTED***\n")
    assert definitions == ('re: /symbols *REDACTED*\nSymbols "*REDACTED*" in ./: 1 definition in 1 file\n---\n'
                           "@s1 mod.py:L1  function  #***REDACTED***\n\n"
                           "Open one: /open @s1 (or /open mod.py#***REDACTED***)\n"
                           "1 definition in 1 file; 1 source file indexed; scanned 4 files (4 entries)")
    assert refs == ('re: /symbols --refs ***REDACTED***\nReferences to "***REDACTED***" in ./: 2 occurrences in 1 '
                    "file\n---\nmod.py:1:5: definition at top level: def ***REDACTED***(): pass\n"
                    "mod.py:5:12: use in #helper: return ***REDACTED***()\n\n"
                    "By syntax, not types: roles come from the parse (definitions, imports, parameters and locals by "
                    "function scope, `x.name` access); what a value holds is not known, so `obj.***REDACTED***` is a "
                    "member of whatever obj is, and names a star import or a re-export brings in are not followed.\n"
                    "2 occurrences in 1 file; 1 source file indexed; scanned 4 files (4 entries)")


def test_the_json_symbols_tool_matches_masked_names(planted: Path) -> None:
    replies = tools(planted, *({"id": q, "tool": "symbols", "args": {"query": q}}
                               for q in ("ghp_a*", "ghp_b*", "helper")))
    assert [r["result"] for r in replies[:2]] == [{"symbols": []}, {"symbols": []}]
    assert [s["name"] for s in replies[2]["result"]["symbols"]] == ["helper"]


def test_grep_finds_no_line_and_counts_no_file_by_a_secrets_letters(planted: Path) -> None:
    right, wrong = script_replies(planted, "/grep ghp_a\n/grep ghp_b\n")
    # blob.dat holds the token but is not UTF-8: it is not counted as "holding the query" either
    assert right == 're: /grep ghp_a\nGrep "ghp_a" in ./: no matches\n---\n0 matches in 0 files'
    assert wrong == right.replace("ghp_a", "ghp_b")


def test_a_regex_that_also_matches_the_mask_tells_nothing_of_the_secret(planted: Path) -> None:
    right, wrong = script_replies(planted, "/grep --regex 'ghp_a|EDACT' conf.txt\n"
                                           "/grep --regex 'ghp_b|EDACT' conf.txt\n")
    assert right == ("re: /grep --regex 'ghp_a|EDACT' conf.txt\nGrep \"ghp_a|EDACT\" in conf.txt: 1 match in 1 file\n"
                     '---\nconf.txt:1: tok = "***REDACTED***"\n\n1 match in 1 file')
    assert wrong == right.replace("ghp_a", "ghp_b")


def test_an_undecodable_file_is_counted_by_its_masked_text(planted: Path) -> None:
    (reply,) = script_replies(planted, "/grep REDACTED blob.dat\n")
    assert reply == ('re: /grep REDACTED blob.dat\nGrep "REDACTED" in blob.dat: no matches\n---\n'
                     "0 matches in 0 files; skipped 1 binary or not UTF-8")


def test_glob_and_grep_glob_match_a_token_named_file_as_shown(planted: Path) -> None:
    a, b, either_a, either_b, mask, grep_a, grep_b = script_replies(planted, (
        "/glob ghp_a*\n/glob ghp_b*\n/glob '{ghp_a*,*REDACTED*}'\n/glob '{ghp_b*,*REDACTED*}'\n/glob '*REDACTED*'\n"
        "/grep token --glob 'ghp_a*'\n/grep token --glob 'ghp_b*'\n"))
    assert a == "re: /glob ghp_a*\nGlob ghp_a* in ./: no files\n---\n0 files"
    assert b == a.replace("ghp_a", "ghp_b")
    assert either_a == ("re: /glob '{ghp_a*,*REDACTED*}'\nGlob {ghp_a*,*REDACTED*} in ./: 1 file, by path\n---\n"
                        "***REDACTED***.txt\n\n1 file")
    assert either_b == either_a.replace("ghp_a", "ghp_b")
    assert mask == ("re: /glob '*REDACTED*'\nGlob *REDACTED* in ./: 1 file, by path\n---\n"
                    "***REDACTED***.txt\n\n1 file")
    assert grep_a == "re: /grep token --glob 'ghp_a*'\nGrep \"token\" in ./: no matches\n---\n0 matches in 0 files"
    assert grep_b == grep_a.replace("ghp_a", "ghp_b")


def test_did_you_mean_never_names_a_masked_name(planted: Path) -> None:
    path, block, near = script_replies(planted, f"/open {NEAR}.txt\n/open mod.py#{NEAR}\n/open mod.py#helpr\n")
    assert path == ("re: /open ***REDACTED***.txt\nERROR(NOT_FOUND): File not found: ***REDACTED***.txt\n"
                    "/ls shows what is there.")
    assert block == ("re: /open mod.py#***REDACTED***\nERROR(BLOCK_NOT_FOUND): Block not found: #***REDACTED*** in "
                     "mod.py\nAvailable blocks: ***REDACTED***, helper")
    assert near == ("re: /open mod.py#helpr\nERROR(BLOCK_NOT_FOUND): Block not found: #helpr in mod.py\n"
                    "Did you mean #helper? Available blocks: ***REDACTED***, helper")
