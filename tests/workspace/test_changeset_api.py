"""The public change-set API (docs/change-sets.md): `Hunk`, `Patch`, `ChangeSet(patches=...)`, `ChangeSet.new`,
`Workspace.apply -> ChangeSetId`, `Workspace.revert(id)`. The tests named A1-A5 are the seed's acceptance criteria;
the others pin exact hunk application, the allow/deny lists and budgets, each refusal leaving every file as it was.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, ChangeSetId, Hunk, Patch, Workspace
from stringsh.workspace.atomic import sha256
from stringsh.workspace.textio import split_lines
from tests.workspace.test_fidelity import CORPUS, raw_of


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.parts}


def refused(workspace: Workspace, changeset: ChangeSet) -> StringError:
    before = snapshot(workspace.root)
    with pytest.raises(StringError) as caught:
        workspace.apply(changeset)
    assert snapshot(workspace.root) == before  # nothing written
    return caught.value


def policy_workspace(root: Path, toml: str) -> Workspace:
    (root / "stringsh.toml").write_text(toml)
    return Workspace.load(root)


# -- the API's acceptance --------------------------------------------------------------------------------------


def test_A1_valid_changeset_applies_atomically_and_returns_a_changesetid(engine: Workspace) -> None:
    (engine.root / "a.py").write_bytes(b"import os\nprint('hi')\nmain()\n")
    (engine.root / "b.py").write_bytes(b"x = 1\n")
    changeset = ChangeSet.new([
        Patch("a.py", [Hunk(1, 3, 1, 3, " import os\n-print('hi')\n+print('hello')\n main()\n")]),
        Patch("b.py", [Hunk(1, 1, 1, 2, " x = 1\n+y = 2\n")], expected_prev_sha256=sha256(b"x = 1\n")),
        Patch("docs/new.md", [Hunk(0, 0, 1, 1, "+# New\n")], action="create"),
    ])
    change = engine.apply(changeset)
    assert isinstance(change, ChangeSetId) and repr(change) == f"ChangeSetId({int(change)})"
    assert (engine.root / "a.py").read_bytes() == b"import os\nprint('hello')\nmain()\n"
    assert (engine.root / "b.py").read_bytes() == b"x = 1\ny = 2\n"
    assert (engine.root / "docs/new.md").read_bytes() == b"# New\n"
    rows = engine.journal.files(change)  # one change set holds all three: one id, one revert
    assert [row.path for row in rows] == ["a.py", "b.py", "docs/new.md"]
    assert engine.journal.get(change).state == "done"


def test_A2_changeset_off_the_allow_list_or_on_the_deny_list_is_blocked(tmp_path: Path) -> None:
    workspace = policy_workspace(tmp_path, '[changes]\nallow_globs = ["src/*.py", "docs/**"]\n'
                                           'deny_globs = ["docs/private/**"]\n')
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "docs" / "private").mkdir(parents=True)
    for name in ("src/a.py", "src/pkg/b.py", "docs/private/c.md", "docs/d.md"):
        (tmp_path / name).write_text("one\n")
    hunk = [Hunk(1, 1, 1, 1, "-one\n+two\n")]
    # `*` never crosses `/`: src/pkg/b.py is not covered by src/*.py
    error = refused(workspace, ChangeSet.new([Patch("src/a.py", hunk), Patch("src/pkg/b.py", hunk)]))
    assert (error.code, error.message) == (
        "NOT_PERMITTED", "Path is not on the policy's change allow-list: src/pkg/b.py")
    error = refused(workspace, ChangeSet.new([Patch("docs/d.md", hunk), Patch("docs/private/c.md", hunk)]))
    assert (error.code, error.text) == (
        "NOT_PERMITTED",
        "Path is on the policy's change deny list: docs/private/c.md\n"
        "The policy's [changes] deny_globs keep changes away from it; nothing was written.",
    )
    # whole-file changes go through the same lists
    error = refused(workspace, ChangeSet().write("docs/private/c.md", b"x\n"))
    assert error.message == "Path is on the policy's change deny list: docs/private/c.md"
    # `**` does cross `/`
    workspace.apply(ChangeSet.new([Patch("docs/d.md", hunk), Patch("src/a.py", hunk)]))
    assert (tmp_path / "docs/d.md").read_text() == (tmp_path / "src/a.py").read_text() == "two\n"
    workspace.close()


def test_A3_changeset_over_budget_is_blocked_with_the_budget_status(tmp_path: Path) -> None:
    workspace = policy_workspace(tmp_path, "[changes]\nmax_files = 2\nmax_loc = 4\n")
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("1\n2\n3\n")
    one = [Hunk(1, 1, 1, 1, "-1\n+one\n")]
    error = refused(workspace, ChangeSet.new([Patch(n, one) for n in ("a.txt", "b.txt", "c.txt")]))
    assert (error.code, error.text) == (
        "BUDGET_EXCEEDED",
        "Too many files: 3 > 2 (this change set: 3 files, 6 lines; allowed: 2 files, 4 lines)\n"
        "Split the change into smaller change sets, or raise [changes] max_files / max_loc in the policy.",
    )
    three = [Hunk(1, 3, 1, 3, "-1\n-2\n-3\n+one\n+two\n+three\n")]
    error = refused(workspace, ChangeSet.new([Patch("a.txt", three)]))
    assert (error.code, error.message) == (
        "BUDGET_EXCEEDED", "Too many lines changed: 6 > 4 (this change set: 1 file, 6 lines; allowed: 2 files, 4 lines)"
    )
    # context lines do not count: two files, two lines changed each, is within the budget
    workspace.apply(ChangeSet.new([Patch("a.txt", [Hunk(1, 2, 1, 2, " 1\n-2\n+two\n")]),
                                   Patch("b.txt", [Hunk(2, 2, 2, 2, "-2\n+two\n 3\n")])]))
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text() == "1\ntwo\n3\n"
    workspace.close()


def test_A4_revert_by_id_undoes_every_file_of_the_changeset(engine: Workspace) -> None:
    (engine.root / "keep.txt").write_bytes(b"a\nb\n")
    (engine.root / "gone.txt").write_bytes(b"bye\n")
    change = engine.apply(ChangeSet.new([
        Patch("keep.txt", [Hunk(2, 1, 2, 1, "-b\n+B\n")]),
        Patch("gone.txt", [Hunk(1, 1, 0, 0, "-bye\n")], action="delete"),
        Patch("made.txt", [Hunk(0, 0, 1, 1, "+new\n")], action="create"),
    ]))
    later = engine.apply(ChangeSet().write("other.txt", b"unrelated\n"))
    outcome = engine.revert(change)
    assert outcome.reverted_id == change
    assert sorted((f.rel, f.action) for f in outcome.files) == [
        ("gone.txt", "restored"), ("keep.txt", "reverted"), ("made.txt", "deleted")]
    assert snapshot(engine.root) == {"gone.txt": b"bye\n", "keep.txt": b"a\nb\n", "other.txt": b"unrelated\n"}
    assert engine.journal.get(later).state == "done"  # the later change set is left as it is


@pytest.mark.parametrize("name", list(CORPUS))
def test_A5_apply_then_revert_leaves_every_byte_and_mode_as_before(engine: Workspace, name: str) -> None:
    text, encoding, bom, _, final = CORPUS[name]
    raw = raw_of(text, encoding, bom)
    path = engine.root / name
    path.write_bytes(raw)
    os.chmod(path, 0o751)
    lines = split_lines(text)
    marker = "\\ No newline at end of file\n" if len(lines) == 3 and not final else ""
    hunk = Hunk(1, 3, 1, 4, f" {lines[0]}\n-{lines[1]}\n+two PATCHED é\n+added\n {lines[2]}\n{marker}")
    change = engine.apply(ChangeSet.new([Patch(name, [hunk], expected_prev_sha256=sha256(raw))]))
    patched = engine.read_text(name)
    assert split_lines(patched.text) == [lines[0], "two PATCHED é", "added", *lines[2:]]
    assert (patched.encoding, patched.bom) == (encoding, bom)
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    engine.revert(change)
    assert path.read_bytes() == raw
    assert stat.S_IMODE(path.stat().st_mode) == 0o751


# -- exact hunks ---------------------------------------------------------------------------------------------------


def test_lf_hunks_keep_a_crlf_file_crlf_and_its_bom(engine: Workspace) -> None:
    (engine.root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    engine.apply(ChangeSet.new([Patch("w.txt", [Hunk(2, 2, 2, 3, "-two\n+TWO\n+2b\n three\n")])]))
    assert (engine.root / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\nTWO\r\n2b\r\nthree\r\n"
    # a diff made against the CRLF file (its lines end in \r) applies the same way
    engine.apply(ChangeSet.new([Patch("w.txt", [Hunk(1, 2, 1, 2, " one\r\n-TWO\r\n+two\r\n")])]))
    assert (engine.root / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\n2b\r\nthree\r\n"


def test_no_newline_at_end_of_file_is_honoured_both_ways(engine: Workspace) -> None:
    (engine.root / "n.txt").write_bytes(b"a\nlast")
    hunk = Hunk(2, 1, 2, 2, "-last\n\\ No newline at end of file\n+last\n+more\n")
    engine.apply(ChangeSet.new([Patch("n.txt", [hunk])]))
    assert (engine.root / "n.txt").read_bytes() == b"a\nlast\nmore\n"
    engine.apply(ChangeSet.new([Patch("n.txt", [Hunk(3, 1, 3, 1, "-more\n+end\n\\ No newline at end of file\n")])]))
    assert (engine.root / "n.txt").read_bytes() == b"a\nlast\nend"
    # the file's last line has no line break, the hunk says it has one: refused, not guessed
    error = refused(engine, ChangeSet.new([Patch("n.txt", [Hunk(3, 1, 3, 1, "-end\n+END\n")])]))
    assert error.message == (
        "Hunk 1 of n.txt (@@ -3,1 +3,1 @@) does not match line 3: expected 'end' and a line break, the file's last "
        "line has none (the diff needs \\ No newline at end of file). Nothing was written."
    )


def test_mismatch_names_file_hunk_line_expected_and_found(engine: Workspace) -> None:
    (engine.root / "a.txt").write_bytes(b"1\n2\n3\n4\n5\n6\n")
    (engine.root / "b.txt").write_bytes(b"x\n")
    error = refused(engine, ChangeSet.new([
        Patch("b.txt", [Hunk(1, 1, 1, 1, "-x\n+y\n")]),
        Patch("a.txt", [Hunk(1, 1, 1, 1, "-1\n+one\n"), Hunk(4, 2, 4, 2, " 4\n-5 \n+five\n")]),
    ]))
    assert (error.code, error.text) == (
        "PATCH_FAILED",
        "Hunk 2 of a.txt (@@ -4,2 +4,2 @@) does not match line 5: expected '5 ', the file holds '5'. Nothing was "
        "written.\nRead a.txt lines 4-5 again and redo the hunk.",
    )
    error = refused(engine, ChangeSet.new([Patch("a.txt", [Hunk(6, 2, 6, 2, " 6\n-7\n+seven\n")])]))
    assert error.message == ("Hunk 1 of a.txt (@@ -6,2 +6,2 @@) does not match line 7: expected '7', the file has "
                             "only 6 lines. Nothing was written.")


def test_bad_changesets_are_refused_before_any_file_is_read(engine: Workspace) -> None:
    (engine.root / "a.txt").write_bytes(b"one\n")
    with pytest.raises(StringError) as caught:
        ChangeSet.new([Patch("a.txt", [Hunk(1, 2, 1, 1, "-one\n+two\n")])])
    assert (caught.value.code, caught.value.text) == (
        "INVALID_PAYLOAD",
        "Hunk 1 of a.txt (@@ -1,2 +1,1 @@): the header counts 2 old and 1 new lines, the body has 1 and 1.\n"
        "Make the @@ header count the hunk's lines (context and removed: old; context and added: new), or make the "
        "diff again (git diff, diff -u).",
    )
    with pytest.raises(StringError) as caught:
        ChangeSet.new([Patch("a.txt", []), Patch("./a.txt", [])])
    assert caught.value.message == "The change set patches ./a.txt twice; nothing was written."
    # the same checks when the ChangeSet is built directly
    error = refused(engine, ChangeSet(patches=[Patch("a.txt", [Hunk(1, 1, 1, 1, "*one\n+two\n")])]))
    assert error.message == "Hunk 1 of a.txt (@@ -1,1 +1,1 @@): line 1 of its body starts with '*'."
    error = refused(engine, ChangeSet(files=[], patches=[]))
    assert (error.code, error.message) == ("INVALID_PAYLOAD", "Empty change set.")
    # a whole-file change and a patch of the same file in one change set
    error = refused(engine, ChangeSet(ChangeSet().write("a.txt", b"x\n").files, [Patch("a.txt", [])]))
    assert error.message == "The change set names a.txt twice."


def test_stale_file_new_file_that_exists_and_delete_that_differs_are_refused(engine: Workspace) -> None:
    (engine.root / "a.txt").write_bytes(b"one\ntwo\n")
    error = refused(engine, ChangeSet.new([Patch("a.txt", [Hunk(1, 1, 1, 1, "-one\n+1\n")],
                                                 expected_prev_sha256=sha256(b"one\n"))]))
    assert (error.code, error.text) == ("CONFLICT", "a.txt changed since it was read; nothing was written.\n"
                                                    "Read a.txt again and redo the patch.")
    error = refused(engine, ChangeSet.new([Patch("a.txt", [Hunk(0, 0, 1, 1, "+x\n")], action="create")]))
    assert (error.code, error.message) == (
        "CONFLICT", "a.txt already exists; the patch creates it as a new file. Nothing was written.")
    error = refused(engine, ChangeSet.new([Patch("a.txt", [Hunk(1, 1, 0, 0, "-one\n")], action="delete")]))
    assert (error.code, error.message) == (
        "PATCH_FAILED", "The patch deletes a.txt, but 1 of its lines are not among the lines it removes. Nothing was "
        "written.")
    error = refused(engine, ChangeSet.new([Patch("missing.txt", [Hunk(1, 1, 1, 1, "-a\n+b\n")])]))
    assert (error.code, error.message) == ("NOT_FOUND", "File not found: missing.txt; nothing was written.")
    error = refused(engine, ChangeSet.new([Patch(".env", [Hunk(0, 0, 1, 1, "+K=v\n")], action="create")]))
    assert error.code == "SECRET_DENIED"
    error = refused(engine, ChangeSet.new([Patch("../out.txt", [Hunk(0, 0, 1, 1, "+x\n")], action="create")]))
    assert error.code == "INVALID_PATH"


def test_deny_globs_add_up_across_policy_layers(tmp_path: Path) -> None:
    from stringsh.workspace.policy import parse_policy

    base = parse_policy('[changes]\ndeny_globs = ["vendor/**"]\n', tmp_path / "user.toml", tmp_path)
    layered = parse_policy('[changes]\ndeny_globs = ["*.lock"]\n', tmp_path / "stringsh.toml", tmp_path, base)
    assert layered.changes.deny_globs == ("vendor/**", "*.lock")
    with pytest.raises(StringError) as caught:
        parse_policy('[changes]\ndeny_globs = ["../up/**"]\n', tmp_path / "stringsh.toml", tmp_path)
    assert caught.value.code == "INVALID_PAYLOAD"
