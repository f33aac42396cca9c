"""`stringsh run` and `stringsh -c` as real subprocesses."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import default_start, run_stringsh
from tests.frontends.scripts import SCRIPT, check, make_workspace, split_replies


def test_run_reproduces_the_seed_texts_with_keep_going(ws: Path) -> None:
    make_workspace(ws)
    script = ws.parent / "all.str"
    script.write_text(SCRIPT)
    proc = run_stringsh(["run", "--keep-going", str(script)], ws)
    assert proc.returncode == 1
    check(split_replies(proc.stdout.decode()))


def test_run_stops_after_the_first_failure(ws: Path) -> None:
    (ws / "s.str").write_text("/ls\n/nope\n/ls\n")
    proc = run_stringsh(["run", "s.str"], ws)
    assert proc.returncode == 1
    assert [r.split("\n")[0] for r in split_replies(proc.stdout.decode())] == ["re: /ls", "re: /nope"]


def test_run_succeeds_with_status_zero_and_reads_stdin(ws: Path) -> None:
    proc = run_stringsh(["run", "-"], ws, stdin="# comment\n\n/set a = 1\n/ls\n")
    assert proc.returncode == 0
    assert proc.stdout.decode() == 're: /set a = 1\n{a} = "1"\nre: /ls\nListing ./\n---\n(empty)\n'


def test_run_several_files_share_one_session(ws: Path) -> None:
    (ws / "a.str").write_text("/set a = 1\n")
    (ws / "b.str").write_text("/set\n")
    proc = run_stringsh(["run", "a.str", "b.str"], ws)
    assert proc.stdout.decode().endswith('re: /set\nVariables\n---\n{a} = "1"\n')


def test_run_missing_file(ws: Path) -> None:
    proc = run_stringsh(["run", "nope.str"], ws)
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        default_start() + "stringsh: cannot read nope.str: No such file or directory\n"
    )


def test_unterminated_heredoc_is_not_run(ws: Path) -> None:
    proc = run_stringsh(["run", "-"], ws, stdin="/set <<EOF\na = 1\n")
    assert proc.returncode == 1
    assert proc.stdout.decode() == (
        "re: /set\nERROR(INVALID_PAYLOAD): Unterminated heredoc: no line 'EOF' before the end of input; "
        "the command was not run.\nEnd the body with a line that is exactly EOF.\n"
    )


def test_bad_bytes_do_not_stop_the_script(ws: Path) -> None:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin=b"/ls\xc3\n/ls a\x00\n/set a = 1\n")
    replies = split_replies(proc.stdout.decode())
    assert replies[0].startswith("re: /ls\\xc3\nERROR(INVALID_PAYLOAD): Request is not valid UTF-8")
    assert replies[1].startswith("re: /ls a\nERROR(INVALID_PAYLOAD): Request contains a NUL byte.")
    assert replies[2] == 're: /set a = 1\n{a} = "1"'


def test_dash_c_one_request(ws: Path) -> None:
    ok = run_stringsh(["-c", "/ls"], ws)
    assert (ok.returncode, ok.stdout.decode()) == (0, "re: /ls\nListing ./\n---\n(empty)\n")
    bad = run_stringsh(["-c", "/nope"], ws)
    assert bad.returncode == 1


def test_dash_c_multiline_body(ws: Path) -> None:
    proc = run_stringsh(["-c", "[x1] /set\n{a} = 1\n{b} = 2"], ws)
    assert proc.stdout.decode() == 're: [x1] /set\n{a} = "1"\n{b} = "2"\n'


def test_root_option_and_missing_root(ws: Path, tmp_path: Path) -> None:
    (ws / "sub").mkdir()
    proc = run_stringsh(["--root", str(ws), "-c", "/ls"], tmp_path)
    assert proc.stdout.decode() == "re: /ls\nListing ./\n---\n  sub/\n"
    missing = run_stringsh(["--root", str(tmp_path / "nope"), "-c", "/ls"], tmp_path)
    assert missing.returncode == 2
    assert "workspace folder not found" in missing.stderr.decode()


def test_color_renders_for_people_and_plain_stays_the_default(ws: Path) -> None:
    (ws / "doc.md").write_text("# Title\n\nSome *text*.\n")
    plain = run_stringsh(["-c", "/open doc.md"], ws).stdout.decode()
    assert plain == "re: /open doc.md\nOpened doc.md\n---\n# Title\n\nSome *text*.\n"
    colored = run_stringsh(["--color", "-c", "/open doc.md"], ws).stdout.decode()
    assert "\x1b[" in colored
    assert "\x1b[3mtext\x1b[0m" in colored  # emphasis rendered, not shown as *text*
    assert "*text*" not in colored
    error = run_stringsh(["--color", "run", "-"], ws, stdin="/open nope.md\n")
    assert error.returncode == 1
    assert "\x1b[1;31mERROR(NOT_FOUND): File not found: nope.md\x1b[0m" in error.stdout.decode()


def test_ctrl_c_stops_a_script_cleanly(ws: Path) -> None:
    import signal
    import subprocess

    from tests.conftest import STRINGSH

    proc = subprocess.Popen(
        [*STRINGSH, "run", "-"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b"/set a = 1\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"re: /set a = 1\n"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # stdin still open: only the interrupt can end the script
    _out, err = proc.communicate()
    assert proc.returncode == 130
    assert err.decode() == default_start() + "stringsh: interrupted\n"
