"""/open: documents, blocks, shortcuts, folders, text and binary files, the line budget; /info and /close keys."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body, make_notes

RENDERED = """[nav] main — /nav <name>
[actions] status  ·  /act --help (all)  ·  /act.<name> --help
[!] Missing required env: $NOTES_TOKEN_FOR_TESTS
    Set: /set $NOTES_TOKEN_FOR_TESTS="..."

# Notes

Read [GitHub][@github] or [the list][@todo].

## Setup

Install the tools, then run `make`.

## Usage

Use it daily."""


def test_open_document_renders_for_agents(ws: Path, dispatcher) -> None:
    make_notes(ws)
    # the menu unfolds on its first view in the topic (String), then only its name shows
    first = RENDERED.replace("[nav] main — /nav <name>", "[nav] main — first view\n[Setup][@main.setup]")
    assert dispatcher.execute("/open README.md").text == f"re: /open README.md\nOpened README.md\n---\n{first}"
    assert dispatcher.execute("/open README.md").text == f"re: /open README.md\nOpened README.md\n---\n{RENDERED}"


def test_required_variable_set_in_session_hides_the_warning(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute('/set {NOTES_TOKEN_FOR_TESTS} = "x"')
    assert "[!] Missing" not in dispatcher.execute("/open README.md").text


def test_open_block_and_block_of_current_document(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert dispatcher.execute("/open README.md#setup").text == (
        "re: /open README.md#setup\nOpened README.md#setup\n---\n## Setup\n\nInstall the tools, then run `make`."
    )
    assert body(dispatcher.execute("/open #tip").text) == "Opened README.md#tip\n---\nUse it daily."
    assert dispatcher.sessions["main"].history == []  # same document: no history entry


def test_missing_block_lists_available_blocks(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/open README.md#x").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #x in README.md\nAvailable blocks: notes, setup, usage, tip"
    )
    assert body(dispatcher.execute("/open todo.md#x").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #x in todo.md\nAvailable blocks: todo, today"
    )


def test_missing_file_and_usage(ws: Path, dispatcher) -> None:
    assert dispatcher.execute("/open nowhere.md").text == (
        "re: /open nowhere.md\nERROR(NOT_FOUND): File not found: nowhere.md\n/ls shows what is there."
    )
    usage = dispatcher.execute("/open")
    assert usage.code == "INVALID_TARGET"
    assert body(usage.text).startswith("ERROR(INVALID_TARGET): Usage: /open <path | path#block | #block | @shortcut>")
    assert body(dispatcher.execute("/open #tip").text) == (
        "ERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>."
    )


def test_open_alone_reopens_the_current_view(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md#tip")
    assert body(dispatcher.execute("/open").text) == "Opened README.md#tip\n---\nUse it daily."


def test_folder_lists_like_ls(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/open nav").text) == body(dispatcher.execute("/ls nav").text)
    # `/open nav` made nav/ the topic's folder (String's cwd override): `.` is nav/ now, `..` the root
    assert body(dispatcher.execute("/open .").text) == "Listing nav/\n---\n  main.md"
    assert body(dispatcher.execute("/open ..").text).startswith("Listing ./\n---\n  nav/\n")


def test_shortcuts_page_and_auto(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md")
    assert body(dispatcher.execute("/open @todo").text) == "Opened todo.md#today\n---\n## Today\n\n- ship"
    dispatcher.execute("/open README.md")  # web shortcuts now open: tests/actions/test_open_web.py
    assert body(dispatcher.execute("/open @nope").text) == (
        "ERROR(NOT_FOUND): Shortcut not found: @nope\nAvailable: @todo, @github"
    )


def test_relative_path_beside_the_open_document(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open nav/main.md")
    assert body(dispatcher.execute("/open main.md").text) == "Opened nav/main.md\n---\n[Setup][@setup]"


def test_text_and_binary_files(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/open notes.txt").text) == (
        "Opened notes.txt\n---\nplain [x](https://example.com) <!-- #m -->"
    )
    assert body(dispatcher.execute("/open logo.png").text) == (
        "Opened logo.png\n---\n[binary file] image/png, 272 bytes (not shown)"
    )


def test_line_budget_cuts_with_an_exact_read_on_hint(ws: Path, dispatcher) -> None:
    (ws / "big.md").write_text("".join(f"line {i}\n\n" for i in range(1, 11)))
    dispatcher.execute('/set {_max_lines} = "4"')
    assert body(dispatcher.execute("/open big.md").text) == (
        "Opened big.md\n---\nline 1\n\nline 2\n\n"
        "[cut] Output limit of 4 lines reached; the rest starts at source line 5 of 20. "
        "Read on: /open big.md --from 5"
    )
    assert body(dispatcher.execute("/open big.md --from 5").text).startswith("Opened big.md\n---\nline 3\n\nline 4\n\n")
    assert dispatcher.execute("/open big.md --from 0").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/open big.md --from").code == "INVALID_PAYLOAD"


def test_paths_outside_the_workspace_are_refused(ws: Path, dispatcher) -> None:
    reply = dispatcher.execute("/open ../outside.md")
    assert reply.code in {"INVALID_PATH", "FILE_NOT_ALLOWED"}


def test_info_shows_the_document_keys(ws: Path, dispatcher) -> None:
    make_notes(ws)
    (ws / "warn.md").write_text("<!-- #a -->\nnever closed\n")
    dispatcher.execute("/open README.md#tip")
    text = body(dispatcher.execute("/info").text)
    assert text.split("\n")[5:13] == [
        "file:      README.md",
        "title:     Notes",
        "block:     #tip",
        "blocks:    notes, setup, usage, tip",
        "menus:     main",
        "shortcuts: @todo",
        "actions:   status(GET)",
        "history:   0 entries",
    ]
    dispatcher.execute("/open warn.md")
    text = body(dispatcher.execute("/info").text)
    assert "history:   1 entry" in text
    assert text.endswith("Warnings:\n  line 1: block #a is not closed (add <!-- /a -->)")


def test_close_names_the_document_and_clears_the_topic(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md")
    dispatcher.execute("/open todo.md")
    assert dispatcher.execute("/close").text == "re: /close\nClosed: todo.md"
    session = dispatcher.sessions["main"]
    assert session.document is None and session.history == []
    assert body(dispatcher.execute("/back").text) == "ERROR(INVALID_TARGET): No previous page in history."


def test_a_new_process_reuses_the_disk_index(ws: Path) -> None:
    from tests.conftest import run_stringsh

    (ws / "long.md").write_text("# Long\n\n" + "".join(f"## Part {i}\n\ntext {i}\n\n" for i in range(1500)))
    first = run_stringsh(["-c", "/open long.md#part-700"], cwd=ws)
    assert first.stdout.decode() == (
        "re: /open long.md#part-700\nOpened long.md#part-700\n---\n## Part 700\n\ntext 700\n"
    )
    entries = sorted((ws / ".stringsh" / "cache" / "index").iterdir())  # the block index, what masking changes
    assert [entry.name.split(".")[1][0] for entry in entries] == ["m", "v"]
    stamps = [entry.stat().st_mtime_ns for entry in entries]
    again = run_stringsh(["-c", "/open long.md#part-1499"], cwd=ws)
    assert again.stdout.decode().startswith("re: /open long.md#part-1499\nOpened long.md#part-1499\n---\n## Part 1499")
    assert [entry.stat().st_mtime_ns for entry in entries] == stamps  # read, not rewritten
    assert body(run_stringsh(["-c", "/ls"], cwd=ws).stdout.decode()) == "Listing ./\n---\n  long.md\n"


def test_opening_a_document_loads_no_markdown_or_rich_library(ws: Path) -> None:
    import subprocess
    import sys

    (ws / "a.md").write_text("# A\n\n[x](https://example.com)\n")
    probe = (
        "import sys\nfrom stringsh.cli import main\nmain(['-c', '/open a.md'])\n"
        "print('HEAVY:', ','.join(n for n in ('markdown_it', 'mdit_py_plugins', 'rich') if n in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ws, capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines()[-1] == "HEAVY: ", out.stderr


def test_includes_go_through_the_engine_and_never_leak(ws: Path, dispatcher) -> None:
    (ws / ".env").write_text("SECRET=hunter2\n")
    (ws / "parts.md").write_text("## Tip\n\nshared tip\n")
    (ws / "a.md").write_text(
        "# A\n\n[!include:tip](./parts.md)\n[!include:x](./.env)\n[!include:x](../outside.md)\n"
        "[!include:x](./.stringsh/journal.db)\n"
    )
    text = body(dispatcher.execute("/open a.md").text)
    assert text == (
        "Opened a.md\n---\n# A\n\n## Tip\n\nshared tip\n"
        "⚠ Include failed: ./.env - Access to a secret file is denied: .env\n"
        "⚠ Include failed: ../outside.md - Path escapes the workspace root: ../outside.md\n"
        "⚠ Include failed: ./.stringsh/journal.db - .stringsh/ is stringsh's own state and cannot be used: "
        ".stringsh/journal.db"
    )
    assert "hunter2" not in text
    assert dispatcher.execute("/open .env").code == "SECRET_DENIED"


def test_an_included_file_includes_relative_to_itself(ws: Path, dispatcher) -> None:
    (ws / "docs" / "parts").mkdir(parents=True)
    (ws / "docs" / "guide.md").write_text("# Guide\n\n[!include:step](parts/steps.md)\n")
    (ws / "docs" / "parts" / "steps.md").write_text(
        "<!-- #step -->\nStep one.\n[!include:note](note.md)\n[!include:loop](../guide.md)\n<!-- /step -->\n"
    )
    (ws / "docs" / "parts" / "note.md").write_text("<!-- #note -->\nA note.\n<!-- /note -->\n")
    assert body(dispatcher.execute("/open docs/guide.md").text) == (
        "Opened docs/guide.md\n---\n# Guide\n\nStep one.\nA note.\n"
        "⚠ Circular include detected: ../guide.md (already included in this chain)"
    )

def test_block_output_is_cut_with_a_block_read_on_hint(ws: Path, dispatcher) -> None:
    (ws / "b.md").write_text("# Top\n\n## Long\n\n" + "".join(f"item {i}\n" for i in range(1, 9)) + "\n## After\n")
    dispatcher.execute('/set {_max_lines} = "4"')
    assert body(dispatcher.execute("/open b.md#long").text) == (
        "Opened b.md#long\n---\n## Long\n\nitem 1\nitem 2\n\n"
        "[cut] Output limit of 4 lines reached; the rest starts at source line 7 of 14. "
        "Read on: /open b.md#long --from 7"
    )
    assert body(dispatcher.execute("/open b.md#long --from 7").text) == (
        "Opened b.md#long\n---\nitem 3\nitem 4\nitem 5\nitem 6\n\n"
        "[cut] Output limit of 4 lines reached; the rest starts at source line 11 of 14. "
        "Read on: /open b.md#long --from 11"
    )


def test_hostile_link_syntax_costs_linear_time(ws: Path, dispatcher) -> None:
    # Each of these made a link pattern backtrack quadratically (a 200 KB file kept /open busy for minutes).
    hostile = {
        "spaces.md": "[@a" + " " * 200_000 + "x\n",
        "starts.md": "[@a b](" * 40_000 + "\n",
        "brackets.md": "[r]: https://r.example\n\n" + "[a" * 100_000 + "\n",
        "hrefs.md": "[a](" * 50_000 + "\n",
    }
    for name, text in hostile.items():
        (ws / name).write_text(text)
        assert dispatcher.execute(f"/open {name}").ok
        assert dispatcher.execute("/nav scaffold").ok
    (ws / "fine.md").write_text(
        "[@s Setup guide](docs/setup.md) [Site](https://a.example) [n][r] ![i](https://i.x) [x](y.md)\n"
        "\n[r]: https://r.example\n"
    )
    assert body(dispatcher.execute("/open fine.md").text) == (
        "Opened fine.md\n---\n[Setup guide][@s] [Site][@site] [n][@n] ![i][@i] [x](y.md)"
    )


def test_hostile_directive_lines_cost_linear_time(ws: Path, dispatcher) -> None:
    # Directive and reference patterns ran on past the line end: 20,000 such lines took seconds each, 1 MB minutes.
    hostile = {
        "refs.md": "[a\n" * 50_000,
        "navs.md": "[!nav:a](\n" * 50_000,
        "includes.md": "[!include:a](\n" * 50_000,
        "requirements.md": "[!requirements](\n" * 50_000,
    }
    for name, text in hostile.items():
        (ws / name).write_text(f"{text}[!nav:m](m.md)\n[!include:x](x.md)\n[r]: https://r.example\n[n][r]\n")
        assert body(dispatcher.execute(f"/open {name} --from 50001").text).startswith(
            f"Opened {name}\n---\n⚠ Include failed: x.md - File not found: x.md\n[n][@n]"
        )
        assert body(dispatcher.execute("/nav").text).startswith("Menus\n---\nm (0):")
