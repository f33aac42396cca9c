"""No hook of a pushed-to repository ever runs under `/git push`, whatever way git reaches it.

A property test builds repositories the ways git accepts them (bare, a symlinked `HEAD`, a work tree's `.git`, a
gitdir file, a folder whose `.git` is a gitdir file, a linked git dir whose `commondir` holds the hooks), at names
with `::` and `:` inside, inside or outside the workspace, and names them by every URL form git reads as a local
path (`./x`, relative, absolute, `file://` with escapes, a trailing slash, the `.git` left off). Through the real
program, `/git push` refuses every target inside the workspace and pushes to the others, and the hooks (which
append to a canary file outside the workspace) never run; then plain git pushes the same URL and the hooks do
run, which shows each built repository and URL were real. The reported attack runs end to end too: planted
from the sandboxed shell, pushed with `/git push`."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.commands.gitrepo import git, make_repo
from tests.conftest import run_stringsh

pytestmark = pytest.mark.needs("git")

RECEIVE_HOOKS = ("pre-receive", "update", "post-receive", "reference-transaction")
KINDS = ("bare", "symlinked HEAD", "work tree", "gitdir file", ".git file", "commondir")
FORMS = ("relative", "./", "absolute", "file://", "trailing slash", "no .git")
#: Folder names git takes as paths: colons (`::` too), dots, `@`, `+`, `_`; never a leading `-` or a bracket.
SEGMENT = st.one_of(st.sampled_from(["e::p", "x::", "::y", "a:b", "r@e:p", "h+x::"]),
                    st.text(alphabet="ab:.@+_e", min_size=1, max_size=6).filter(lambda s: not s.startswith(".")))
NAMES = st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)


def hooked_bare(path: Path, canary: Path, *, head_link: bool = False) -> Path:
    """A bare repository each of whose receiving hooks appends its name to `canary`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    if head_link:  # git takes a symlink to refs/… for HEAD (a dangling one too)
        (path / "HEAD").unlink()
        (path / "HEAD").symlink_to("refs/heads/main")
    for hook in RECEIVE_HOOKS:
        script = path / "hooks" / hook
        script.write_text(f"#!/bin/sh\necho {hook} >> '{canary}'\ncat >/dev/null\n")
        script.chmod(0o755)
    return path


def build(kind: str, at: Path, store: Path, canary: Path) -> Path:
    """A repository of `kind` git reaches at `at`, its hooks in `store` when it has a separate one; the path the
    URL names."""
    if kind in ("bare", "symlinked HEAD"):
        return hooked_bare(at, canary, head_link=kind == "symlinked HEAD")
    if kind == "work tree":
        at.mkdir(parents=True)
        git(at, "init", "-q", "-b", "other")
        hooked_bare(at / ".git", canary)  # the same hooks, in a work tree's git dir
        git(at, "config", "core.bare", "false")
        return at
    hooked_bare(store, canary)
    at.parent.mkdir(parents=True, exist_ok=True)
    if kind == "gitdir file":
        at.write_text(f"gitdir: {os.path.relpath(store, at.parent)}\n")
        return at
    if kind == ".git file":
        at.mkdir()
        (at / ".git").write_text(f"gitdir: {store}\n")
        return at
    at.mkdir()  # a linked git dir: its own HEAD, objects and refs and hooks in the common dir
    (at / "HEAD").write_text("ref: refs/heads/linked\n")
    (at / "commondir").write_text(f"{os.path.relpath(store, at)}\n")
    return at


def url_for(form: str, path: Path, ws: Path) -> str:
    """`path` as a remote URL git reads as local, in `form`."""
    if form == "absolute":
        return str(path)
    if form == "file://":
        return "file://" + quote(str(path), safe="/")
    if form == "trailing slash":
        return f"{path}/"
    if form == "no .git":
        return str(path).removesuffix(".git") if path.name.endswith(".git") and path.is_dir() else str(path)
    rel = os.path.relpath(path, ws)
    if form == "./" or ":" in rel.split("/")[0]:  # a colon before the first slash would be ssh's host:path
        return f"./{rel}"
    return rel


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), form=st.sampled_from(FORMS), name=NAMES, inside=st.booleans(),
       store_inside=st.booleans(), bare_suffix=st.booleans())
