"""The index cache: shared in memory, persisted under .stringsh/cache/, rebuilt when missing or corrupt."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from stringsh.documents.state import DocumentState, make_index_cache
from stringsh.render.cache import DISK_MIN_BYTES, IndexCache
from stringsh.render.index import INDEX_VERSION, build_index
from stringsh.workspace import Workspace

BIG = "# Title\n\n" + "".join(f"## Section {i}\n\ntext {i}\n\n" for i in range(2000))
SHA = hashlib.sha256(BIG.encode()).hexdigest()
KEY = bytes(range(32))


def signed() -> bytes:
    return KEY


def test_disk_entry_is_written_and_reused(tmp_path: Path) -> None:
    assert len(BIG) >= DISK_MIN_BYTES
    first = IndexCache(tmp_path / "idx", key=signed)
    index = first.get(SHA, BIG)
    files = list((tmp_path / "idx").iterdir())
    assert [f.name for f in files] == [f"{SHA}.v{INDEX_VERSION}.idx"]
    second = IndexCache(tmp_path / "idx", key=signed)
    assert second._load(SHA) == index == build_index(BIG)


def test_corrupt_or_foreign_entries_are_rebuilt(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path, key=signed)
    cache.get(SHA, BIG)
    (tmp_path / f"{SHA}.v{INDEX_VERSION}.idx").write_bytes(b"\x00garbage")
    assert IndexCache(tmp_path, key=signed).get(SHA, BIG) == build_index(BIG)


def test_small_documents_stay_in_memory_and_odd_keys_never_touch_disk(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path, key=signed)
    cache.get("a" * 64, "# small\n")
    cache.get("../../etc/passwd", BIG)
    assert list(tmp_path.iterdir()) == []


def test_unwritable_cache_folder_only_costs_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert IndexCache(blocker / "idx", key=signed).get(SHA, BIG) == build_index(BIG)


def test_the_cache_is_shared_per_dispatcher_and_not_between_them(tmp_path: Path) -> None:
    from stringsh.dispatcher import Dispatcher

    workspace = Workspace(tmp_path)
    state = DocumentState(workspace)
    assert state.index_cache is state.index_cache
    assert state.index_cache.directory == tmp_path / ".stringsh" / "cache" / "index"
    assert state.index_cache.base == tmp_path
    one, two = Dispatcher(tmp_path), Dispatcher(tmp_path)
    try:
        assert one.documents is one.documents and one.documents.index_cache is one.documents.index_cache
        assert two.documents.index_cache is not one.documents.index_cache
        assert one.documents.watcher is not two.documents.watcher
    finally:
        one.close()
        two.close()
        workspace.close()


def test_without_a_key_the_cache_stays_in_memory(tmp_path: Path) -> None:
    cache = IndexCache(tmp_path)
    assert cache.get(SHA, BIG) == build_index(BIG)
    assert list(tmp_path.iterdir()) == []
    assert cache.lookup(SHA) == build_index(BIG)


def test_a_new_process_loads_the_entry_instead_of_scanning(tmp_path: Path) -> None:
    IndexCache(tmp_path, key=signed).get(SHA, BIG)
    code = (
        "import sys, stringsh.render.cache as c\n"
        "c.build_index = None  # any rebuild would fail\n"
        f"print(len(c.IndexCache(sys.argv[1], key=lambda: {KEY!r}).get({SHA!r}, '').headings))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "2001", out.stderr


def test_planted_symlinks_never_lead_the_cache_out_of_the_workspace(tmp_path: Path) -> None:
    from stringsh.dispatcher import Dispatcher

    outside = tmp_path / "outside"
    for planted in (".stringsh", ".stringsh/cache", ".stringsh/cache/index"):
        ws = tmp_path / planted.replace("/", "_")
        (ws / planted).parent.mkdir(parents=True, exist_ok=True)
        (ws / planted).symlink_to(outside, target_is_directory=True)
        outside.mkdir(exist_ok=True)
        (outside / f"{SHA}.v{INDEX_VERSION}.idx").write_bytes(b"planted")
        (ws / "big.md").write_text(BIG)
        dispatcher = Dispatcher(ws)
        try:
            assert dispatcher.execute("/open big.md#section-1999").text.endswith("## Section 1999\n\ntext 1999")
        finally:
            dispatcher.close()
        assert sorted(p.name for p in outside.rglob("*")) == [f"{SHA}.v{INDEX_VERSION}.idx"], planted
        assert (outside / f"{SHA}.v{INDEX_VERSION}.idx").read_bytes() == b"planted"


def test_an_entry_not_signed_by_this_user_is_never_trusted(tmp_path: Path) -> None:
    import marshal

    from stringsh.render.index import INDEX_VERSION

    cache = IndexCache(tmp_path, key=signed)
    cache.get(SHA, BIG)
    entry = tmp_path / f"{SHA}.v{INDEX_VERSION}.idx"
    genuine = entry.read_bytes()
    forged = build_index("# only one heading\n")
    # a planted file (shipped in a repository, say): a plain blob, then one with a made-up signature
    for planted in (marshal.dumps(forged.to_tuple()), b"\0" * 32 + marshal.dumps(forged.to_tuple())):
        entry.write_bytes(planted)
        assert IndexCache(tmp_path, key=signed).get(SHA, BIG) == build_index(BIG)
    entry.write_bytes(genuine)
    fresh = IndexCache(tmp_path, key=signed)
    assert fresh.lookup(SHA) == build_index(BIG)  # the genuine entry loads without a rebuild


def test_the_signing_key_is_private_and_stable(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(tmp_path / "cfg"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "other").mkdir()
    cache = make_index_cache(Workspace(tmp_path / "ws"))
    assert not (tmp_path / "cfg" / "cache.key").exists()  # read or made on the first disk access only
    key = cache.signing_key()
    assert key is not None and len(key) == 32
    assert cache.signing_key() == key == make_index_cache(Workspace(tmp_path / "other")).signing_key()
    assert (tmp_path / "cfg" / "cache.key").stat().st_mode & 0o777 == 0o600


def test_a_planted_fifo_or_huge_entry_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    """A repository may ship `.stringsh/cache/index/<sha>.idx` as a FIFO (an /open would wait forever) or as a
    huge file (read whole before its signature is checked): both are misses, and the document opens."""
    import os

    from tests.conftest import run_stringsh

    ws = tmp_path / "ws"
    folder = ws / ".stringsh" / "cache" / "index"
    folder.mkdir(parents=True)
    (ws / "big.md").write_text(BIG)
    os.mkfifo(folder / f"{SHA}.v{INDEX_VERSION}.idx")
    done = run_stringsh(["-c", "/open big.md#section-1"], ws, timeout=30)
    assert done.stdout.decode() == "re: /open big.md#section-1\nOpened big.md#section-1\n---\n## Section 1\n\ntext 1\n"
    huge = folder / f"{SHA}.v{INDEX_VERSION}.idx"
    huge.unlink()
    with huge.open("wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    assert IndexCache(folder, key=signed).lookup(SHA) is None


def test_a_disk_entry_loads_with_the_collector_left_as_it_was(tmp_path: Path) -> None:
    """The load pauses the cyclic collector (tens of thousands of tuples, no cycle) and gives it back as it found it:
    running, or paused by someone else."""
    import gc

    IndexCache(tmp_path, key=signed).get(SHA, BIG)
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            assert IndexCache(tmp_path, key=signed)._load(SHA) == build_index(BIG)
            assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_a_process_freezes_what_start_up_made_once_its_first_workspace_is_loaded(tmp_path: Path) -> None:
    """serving.started: a one-shot `stringsh -c` pays no full collection walking its modules and command table."""
    script = (
        "import gc, sys\n"
        "from stringsh.dispatcher import Dispatcher\n"
        "before = gc.get_freeze_count()\n"
        "first = Dispatcher(sys.argv[1]); first.workspace\n"
        "frozen = gc.get_freeze_count()\n"
        "made = [[] for _ in range(1000)]\n"
        "second = Dispatcher(sys.argv[1]); second.workspace\n"
        "print(before, frozen > 1000, gc.get_freeze_count() == frozen)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "True", "True"]


def test_a_mask_record_of_a_text_too_small_for_the_disk_is_looked_up_in_memory_only(tmp_path: Path) -> None:
    """No mask record under DISK_MIN_BYTES is kept on disk, so a look that knows the size opens no file for one;
    a big text's record is found on disk by a new cache, size given or not."""
    key = "k" * 32
    small, big = "# small\n", BIG
    small_sha = hashlib.sha256(small.encode()).hexdigest()
    first = IndexCache(tmp_path, key=signed)
    first.put_mask(small_sha, key, (True, []), len(small))
    first.put_mask(SHA, key, (True, [(3, "x")]), len(big))
    assert first.lookup_mask(small_sha, key, len(small)) == (True, [])  # in memory, for this cache
    second = IndexCache(tmp_path, key=signed)
    opened: list[str] = []
    load = second._load_blob
    second._load_blob = lambda name: (opened.append(name), load(name))[1]  # type: ignore[method-assign]
    assert second.lookup_mask(small_sha, key, len(small)) is None
    assert opened == []
    assert second.lookup_mask(SHA, key, len(big)) == (True, [(3, "x")])
    assert len(opened) == 1
