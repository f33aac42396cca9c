"""The document service: history bound and watch release, the stale-write guard's texts, per-dispatcher state, and
the rule that commands never import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stringsh.commands
from stringsh.documents.guard import require_seen
from stringsh.documents.service import HISTORY_LIMIT
from stringsh.errors import StringError
from stringsh.render.watch import Watcher

#: Modules of `stringsh.commands` that hold no handler and that any command may import.
NEUTRAL = {"registry", "context", "table", "shellreply", "searchreply", "targets", "fsargs", "symbolrefs"}
#: Imports between command modules still waiting for their own fix: /exec borrows /bash's helpers until the shell is
#: reached through the engine. Delete the entry with that change; the test says when.
PENDING: dict[str, list[str]] = {}


def command_imports(source: str) -> set[str]:
    """Names of `stringsh.commands` submodules a module imports, at the top or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("stringsh.commands.")}
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "stringsh.commands":
                found |= {a.name for a in node.names}
            elif node.module.startswith("stringsh.commands."):
                found.add(node.module.split(".")[2])
    return found


def test_no_command_module_imports_another() -> None:
    folder = Path(stringsh.commands.__file__).parent
    offenders = {
        path.stem: sorted(command_imports(path.read_text(encoding="utf-8")) - NEUTRAL - {path.stem})
        for path in sorted(folder.glob("*.py"))
    }
    found = {name: imports for name, imports in offenders.items() if imports}
    assert found == PENDING, "a command imports another command module (or a PENDING entry is fixed: delete it)"


def test_the_import_check_sees_function_level_imports() -> None:
    source = "def f():\n    from stringsh.commands.act import x\n    import stringsh.commands.open\n"
    assert command_imports(source + "from stringsh.commands import nav\n") == {"act", "open", "nav"}


def test_history_is_bounded_and_dropped_views_stop_being_watched(ws: Path, dispatcher) -> None:
    for i in range(HISTORY_LIMIT + 3):
        (ws / f"d{i}.md").write_text(f"# D{i}\n")
    handles = []
    for i in range(HISTORY_LIMIT + 3):
        assert dispatcher.execute(f"/open d{i}.md").ok
        handles.append(dispatcher.session().document.watcher)
    history = dispatcher.session().history
    assert [view.path for view in history] == [f"d{i}.md" for i in range(2, HISTORY_LIMIT + 2)]
    assert [handle.closed for handle in handles[:2]] == [True, True]  # dropped: no longer watched
    assert not any(handle.closed for handle in handles[2:])
    assert all(handle.owner is dispatcher.documents.watcher for handle in handles)
    assert dispatcher.execute("/close").ok
    assert all(handle.closed for handle in handles)


def test_a_view_shared_with_history_keeps_its_watch(ws: Path, dispatcher) -> None:
    (ws / "a.md").write_text("# A\n\n## One\n\nx\n")
    (ws / "b.md").write_text("# B\n")
    dispatcher.execute("/open a.md")
    dispatcher.execute("/open #one")  # same file, same watch: no history entry
    watch = dispatcher.session().document.watcher
    dispatcher.execute("/open b.md")
    dispatcher.execute("/back")
    assert dispatcher.session().document.watcher is watch and not watch.closed


def test_reload_carries_block_and_watch_and_marks_the_file_seen(ws: Path, dispatcher) -> None:
    (ws / "a.md").write_text("# A\n\n## One\n\nx\n")
    dispatcher.execute("/open a.md#one")
    session = dispatcher.session()
    view = session.document
    (ws / "a.md").write_text("# A\n\n## One\n\ny\n")
    session.seen.clear()
    fresh = view.reload(view_loader(dispatcher))
    assert (fresh.block, fresh.watcher, fresh.doc.text) == ("one", view.watcher, "# A\n\n## One\n\ny\n")
    assert "a.md" not in session.seen  # the view alone does not know the topic; the service marks it
    assert dispatcher.execute("/refresh").ok
    assert session.seen["a.md"] == session.document.sha256


def view_loader(dispatcher):  # type: ignore[no-untyped-def]
    from stringsh.documents.service import DocumentService

    return DocumentService(dispatcher, dispatcher.session()).loader


def test_a_remote_page_that_changed_things_is_not_fetched_again() -> None:
    from stringsh.actions.remote import RemoteView
    from stringsh.render.document import Document
    from stringsh.render.view import DocumentView

    page = RemoteView("https://example.com/r", "markdown", Document.parse("# R\n"))
    assert page.remote and not DocumentView.remote
    with pytest.raises(StringError) as caught:
        page.reload(None)  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_TARGET"
    assert caught.value.text == (
        "https://example.com/r was the answer to a request that changes things; it is not sent again.\n"
        "Run the action again to get a fresh answer."
    )