def test_no_hook_runs_whatever_git_reaches(kind: str, form: str, name: str, inside: bool, store_inside: bool,
                                           bare_suffix: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        top = Path(folder)
        ws, outside, canary = top / "ws", top / "out", top / "HOOKS_RAN"
        ws.mkdir()
        make_repo(ws)
        name += ".git" if bare_suffix else ""
        at = (ws if inside else outside) / name
        store = (ws if store_inside else outside) / "store" / name
        path = build(kind, at, store, canary)
        url = url_for(form, path, ws)
        git(ws, "remote", "add", "r", url)
        reply = run_stringsh(["-c", "/git push r main"], cwd=ws).stdout.decode()
        assert not canary.exists(), (reply, url)
        reaches_inside = inside or (kind in ("gitdir file", ".git file", "commondir") and store_inside)
        if reaches_inside:
            assert reply == ("re: /git push r main\nERROR(NOT_PERMITTED): Refusing to push into a repository "
                             f"inside the workspace: {url}\n"
                             "Its hooks and config are the workspace's; push to a repository outside it.\n")
        else:
            assert reply == "re: /git push r main\nPushed main to r: [new branch]\n", url
        git(ws, "push", "-q", "r", "main:refs/heads/proof")  # plain git: the hooks are real and reached
        assert canary.read_text().split()[0] == "pre-receive"


@pytest.mark.needs("bwrap")
def test_the_attack_planted_from_the_sandbox(ws: Path, tmp_path: Path) -> None:
    """The attack as reported: from the sandboxed shell, `git init`, a remote `r/e::p`, a bare repository there
    whose HEAD is a symlink, a post-receive hook; then `/git push`. The sweeper removes the hook after the command
    (git takes the folder for a repository), and the push is refused (`r/e::p` is a path in the workspace)."""
    canary = tmp_path / "CANARY"
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")
    plant = ('!git init -q -b master && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && '
             'git remote add origin "r/e::p" && git init -q --bare "r/e::p" && rm "r/e::p/HEAD" && '
             'ln -s refs/heads/master "r/e::p/HEAD" && '
             f"printf '#!/bin/sh\\ntouch {canary}\\n' > \"r/e::p/hooks/post-receive\" && "
             'chmod +x "r/e::p/hooks/post-receive" && echo planted')
    (tmp_path / "script.txt").write_text(f"{plant}\n/git push\n")
    out = run_stringsh(["run", "--keep-going", str(tmp_path / "script.txt")], cwd=ws).stdout.decode()
    assert out.endswith(
        "---\nplanted\nnote: removed r/e::p/hooks/post-receive written by the command: protected path\n"
        "re: /git push\nERROR(NOT_PERMITTED): Refusing to push into a repository inside the workspace: r/e::p\n"
        "Its hooks and config are the workspace's; push to a repository outside it.\n"), out
    assert not canary.exists()


def test_the_attack_planted_before_the_sandbox_started(ws: Path, tmp_path: Path) -> None:
    """The same repository made outside any sandbox (the sweeper never saw it): plain git push runs its hook,
    `/git push` refuses it, and pushing to it through a link or a `file://` URL is refused alike."""
    canary = tmp_path / "CANARY"
    make_repo(ws)
    hooked_bare(ws / "r" / "e::p", canary, head_link=True)
    (tmp_path / "link").symlink_to(ws / "r")
    for url in ("r/e::p", f"file://{ws}/r/e%3A%3Ap", f"{tmp_path}/link/e::p"):
        git(ws, "remote", "remove", "origin", check=False)
        git(ws, "remote", "add", "origin", url)
        assert run_stringsh(["-c", "/git push origin main"], cwd=ws).stdout.decode() == (
            "re: /git push origin main\nERROR(NOT_PERMITTED): Refusing to push into a repository inside the "
            f"workspace: {url}\nIts hooks and config are the workspace's; push to a repository outside it.\n")
        assert not canary.exists()
    git(ws, "push", "-q", "origin", "main")
    assert canary.read_text().split()[0] == "pre-receive"
    shutil.rmtree(ws / "r")
