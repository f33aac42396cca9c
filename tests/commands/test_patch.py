"""/patch through `stringsh run`: a unified diff of several files applied exactly as one change
set, one /undo for all of it, byte fidelity on the fidelity corpus, and every bad input an ERROR(CODE) with a hint
and no file changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.workspace.textio import split_lines
from tests.conftest import run_stringsh
from tests.workspace.test_fidelity import CORPUS, raw_of


def run(ws: Path, script: str) -> str:
    """The replies of a script run with --keep-going (stdout only: stderr has the summary)."""
    return run_stringsh(["run", "--keep-going", "-"], ws, stdin=script).stdout.decode()


def patch(diff: str) -> str:
    return f"/patch <<EOF\n{diff}EOF\n"


def files(ws: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ws)): p.read_bytes() for p in sorted(ws.rglob("*"))
            if p.is_file() and ".stringsh" not in p.parts}


MULTI = """diff --git a/src/app.py b/src/app.py
index 3b18e51..a9c2b1f 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,4 +1,5 @@
 import os
-print("hi")
+print("hello")
+print("world")
 main()
 end()
diff --git a/NOTES.md b/NOTES.md
new file mode 100644
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1,2 @@
+# Notes
+no newline here
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-bye
-now
"""


def seed(ws: Path) -> dict[str, bytes]:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_bytes(b'import os\r\nprint("hi")\r\nmain()\r\nend()\r\n')
    (ws / "old.txt").write_bytes(b"bye\nnow\n")
    return files(ws)


def test_multi_file_patch_applies_and_one_undo_takes_back_every_file(ws: Path) -> None:
    before = seed(ws)
    out = run(ws, patch(MULTI) + "/undo\n")
    assert out == (
        "re: /patch\n"
        "Patched 3 files: src/app.py (+2 -1), NOTES.md (created, +2), old.txt (deleted, -2)\n"
        "re: /undo\n"
        "Undo: reverted src/app.py (4 lines); deleted NOTES.md (was newly created); restored old.txt (2 lines)\n"
    )
    assert files(ws) == before


def test_patched_files_keep_crlf_and_the_missing_final_newline(ws: Path) -> None:
    seed(ws)
    assert run(ws, patch(MULTI)).startswith("re: /patch\nPatched 3 files:")
    assert files(ws) == {
        "NOTES.md": b"# Notes\nno newline here",
        "src/app.py": b'import os\r\nprint("hello")\r\nprint("world")\r\nmain()\r\nend()\r\n',
    }


def test_one_file_reply_and_the_diff_when_asked(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    out = run(ws, "/set {_diff} = on\n" + patch("--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-two\n+TWO\n"))
    assert out.split("re: /patch\n", 1)[1] == (
        "Patched a.txt (+1 -1)\n---\n1 1 | one\n2   - two\n  2 + TWO\n3 3 | three\n---\nUse /undo to revert.\n"
    )


def test_a_mismatch_names_file_hunk_line_expected_found_and_the_lines_to_reread(ws: Path) -> None:
    before = seed(ws)
    wrong = MULTI.replace(' main()\n end()\n', ' main()\n stop()\n')
    assert run(ws, patch(wrong)) == (
        "re: /patch\n"
        "ERROR(PATCH_FAILED): Hunk 1 of src/app.py (@@ -1,4 +1,5 @@) does not match line 4: expected 'stop()', the "
        "file holds 'end()'. Nothing was written.\n"
        "Re-read those lines and redo the hunk: /open src/app.py:L1-L4\n"
    )
    assert files(ws) == before  # the other two files of the patch were not touched either


@pytest.mark.parametrize("name", list(CORPUS))
def test_apply_then_undo_is_byte_identical_on_the_fidelity_corpus(ws: Path, name: str) -> None:
    text, encoding, bom, _, final = CORPUS[name]
    raw = raw_of(text, encoding, bom)
    (ws / name).write_bytes(raw)
    lines = split_lines(text)
    marker = "\\ No newline at end of file\n" if len(lines) == 3 and not final else ""
    patched = lines[1].replace("two MIDDLE", "two PATCHED")
    diff = (f"--- a/{name}\n+++ b/{name}\n@@ -1,3 +1,3 @@\n {lines[0]}\n-{lines[1]}\n+{patched}\n {lines[2]}\n"
            f"{marker}")
    out = run(ws, patch(diff) + f"!cat {name} > after.bin\n/undo\n")  # the shell writes inside the workspace
    assert out.startswith(f"re: /patch\nPatched {name} (+1 -1)\n"), out
    after = (ws / "after.bin").read_bytes()
    assert after == raw.replace("two MIDDLE".encode(encoding), "two PATCHED".encode(encoding))
    assert (ws / name).read_bytes() == raw


EMPTY = "The patch is empty: give the unified diff as the body."
BAD: dict[str, tuple[str, str]] = {
    "empty body": ("/patch <<EOF\nEOF\n", f"ERROR(INVALID_PAYLOAD): {EMPTY}"),
    "no body": ("/patch\n", f"ERROR(INVALID_PAYLOAD): {EMPTY}"),
    "malformed": (patch("this is not a diff\n"), "ERROR(INVALID_PAYLOAD): The body holds no unified diff (no "
                  "'--- a/path' / '+++ b/path' lines).\nSend a unified diff: per file a '--- a/path' and a "
                  "'+++ b/path' line, then hunks '@@ -start,count +start,count @@' (git diff or diff -u make one)."),
    "counts too large": (
        patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n"),
        "ERROR(INVALID_PAYLOAD): The hunk @@ -1,3 +1,3 @@ of a.txt has fewer lines than its header counts (1 old and "
        "1 new missing); nothing was written.\nMake the @@ header count the hunk's lines (context and removed: old; "
        "context and added: new), or make the diff again (git diff, diff -u)."),
    "counts too small": (
        patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n one\n-two\n+TWO\n"),
        "ERROR(INVALID_PAYLOAD): Line 5 of the patch follows the hunk @@ -1,1 +1,1 @@ of a.txt, whose header counts "
        "end before it; nothing was written.\nMake the @@ header count the hunk's lines (context and removed: old; "
        "context and added: new), or make the diff again (git diff, diff -u)."),
    "secret": (patch("--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-K=v\n+K=w\n"),
               "ERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
               "The policy's secret deny list covers this path."),
    "deny list": (patch("--- a/vendor/lib.py\n+++ b/vendor/lib.py\n@@ -1 +1 @@\n-v\n+w\n"),
                  "ERROR(NOT_PERMITTED): Path is on the policy's change deny list: vendor/lib.py\n"
                  "The policy's [changes] deny_globs keep changes away from it; nothing was written."),
    "allow list": (patch("--- a/top.txt\n+++ b/top.txt\n@@ -1 +1 @@\n-t\n+T\n"),
                   "ERROR(NOT_PERMITTED): Path is not on the policy's change allow-list: top.txt\n"
                   "Only paths matching the policy's [changes] allow_globs may change; change another path."),
    "dot dot": (patch("--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-v\n+w\n"),
                "ERROR(INVALID_PATH): The patch names a path outside the workspace: ../x.txt; nothing was written.\n"
                "Paths in a diff are relative to the workspace root (--- a/src/x.py, +++ b/src/x.py)."),
    "absolute": (patch("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-v\n+w\n"),
                 "ERROR(INVALID_PATH): The patch names a path outside the workspace: /etc/passwd; nothing was "
                 "written.\nPaths in a diff are relative to the workspace root (--- a/src/x.py, +++ b/src/x.py)."),
    "same file twice": (
        patch("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-two\n"
              "+TWO\n"),
        "ERROR(INVALID_PAYLOAD): The patch changes a.txt twice; nothing was written.\n"
        "Put all of a file's hunks under one ---/+++ header."),
    "git binary patch": (
        patch("diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 5\n"
              "McmZQzU|?iW000310RR91\n\n"),
        "ERROR(BINARY_FILE): The patch holds a binary change for logo.png; /patch applies text hunks only. Nothing "
        "was written.\nMake the diff without binary files, and change those another way."),
    "binary files differ": (
        patch("diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\n"
              "Binary files a/logo.png and b/logo.png differ\n"),
        "ERROR(BINARY_FILE): The patch holds a binary change for logo.png; /patch applies text hunks only. Nothing "
        "was written.\nMake the diff without binary files, and change those another way."),
    "new file exists": (
        patch("--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+new\n"),
        "ERROR(CONFLICT): a.txt already exists; the patch creates it as a new file. Nothing was written.\n"
        "Read a.txt and make the diff against it, or patch another path."),
    "delete differs": (
        patch("--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n"),
        "ERROR(PATCH_FAILED): The patch deletes a.txt, but 1 of its lines are not among the lines it removes. "
        "Nothing was written.\nRe-read those lines and redo the hunk: /open a.txt:L1-L2"),
    "missing file": (
        patch("--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n"),
        "ERROR(NOT_FOUND): File not found: nope.txt; nothing was written.\n"
        "A diff that creates a file has --- /dev/null as its old side."),
    "rename": (patch("--- a/a.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+two\n"),
               "ERROR(INVALID_PAYLOAD): The patch renames a.txt to b.txt; /patch does not rename files.\n"
               "Rename it with /mv a.txt b.txt first, then patch b.txt."),
    "arguments": ("/patch a.txt\n", "ERROR(INVALID_PAYLOAD): /patch takes no arguments; the diff names its files."),
    "its lines changed since read": (
        "/open a.txt\n!echo zwei > a.txt\n" + patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"),
        "ERROR(PATCH_FAILED): Hunk 1 of a.txt (@@ -1,2 +1,2 @@) does not match line 1: expected 'one', the file "
        "holds 'zwei'. Nothing was written.\nRe-read those lines and redo the hunk: /open a.txt:L1"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_refused_with_a_code_and_a_hint_and_changes_nothing(ws: Path, case: str) -> None:
    script, expected = BAD[case]
    (ws / "a.txt").write_bytes(b"one\ntwo\n")
    (ws / ".env").write_bytes(b"K=v\n")
    (ws / "vendor").mkdir()
    (ws / "vendor" / "lib.py").write_bytes(b"v\n")
    (ws / "top.txt").write_bytes(b"t\n")
    (ws / "stringsh.toml").write_text('[changes]\nallow_globs = ["a.txt", "b.txt", "nope.txt", "*.py", ".env"]\n'
                                      'deny_globs = ["vendor/**"]\n')
    (ws.parent / "outside.txt").write_bytes(b"v\n")
    before = files(ws)
    if case == "its lines changed since read":
        before["a.txt"] = b"zwei\n"
    out = run(ws, script + "/ls\n")
    reply = out.split("re: /ls\n", 1)[0]
    assert reply.rsplit("re: /patch", 1)[1].split("\n", 1)[1].rstrip("\n").split("\nUsage:", 1)[0] == expected
    assert files(ws) == before
    assert (ws.parent / "outside.txt").read_bytes() == b"v\n"
    assert "re: /ls\n" in out  # the loop goes on


def test_a_mismatch_never_shows_a_secret_the_file_holds(ws: Path) -> None:
    token = "ghp_" + "Q7" * 18
    (ws / "conf.py").write_bytes(f"TOKEN = '{token}'\nx = 1\n".encode())
    out = run(ws, patch("--- a/conf.py\n+++ b/conf.py\n@@ -1,2 +1,2 @@\n TOKEN = 'old'\n-x = 1\n+x = 2\n"))
    assert out == (
        "re: /patch\n"
        "ERROR(PATCH_FAILED): Hunk 1 of conf.py (@@ -1,2 +1,2 @@) does not match line 1: expected \"TOKEN = 'old'\", "
        "the file holds \"TOKEN = '***REDACTED***'\". Nothing was written.\n"
        "Re-read those lines and redo the hunk: /open conf.py:L1-L2\n"
    )


def test_budget_refusal_says_what_the_patch_asked_and_what_is_allowed(ws: Path) -> None:
    before = seed(ws)
    (ws / "stringsh.toml").write_text("[changes]\nmax_files = 2\n")
    before["stringsh.toml"] = (ws / "stringsh.toml").read_bytes()
    assert run(ws, patch(MULTI)) == (
        "re: /patch\n"
        "ERROR(BUDGET_EXCEEDED): Too many files: 3 > 2 (this change set: 3 files, 7 lines; allowed: 2 files, 200000 "
        "lines)\nSplit the change into smaller change sets, or raise [changes] max_files / max_loc in the policy.\n"
    )
    assert files(ws) == before


def test_the_patch_permission_turned_off_refuses_it(ws: Path) -> None:
    before = seed(ws)
    (ws / "stringsh.toml").write_text("[permissions]\npatch = false\n")
    before["stringsh.toml"] = (ws / "stringsh.toml").read_bytes()
    assert run(ws, patch(MULTI)) == (
        "re: /patch\nERROR(NOT_PERMITTED): patch is disabled by policy\n"
        "The policy's [permissions] patch = false.\n"
    )
    assert files(ws) == before


def test_blank_lines_between_files_are_not_hunk_lines(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"a\n")
    (ws / "b.txt").write_bytes(b"b\n")
    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\n"
    assert run(ws, patch(diff)) == "re: /patch\nPatched 2 files: a.txt (+1 -1), b.txt (+1 -1)\n"
    assert files(ws) == {"a.txt": b"A\n", "b.txt": b"B\n"}


def test_a_change_elsewhere_in_the_file_since_it_was_read_does_not_refuse_a_patch(ws: Path, dispatcher) -> None:
    """The hunk's exact context is its own guard: no whole-file hash is asked on top."""
    (ws / "a.txt").write_bytes(b"one\ntwo\nthree\nfour\n")
    dispatcher.execute("/open a.txt")
    (ws / "a.txt").write_bytes(b"one\ntwo\nthree\nFOUR\n")  # another client's line
    reply = dispatcher.execute("/patch\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n")
    assert reply.text.splitlines()[1] == "Patched a.txt (+1 -1)"
    assert (ws / "a.txt").read_bytes() == b"one\nTWO\nthree\nFOUR\n"
    assert "Refusing to overwrite a.txt" in dispatcher.execute("/write a.txt\nmine\n").text  # not read since