def test_require_seen_texts() -> None:
    with pytest.raises(StringError) as unread:
        require_seen({}, "todo.md", label="todo.md")
    assert (unread.value.code, unread.value.text) == (
        "CONFLICT",
        "Refusing to overwrite existing file not read in this topic: todo.md\n"
        "Run /open todo.md or /edit todo.md first, then retry. "
        "Use --force only when you intend to replace the whole file.",
    )
    engine_conflict = StringError("CONFLICT", "todo.md changed since it was read; nothing was written.")
    for note, hint in ((True, " Use --force only when you intend to replace the whole file."), (False, "")):
        with pytest.raises(StringError) as changed, require_seen(
            {"todo.md": "abc"}, "todo.md", label="todo.md", force_note_on_change=note
        ).checked():
            raise engine_conflict
        assert changed.value.text == (
            "Refusing to overwrite todo.md: it changed since this topic read it.\n"
            f"Run /open todo.md or /edit todo.md again, then retry.{hint}"
        )


def test_require_seen_expected_hashes() -> None:
    assert require_seen({"a": "h"}, "a", label="a").expected == "h"
    assert require_seen({}, "a", label="a", force=True).expected is None
    assert require_seen({}, None, label="a").expected == ""  # a file that appears before the write is refused
    with pytest.raises(StringError) as appeared, require_seen({}, None, label="a").checked():
        raise StringError("CONFLICT", "a was created since it was read; nothing was written.")
    assert appeared.value.message == "a was created since it was read; nothing was written."  # the engine's words
    with pytest.raises(StringError) as other, require_seen({"a": "h"}, "a", label="a").checked():
        raise StringError("NOT_PERMITTED", "no")
    assert other.value.code == "NOT_PERMITTED"


def test_whole_file_edit_of_a_changed_file_is_refused_once_hashed(ws: Path, dispatcher, monkeypatch) -> None:
    (ws / "todo.md").write_text("- one\n")
    dispatcher.execute("/edit todo.md")
    (ws / "todo.md").write_text("- theirs\n")
    workspace = dispatcher.workspace
    calls: list[str] = []
    real = workspace.fingerprint
    monkeypatch.setattr(workspace, "fingerprint", lambda path: calls.append(path) or real(path))
    reply = dispatcher.execute("/edit todo.md\n- mine\n")
    assert reply.text == (
        "re: /edit todo.md\nERROR(CONFLICT): Refusing to overwrite todo.md: it changed since this topic read it.\n"
        "Run /open todo.md or /edit todo.md again, then retry."
    )
    assert (ws / "todo.md").read_text() == "- theirs\n"
    dispatcher.execute("/edit todo.md")
    calls.clear()
    assert dispatcher.execute("/write todo.md\n- mine\n").ok
    assert calls == []  # the guard hashes nothing; the engine's expected-hash check is the write's one hash


def test_edit_parses_force_without_changing_the_invocation(ws: Path, dispatcher, monkeypatch) -> None:
    from stringsh.commands import edit as edit_module
    from stringsh.commands.context import Context
    from stringsh.protocol.request import parse_invocation, parse_request

    (ws / "todo.md").write_text("- one\n")
    request = parse_request("/edit --force todo.md\n- two\n")
    invocation = parse_invocation(request, {})
    before = list(invocation.args)
    result = edit_module.edit(Context(dispatcher, dispatcher.session(), invocation, request))
    assert result.message == "Edited todo.md (1 line, whole file)"
    assert invocation.args == before == ["--force", "todo.md"]


def test_each_dispatcher_stops_its_own_watcher_on_close(ws: Path) -> None:
    from stringsh.dispatcher import Dispatcher

    (ws / "a.md").write_text("# A\n")
    one, two = Dispatcher(ws), Dispatcher(ws)
    one.execute("/open a.md")
    two.execute("/open a.md")
    watcher = one.documents.watcher
    assert watcher is not two.documents.watcher
    one.close()
    assert watcher._stopped and watcher._observer is None
    assert not two.documents.watcher._stopped
    two.close()


def test_a_stopped_watcher_never_starts_an_observer(tmp_path: Path) -> None:
    import threading

    (tmp_path / "a.md").write_text("a")
    watcher = Watcher()
    handle = watcher.watch(str(tmp_path / "a.md"))  # setup waits SETUP_DELAY in the background
    watcher.stop()
    for thread in threading.enumerate():  # the setup has run to its end, whatever it decided
        if thread.name == "stringsh-watch":
            thread.join()
    assert watcher._observer is None and not handle.scheduled
    handle.close()
