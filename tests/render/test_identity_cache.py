"""A repeat /open trusts a file by its stat identity (device, inode, size, mtime, ctime) the way git's index does,
reads only its first window, and still never shows bytes the file does not hold now: a change gives another
identity (ctime), a file changed within the racy window of its read is never trusted by its stat, and a corrupt,
foreign or moved identity entry is a miss. `RACY_NS` is set to 0 where a test needs a file written just before
it to be trusted at once (the default keeps such a file out for 2 s)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.render import cache as cache_module
from stringsh.render.cache import IDENTITY_VERSION, IndexCache
from stringsh.render.view import HEAD_BYTES

TOKEN = "ghp_" + "A1b2C3d4E5" * 4
KEY = bytes(range(32))


def document(word: str, sections: int = 60) -> str:
    """Markdown past the size that goes to disk, a token in the middle (masked when shown)."""
    parts = ["# Big\n\n<!-- #intro -->\nIntro.\n<!-- /intro -->\n"]
    for i in range(sections):
        parts.append(f"## Section {i}\n\n{word} text {i} with a [link](https://example.org/{i}) and words.\n\n")
        if i == sections // 2:
            parts.append(f"token: {TOKEN}\n\n")
    return "".join(parts) * 4


def big_workspace(tmp_path: Path) -> Path:
    """A workspace holding big.md, a document over the size an identity is recorded for."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.md").write_text(document("alpha"))
    return ws


def open_big(ws: Path, *commands: str) -> tuple[list[str], dict[str, object]]:
    """The replies to `/open big.md` then `commands` in a new dispatcher, and what its view's document holds."""
    dispatcher = Dispatcher(ws)
    dispatcher.watch_files = False
    try:
        texts = [dispatcher.execute(command).text for command in ("/open big.md", *commands)]
        view = dispatcher.session().document
        return texts, dict(view.doc.__dict__) if view is not None else {}
    finally:
        dispatcher.close()


def uncached(tmp_path: Path, ws: Path, name: str, *commands: str) -> list[str]:
    """The same replies for the same bytes in a workspace never opened before."""
    fresh = tmp_path / name
    fresh.mkdir()
    shutil.copy2(ws / "big.md", fresh / "big.md")
    return open_big(fresh, *commands)[0]


def identities(ws: Path) -> list[Path]:
    return sorted((ws / ".stringsh" / "cache" / "index").glob(f"*.s{IDENTITY_VERSION}.idx"))


@pytest.fixture
def trusted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "RACY_NS", 0)


@pytest.mark.usefixtures("trusted_at_once")
def test_an_unchanged_file_is_trusted_by_its_identity_and_read_by_its_first_bytes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.md").write_text(document("alpha", sections=2000))  # ~600 KB: more than the first bytes read
    assert (ws / "big.md").stat().st_size > HEAD_BYTES
    first, held = open_big(ws)
    assert "head" not in held and len(identities(ws)) == 1  # read whole and hashed once; its identity recorded
    commands = ("/open big.md#section-1900", "/open big.md --from 9000 --to 9005")
    again, held = open_big(ws, *commands)
    assert "head" in held and len(held["head"]) == HEAD_BYTES  # type: ignore[arg-type]
    assert "raw" in held  # the block and the window further down read the rest (it hashed as recorded)
    assert again == [first[0], *again[1:]] == uncached(tmp_path, ws, "fresh", *commands)
    assert TOKEN not in "".join(again)
    shown, held = open_big(ws)
    assert shown == first and "raw" in held  # masking the token reads the rest too (it hashed as recorded)

    text = document("alpha", sections=2000).replace(TOKEN, "no token")
    (ws / "big.md").write_text(text)
    clean, held = open_big(ws)
    assert "head" not in held  # another identity: read whole
    shown, held = open_big(ws)
    assert shown == clean and "raw" not in held and "text" not in held  # nothing past the first bytes read
    dispatcher = Dispatcher(ws)
    try:  # an edit reads the rest (hashed as recorded) and splices it like any other
        assert dispatcher.execute("/open big.md").text == clean[0]
        assert dispatcher.execute("/edit big.md#intro\nNew intro.\n").ok
    finally:
        dispatcher.close()
    assert (ws / "big.md").read_text() == text.replace("Intro.", "New intro.", 1)


