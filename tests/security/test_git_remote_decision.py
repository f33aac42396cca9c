"""`/git push` decides local or remote as git does: remote.target against git itself, on generated URLs.

git is the oracle: `git ls-remote` with only `file` allowed and an upload-pack that writes down the path it is
given says, for any URL, which transport git picked (`transport 'ssh' not allowed`) or, for a local one, the exact
path git hands the receiving side; stringsh's decision must be the same, character for character."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stringsh.errors import StringError
from stringsh.workspace.git.remote import LOCAL_RECEIVE_PACK, NETWORK_RECEIVE_PACK, PushPlan, plan, target

pytestmark = pytest.mark.needs("git")

#: Characters that change git's reading of a URL: colons, slashes, brackets, `@`, `%` escapes, scheme characters.
CHARS = "ab:/.@[]~+-_%410 "
SCHEMES = st.sampled_from(["file", "ssh", "https", "http", "git", "git+ssh", "ssh+git", "ext", "FILE", "x-y", "a_b",
                           "4+x", "", "r/e", "./x"])
URLS = st.one_of(
    st.text(alphabet=CHARS, min_size=1, max_size=16),
    st.builds(lambda scheme, rest: f"{scheme}::{rest}", SCHEMES, st.text(alphabet=CHARS, max_size=10)),
    st.builds(lambda scheme, rest: f"{scheme}://{rest}", SCHEMES, st.text(alphabet=CHARS, max_size=12)),
    st.builds(lambda head, tail: f"{head}/{tail}", st.text(alphabet=CHARS, min_size=1, max_size=6),
              st.text(alphabet=CHARS, max_size=10)),
)
#: Writes the path it is given where the test reads it, then fails: nothing is fetched.
RECORDER = 'f() { printf "%s" "$1" > "$RECORD"; exit 1; }; f'


def what_git_does(url: str, folder: Path) -> tuple[str, str | None]:
    """(the transport git picked, or its reason to stop; for `file`, the path given to the other side)."""
    record = folder / "record"
    record.unlink(missing_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(folder), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_ALLOW_PROTOCOL": "file", "GIT_CEILING_DIRECTORIES": str(folder),
           "RECORD": str(record), "LC_ALL": "C"}
    done = subprocess.run(["git", "ls-remote", f"--upload-pack={RECORDER}", url], cwd=folder, env=env,
                          capture_output=True, check=False)
    said = done.stderr.decode("utf-8", "surrogateescape")
    if record.exists():
        return "file", record.read_bytes().decode("utf-8", "surrogateescape")
    for start, end in (("transport '", "' not allowed"), ("protocol '", "' is not supported"),
                       ("git: 'remote-", "' is not a git command")):  # a helper named `file` is let through
        if start in said and end in said:
            return said[said.index(start) + len(start):said.index(end)], None
    for reason in ("no path specified", "git-over-rsync is no longer supported", "strange pathname",
                   "strange hostname"):
        if reason in said:
            return reason, None
    raise AssertionError(f"git said: {said!r}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(url=URLS)
def test_the_decision_is_gits(url: str) -> None:
    assume(not url.startswith("-"))  # git reads it as an option of ls-remote
    with tempfile.TemporaryDirectory() as folder:
        picked, path = what_git_does(url, Path(folder))
    decided = target(url)
    if picked == "no path specified":  # git parsed a URL without a path: nothing is started
        assert decided.transport != "file" or decided.path is None, decided
    elif picked.startswith("strange "):  # an option-like path or host: git stops before starting anything
        assert decided.transport in ("file", "ssh"), decided
    elif picked == "git-over-rsync is no longer supported":
        assert decided.transport == "rsync"
    else:
        assert (decided.transport, decided.path) == (picked, path), url
    if decided.named_helper:
        assert plan_refused(url)


def plan_refused(url: str) -> bool:
    """A helper the URL names is refused, whatever its name (`file::x`, `ssh::x`)."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            plan("r", [url], vcs=None, root=Path(folder), home=folder, protected=[Path(folder)])
        except StringError as exc:
            return exc.code == "NOT_PERMITTED" and "uses a transport stringsh does not allow" in exc.message
    return False


@pytest.mark.parametrize(("url", "transport", "path"), [
    ("r/e::p", "file", "r/e::p"),  # `::` after a slash is part of a path
    ("./x:y", "file", "./x:y"),
    ("x@[y]/z:q", "file", "]/z:q"),
    ("a::b", "a", None),
    ("ext::sh -c x", "ext", None),
    ("file::x", "file", None),
    ("host:path", "ssh", None),
    ("git@github.com:o/r.git", "ssh", None),
    ("https://example.com/r.git", "https", None),
    ("file:///t%41/r%00.git", "file", "/tA/r%00.git"),
    ("FILE:///x", "FILE", None),
])
def test_known_forms(url: str, transport: str, path: str | None) -> None:
    assert target(url)[:2] == (transport, path)
    assert target(url).named_helper == (transport in ("a", "ext") or url == "file::x")


def test_the_remotes_vcs_setting_is_a_helper_whatever_the_url() -> None:
    assert target("/srv/r.git", vcs="hg").transport == "hg"


def test_each_push_may_use_only_the_transports_decided(tmp_path: Path) -> None:
    """A network push never allows `file` (git would refuse to start a local receive-pack the decision did not
    foresee); a local one allows `file` alone and always carries the hook-less receive-pack."""
    home, ws = str(tmp_path / "home"), tmp_path / "ws"
    ws.mkdir()
    assert plan("r", ["host:r.git", "https://h/r.git"], vcs=None, root=ws, home=home, protected=[ws]) == PushPlan(
        NETWORK_RECEIVE_PACK, "https:ssh")
    assert plan("r", [str(tmp_path / "out.git")], vcs=None, root=ws, home=home, protected=[ws]) == PushPlan(
        LOCAL_RECEIVE_PACK, "file")
