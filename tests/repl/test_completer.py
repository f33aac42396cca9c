"""The completer, called directly on a real workspace and a real dispatcher (no prompt_toolkit app needed)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from stringsh.dispatcher import Dispatcher
from stringsh.repl.completer import StringCompleter, last_word
from stringsh.repl.sources import Sources

GUIDE = """# Guide

[@home Home page](README.md)
[!nav:main](nav/main.md)
See [the tracker](https://example.com/issues/1).

## Install {#setup}

Run it.

## Use it

<!-- #todo -->
- a
<!-- /todo -->

```act.deploy
CLI echo deploying {env}
  env, -e: string (required) "Where to deploy"
  dry: boolean (optional)
```

```act.ping
GET https://example.com/ping
```
"""


@pytest.fixture
def tree(ws: Path) -> Path:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text(GUIDE)
    (ws / "docs" / "notes.txt").write_text("plain\n")
    (ws / "my folder").mkdir()
    (ws / "my folder" / "a b.md").write_text("# A B\n")
    (ws / "README.md").write_text("# Readme\n\n## Start here\n")
    (ws / "Makefile").write_text("all:\n")
    (ws / ".env").write_text("TOKEN=secret\n")
    (ws / ".env.example").write_text("TOKEN=\n")
    (ws / ".hidden.md").write_text("# hidden\n")
    (ws / ".ssh").mkdir()
    (ws / ".ssh" / "id_rsa").write_text("key\n")
    return ws


def complete(dispatcher: Dispatcher, text: str) -> list[tuple[str, str, str]]:
    """(inserted text, displayed text, meta) of every candidate, with the word it replaces applied."""
    completer = StringCompleter(Sources(dispatcher, "main"))
    out = []
    for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True)):
        out.append((text[: len(text) + c.start_position] + c.text, c.display_text, c.display_meta_text))
    return out


def results(dispatcher: Dispatcher, text: str) -> list[str]:
    return [full for full, _display, _meta in complete(dispatcher, text)]


# command names --------------------------------------------------------------------------------------------


def test_command_names_come_with_their_summaries(tree: Path, dispatcher: Dispatcher) -> None:
    got = complete(dispatcher, "/l")
    assert ("/ls", "/ls", "List a folder of the workspace") in got
    names = results(dispatcher, "/")
    assert {"/ls", "/open", "/help", "/set", "/info", "/write"} <= set(names)


def test_only_slash_commands_are_offered(tree: Path, dispatcher: Dispatcher) -> None:
    names = results(dispatcher, "/")
    assert all(re.match(r"^/[a-z][a-z0-9_.-]*$", name) for name in names), names  # not `/!` nor hidden ones


def test_bash_mode_completes_meta_commands_and_paths_from_the_shell_folder(tree: Path, dispatcher: Dispatcher) -> None:
    assert dispatcher.execute("/bash").ok
    assert results(dispatcher, "//e") == ["//exit"]
    assert results(dispatcher, "cat docs/g") == ["cat docs/guide.md"]
    assert dispatcher.execute("cd docs").ok
    assert results(dispatcher, "cat g") == ["cat guide.md"]
    assert dispatcher.execute("cd /").ok
    assert results(dispatcher, "cat g") == []  # outside the workspace: nothing is offered
    assert dispatcher.execute("//exit").ok
    assert results(dispatcher, "/ls d") == ["/ls docs/"]


def test_command_names_are_case_insensitive_and_keep_a_request_id(tree: Path, dispatcher: Dispatcher) -> None:
    assert "/ls" in results(dispatcher, "/L")
    assert "[a1] /ls" in results(dispatcher, "[a1] /l")


def test_unknown_prefix_and_non_commands_offer_nothing(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/zzz") == []
    assert results(dispatcher, "hello wor") == []
    assert results(dispatcher, "") == []


def test_help_completes_command_names_and_errors(tree: Path, dispatcher: Dispatcher) -> None:
    assert "/help ls" in results(dispatcher, "/help l")
    assert "/help errors" in results(dispatcher, "/help er")


# paths ----------------------------------------------------------------------------------------------------


def test_paths_list_folders_first_with_a_slash(tree: Path, dispatcher: Dispatcher) -> None:
    got = results(dispatcher, "/open ")
    assert got[:2] == ["/open docs/", "/open 'my folder/"]
    assert "/open README.md" in got and "/open Makefile" in got


def test_paths_descend_into_folders(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open docs/g") == ["/open docs/guide.md"]
    assert results(dispatcher, "/ls do") == ["/ls docs/"]


def test_paths_never_offer_secrets_or_the_engine_folder(tree: Path, dispatcher: Dispatcher) -> None:
    dispatcher.execute("/write made.md\nx")  # creates .stringsh/ (the journal)
    assert (tree / ".stringsh").is_dir()
    dotted = results(dispatcher, "/open .")
    assert "/open .hidden.md" in dotted
    assert "/open .env.example" in dotted
    assert "/open .env" not in dotted
    assert not any(".ssh" in item or ".stringsh" in item for item in dotted)
    assert results(dispatcher, "/open .ssh/") == []
    assert results(dispatcher, "/open .stringsh/") == []


def test_dot_files_only_when_asked(tree: Path, dispatcher: Dispatcher) -> None:
    assert not any("/open ." in item for item in results(dispatcher, "/open "))


def test_paths_outside_the_workspace_offer_nothing(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open ../") == []
    assert results(dispatcher, "/open /etc/pa") == []
    assert results(dispatcher, "/open docs/../../") == []


def test_names_with_spaces_are_quoted(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open my") == ["/open 'my folder/"]
    assert results(dispatcher, "/open 'my folder/") == ["/open 'my folder/a b.md'"]


def test_case_insensitive_fallback(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open readme") == ["/open README.md"]


def test_commands_without_a_path_argument_offer_no_paths(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/info ") == []
    assert results(dispatcher, "/undo d") == []


def test_flags_come_from_the_command_syntax(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/write --f") == ["/write --force"]
    assert results(dispatcher, "/ls --") == []


def test_shell_commands_complete_their_arguments_as_paths(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "!cat docs/gu") == ["!cat docs/guide.md"]
    assert results(dispatcher, "!ca") == []  # the command word itself is left to the shell
    assert results(dispatcher, "!ls -") == []


# blocks, shortcuts, actions, variables ----------------------------------------------------------------------


def test_block_ids_of_a_named_file(tree: Path, dispatcher: Dispatcher) -> None:
    got = complete(dispatcher, "/open docs/guide.md#")
    assert [full for full, _d, _m in got] == [
        "/open docs/guide.md#guide",
        "/open docs/guide.md#setup",
        "/open docs/guide.md#use-it",
        "/open docs/guide.md#todo",
    ]
    assert got[0][1] == "#guide" and got[0][2] == "block of docs/guide.md"
    assert results(dispatcher, "/verify docs/guide.md#t") == ["/verify docs/guide.md#todo"]


def test_block_ids_of_the_open_document(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open #") == []  # nothing open yet
    assert dispatcher.execute("/open docs/guide.md").ok
    assert results(dispatcher, "/open #se") == ["/open #setup"]
    assert dispatcher.execute("/open README.md").ok
    assert results(dispatcher, "/open #") == ["/open #readme", "/open #start-here"]


def test_block_ids_of_missing_binary_or_secret_files_are_empty(tree: Path, dispatcher: Dispatcher) -> None:
    (tree / "blob.md").write_bytes(b"\x00\x01# x\n")
    assert results(dispatcher, "/open nothere.md#") == []
    assert results(dispatcher, "/open blob.md#") == []
    assert results(dispatcher, "/open .env#") == []
    assert results(dispatcher, "/open ../x.md#") == []


def test_shortcuts_of_the_open_page(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open @") == []
    assert dispatcher.execute("/open docs/guide.md").ok
    got = complete(dispatcher, "/open @")
    assert ("/open @home", "@home", "Home page") in got
    assert "/open @the-tracker" in [full for full, _d, _m in got]


def test_action_names_and_flags(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/act ") == []
    assert dispatcher.execute("/open docs/guide.md").ok
    assert results(dispatcher, "/act ") == ["/act deploy", "/act ping"]
    assert results(dispatcher, "/act.d") == ["/act.deploy"]
    flags = complete(dispatcher, "/act.deploy --")
    assert ("/act.deploy --env", "--env", "string required Where to deploy") in flags
    assert "/act.deploy --dry" in [full for full, _d, _m in flags]
    assert "/act.deploy --help" in [full for full, _d, _m in flags]
    assert "/act deploy -e" in results(dispatcher, "/act deploy -")
    assert results(dispatcher, "/act nosuch --") == ["/act nosuch --help"]


def test_nav_menus_exec_arguments_and_act_help(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/nav ") == ["/nav page", "/nav scaffold"]
    assert dispatcher.execute("/open docs/guide.md").ok
    assert complete(dispatcher, "/nav m") == [("/nav main", "main", "nav/main.md")]
    assert results(dispatcher, "/nav main ") == []
    assert results(dispatcher, "/exec cat docs/g") == ["/exec cat docs/guide.md"]
    assert results(dispatcher, "/exec ca") == []
    assert results(dispatcher, "/exec --t") == ["/exec --timeout"]
    assert results(dispatcher, "/act --") == ["/act --help"]


def test_variables(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open {") == []
    assert dispatcher.execute('/set {name} = "docs/guide.md"').ok
    assert dispatcher.execute("/set {other} = 2").ok
    got = complete(dispatcher, "/open {na")
    assert got == [("/open {name}", "{name}", "docs/guide.md")]
    assert results(dispatcher, "!echo {o") == ["!echo {other}"]


# robustness -----------------------------------------------------------------------------------------------


def test_body_lines_are_not_completed(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/write notes.md\n/op") == []


@pytest.mark.parametrize(
    "text", ['/open "docs', "/open 'unclosed", "/open \x00", "/open #\x1b[31m", "/" * 300, "/act '", "/open {{{", "[x"]
)
def test_odd_input_never_raises(tree: Path, dispatcher: Dispatcher, text: str) -> None:
    complete(dispatcher, text)


def test_last_word_respects_quotes() -> None:
    assert last_word("/open 'my folder/a") == "'my folder/a"
    assert last_word("/open a b") == "b"
    assert last_word("/open ") == ""


def test_blocks_complete_after_a_quoted_path(tree: Path, dispatcher: Dispatcher) -> None:
    assert results(dispatcher, "/open 'my folder/a b.md'#") == ["/open 'my folder/a b.md'#a-b"]
    assert results(dispatcher, '/open "my folder/a b.md#') == ['/open "my folder/a b.md#a-b']


def test_a_name_that_is_not_utf8_is_offered_escaped_beside_the_others(ws: Path, dispatcher: Dispatcher) -> None:
    """A folder holding `caf\\xe9.txt` (a byte that is not UTF-8) and a folder `d\\xe9r`: the other names complete
    as before; those two are shown as every reply shows them, and inserted as a word that reaches them: bash's
    `$'…'` (the exact bytes) in a shell command, the escaped form on a String Commands line (whose refusal says how
    to reach the file). No raw surrogate is ever displayed or inserted."""
    root = os.fsencode(ws)
    os.mkdir(root + b"/d\xe9r")
    (ws / "cafe.txt").write_text("plain\n")
    with open(root + b"/caf\xe9.txt", "wb") as f:
        f.write(b"latin\n")
    assert complete(dispatcher, "/open ") == [
        ('/open "d\\xe9r/"', '"d\\xe9r"/', ""), ("/open cafe.txt", "cafe.txt", ""),
        ('/open "caf\\xe9.txt"', '"caf\\xe9.txt"', "")]
    assert complete(dispatcher, "!cat caf") == [("!cat cafe.txt", "cafe.txt", ""),
                                                ("!cat $'caf\\xe9.txt'", '"caf\\xe9.txt"', "")]
    assert results(dispatcher, "!ls d") == ["!ls $'d\\xe9r/'"]
    assert dispatcher.execute("!cat $'caf\\xe9.txt'").text.endswith("---\nlatin")  # the inserted word is the file
    assert dispatcher.execute('/open "caf\\xe9.txt"').text == (
        're: /open "caf\\xe9.txt"\nERROR(NOT_FOUND): File not found: caf\\xe9.txt\nstringsh reaches only names that '
        'are UTF-8; this one is shown escaped, "caf\\xe9.txt", and that form cannot be typed back. Rename it in the '
        "shell: !mv $'caf\\xe9.txt' NEW_NAME")