@pytest.mark.usefixtures("trusted_at_once")
def test_a_same_size_change_with_the_old_mtime_put_back_is_read_afresh(tmp_path: Path) -> None:
    ws = big_workspace(tmp_path)
    first = open_big(ws)[0]
    assert open_big(ws)[1].get("head") is not None
    before = os.stat(ws / "big.md")
    rewrite = "import sys; p = sys.argv[1]; t = open(p).read(); open(p, 'w').write(t.replace('alpha', 'omega'))"
    subprocess.run([sys.executable, "-c", rewrite, str(ws / "big.md")], check=True, timeout=60)
    os.utime(ws / "big.md", ns=(before.st_atime_ns, before.st_mtime_ns))  # `touch -d`: ctime moves on regardless
    after = os.stat(ws / "big.md")
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    shown, held = open_big(ws)
    assert "head" not in held and "omega text 1 " in shown[0] and "alpha" not in shown[0]
    assert shown == uncached(tmp_path, ws, "fresh") != first


def test_a_file_changed_within_the_racy_window_is_never_trusted_by_its_stat(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.md").write_text(document("alpha"))  # just written: its ctime is within 2 s of any read now
    first, held = open_big(ws)
    assert "head" not in held and identities(ws) == []
    shown, held = open_big(ws)
    assert shown == first and "head" not in held and identities(ws) == []  # read and hashed whole again

    cache = IndexCache(tmp_path / "idx", key=lambda: KEY)
    read_ns = 10 * cache_module.RACY_NS
    sha = "a" * 64
    size = cache_module.DISK_MIN_BYTES
    racy = (1, 2, size, read_ns - 5, read_ns - cache_module.RACY_NS)  # ctime not older than the window: refused
    assert not cache.put_identity("big.md", racy, sha, read_ns)
    assert cache.lookup_identity("big.md", racy) is None
    settled = (1, 2, size, 5, read_ns - cache_module.RACY_NS - 1)
    assert cache.put_identity("big.md", settled, sha, read_ns)
    assert cache.lookup_identity("big.md", settled) == sha
    older = read_ns - cache_module.RACY_NS - 1
    for other in [(1, 2, size, 5, read_ns), (1, 2, size + 1, 5, older), (9, 2, size, 5, 0), (1, 2, 99, 5, older)]:
        assert cache.lookup_identity("big.md", other) is None
    assert cache.lookup_identity("other.md", settled) is None
    # An entry moved to another path's name does not verify there (the name is signed).
    (tmp_path / "idx" / cache._identity_name("big.md")).rename(tmp_path / "idx" / cache._identity_name("other.md"))
    assert cache.lookup_identity("other.md", settled) is None


@pytest.mark.usefixtures("trusted_at_once")
def test_a_corrupt_or_foreign_identity_entry_is_a_miss(tmp_path: Path) -> None:
    ws = big_workspace(tmp_path)
    first = open_big(ws)[0]
    (entry,) = identities(ws)
    good = entry.read_bytes()
    moved = good[:32] + good[32:].replace(b"big.md", b"bug.md")  # (its signature was over the other path)
    for planted in [b"\x00garbage", good[:-3], bytes(32) + good[32:], moved]:
        entry.write_bytes(planted)
        shown, held = open_big(ws)
        assert shown == first and "head" not in held  # read whole and hashed; the entry written again
        assert entry.read_bytes() != planted
    assert open_big(ws)[1].get("head") is not None


@pytest.mark.usefixtures("trusted_at_once")
def test_a_view_read_by_its_first_bytes_never_shows_bytes_written_after_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.md").write_text(document("alpha", sections=2000).replace(TOKEN, "no token"))  # nothing to mask
    open_big(ws)
    dispatcher = Dispatcher(ws)
    dispatcher.watch_files = False  # nothing tells the view the file changed but what it reads
    try:
        assert "alpha text 1 " in dispatcher.execute("/open big.md").text
        assert "raw" not in dispatcher.session().document.doc.__dict__
        before = os.stat(ws / "big.md")
        (ws / "big.md").write_text(document("omega", sections=2000).replace(TOKEN, "no token"))
        os.utime(ws / "big.md", ns=(before.st_atime_ns, before.st_mtime_ns))  # same size and mtime: looks fresh
        reply = dispatcher.execute("/open big.md --from 31000")  # past the first bytes read
        assert not reply.ok and "omega" not in reply.text and "alpha" not in reply.text
        assert reply.text == (
            "re: /open big.md --from 31000\n"
            "ERROR(CONFLICT): big.md changed on disk after it was opened; nothing of the change was shown as that "
            "view.\nOpen it again to see it as it is now: /open big.md"
        )
        assert "alpha text 1 " not in dispatcher.execute("/open big.md").text  # a fresh open reads it anew
    finally:
        dispatcher.close()
