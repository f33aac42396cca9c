"""The journal's keep policy: how many change sets, and how many bytes of previous content, it holds.

Policy (`[journal]` in stringsh.toml, policy.py): the newest `keep_changes` change sets (default 1000) and at most
`keep_bytes` of previous bytes (default 128 MiB; a prune for bytes goes down to 90% of it), whichever keeps fewer;
the newest change set is always kept (the one just made stays undoable however big it is), and a pending one is
never pruned (recovery needs it).

Checked after every change at the cost of two indexed lookups, not a scan: the change-set count is an `OFFSET`
walk down the primary key, the bytes a running total in `meta` that `Journal.begin` adds to as it keeps new bytes.
A prune itself scans the kept rows (about 1 ms at 1,000 change sets), so it frees a tenth of a bound at a time,
never one change set per change (which made every change past the first 1,000 about 40% slower, measured): past
`keep_changes` it starts once the journal holds a tenth more and goes back down to `keep_changes`; past
`keep_bytes` it goes down to 90% of it.
A journal of an older version has no total: it is summed once, then kept. (An older version writing in between
is not counted until the next prune, which sums again.) Pruning frees pages that SQLite reuses for the next
change sets, so the file stops growing at about its bounded size (tests/workspace/test_journal_keep.py measures it).
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from stringsh.workspace.policy import JournalKeep

FINISHED = "state NOT IN ('pending', 'staged', 'queued')"
#: A prune for bytes goes down to this percentage of `keep_bytes`, so pruning (tens of milliseconds with thousands
#: of kept files) happens once per tenth of the bound's growth rather than after every change past it; a prune for
#: the count starts this much past `keep_changes` (at 110%; below 10 change sets, at once) and goes down to it.
SLACK = 90
#: How many `pruned_undo` rows (one per client and topic whose undo history was cut) are remembered.
MAX_PRUNED_NOTES = 1000


class Depth(NamedTuple):
    """What the journal holds now (for /info)."""

    changes: int
    bytes: int
    oldest: int | None
    newest: int | None


def blob_bytes(db: sqlite3.Connection) -> int:
    """The running total of kept previous bytes, summed (once) when the journal has none yet."""
    row = db.execute("SELECT value FROM meta WHERE key='blob_bytes'").fetchone()
    if row is not None:
        return int(row[0])
    return _recount(db)


def _recount(db: sqlite3.Connection) -> int:
    total = int(db.execute("SELECT COALESCE(SUM(length(data)), 0) FROM blobs").fetchone()[0])
    total += int(db.execute("SELECT COALESCE(SUM(size), 0) FROM blob_files").fetchone()[0])
    db.execute("INSERT OR REPLACE INTO meta VALUES ('blob_bytes', ?)", (total,))
    return total


def prune_at(keep: JournalKeep) -> int:
    """How many change sets the journal holds before a prune takes it back to `keep_changes`: a tenth more (none
    more below 10)."""
    return keep.keep_changes + keep.keep_changes * (100 - SLACK) // 100


def over(db: sqlite3.Connection, keep: JournalKeep) -> bool:
    """Whether the journal holds more than `keep` allows (cheap: see the module docstring)."""
    beyond = db.execute("SELECT id FROM changesets ORDER BY id DESC LIMIT 1 OFFSET ?", (prune_at(keep),))
    return beyond.fetchone() is not None or blob_bytes(db) > keep.keep_bytes


def bound(db: sqlite3.Connection, keep: JournalKeep, gone: list[str] | None = None) -> int:
    """Prune to `keep` when the journal has grown past it; the caller holds a write transaction."""
    return prune(db, keep.keep_changes, keep.keep_bytes, gone) if over(db, keep) else 0


def prune(db: sqlite3.Connection, keep: int, keep_bytes: int | None = None, gone: list[str] | None = None) -> int:
    """Forget the finished change sets older than the newest `keep`, and then as many more of the oldest as it takes
    to hold at most `keep_bytes` of previous bytes (never the newest one), with the bytes only they held.
    The caller holds a write transaction, and removes the blob files named in `gone` once it committed.
    Returns how many change sets went."""
    newest = db.execute("SELECT MAX(id) FROM changesets").fetchone()[0]
    if newest is None:
        return 0
    row = db.execute("SELECT id FROM changesets ORDER BY id DESC LIMIT 1 OFFSET ?", (max(keep, 1),)).fetchone()
    cutoff = row[0] if row else 0
    if keep_bytes is not None:
        cutoff = max(cutoff, _bytes_cutoff(db, keep_bytes, cutoff))
    cutoff = min(cutoff, newest - 1)
    if cutoff <= 0:
        return 0
    old = f"SELECT id FROM changesets WHERE id <= ? AND {FINISHED}"
    # What `/undo` of each client and topic loses, so it can say so rather than "Nothing to undo".
    db.execute(
        "INSERT OR REPLACE INTO pruned_undo(client, topic, cs) SELECT o.client, c.topic, MAX(c.id) FROM changesets c "
        f"JOIN owners o ON o.cs = c.id WHERE c.id <= ? AND c.{FINISHED} AND c.kind='apply' AND c.state='done' "
        "AND c.reverted_by IS NULL AND o.skipped IS NULL GROUP BY o.client, c.topic",
        (cutoff,),
    )
    db.execute("DELETE FROM pruned_undo WHERE rowid NOT IN (SELECT rowid FROM pruned_undo ORDER BY cs DESC LIMIT ?)",
               (MAX_PRUNED_NOTES,))
    db.execute(f"DELETE FROM files WHERE cs IN ({old})", (cutoff,))
    db.execute(f"DELETE FROM appends WHERE cs IN ({old})", (cutoff,))
    removed = db.execute(f"DELETE FROM changesets WHERE id IN ({old})", (cutoff,)).rowcount
    # also the rows an older version's prune left behind
    for table in ("owners", "new_dirs", "tree_ops", "prev_times", "commands"):
        db.execute(f"DELETE FROM {table} WHERE cs NOT IN (SELECT id FROM changesets)")
    db.execute("DELETE FROM blobs WHERE sha NOT IN (SELECT prev_sha FROM files WHERE prev_sha IS NOT NULL)")
    unused = "FROM blob_files WHERE sha NOT IN (SELECT prev_sha FROM files WHERE prev_sha IS NOT NULL)"
    if gone is not None:
        gone.extend(row[0] for row in db.execute(f"SELECT sha {unused}"))
    db.execute(f"DELETE {unused}")
    _recount(db)
    return int(removed)


def _bytes_cutoff(db: sqlite3.Connection, keep_bytes: int, cutoff: int) -> int:
    """The change id up to which the oldest change sets must go for the rest to hold at most `keep_bytes`: a blob
    is freed once every change set naming it is gone, that is with the newest one naming it."""
    total = blob_bytes(db)
    if total <= keep_bytes:
        return 0
    # Summed here, not in one GROUP BY over the blobs: a subquery materialises `length(data)`, reading every kept
    # byte (50 ms at 128 MiB), where a plain column's length is read from the record header.
    last_use = dict(db.execute("SELECT prev_sha, MAX(cs) FROM files WHERE prev_sha IS NOT NULL GROUP BY prev_sha"))
    freed_with: dict[int, int] = {}
    for sha, size in db.execute("SELECT sha, length(data) FROM blobs UNION ALL SELECT sha, size FROM blob_files"):
        last = last_use.get(sha, 0)
        freed_with[last] = freed_with.get(last, 0) + int(size)
    rows = sorted(freed_with.items())
    need = total - keep_bytes * SLACK // 100  # down to 90%: the next prune waits for 10% more, not one change
    freed = 0
    reach = 0
    for last, size in rows:
        if freed >= need and last > cutoff:
            break
        freed += int(size)
        reach = last
    return reach


def human_size(size: int) -> str:
    """`512 bytes`, `1.5 KiB`, `128 MiB`: one decimal below 10 of a unit, none above."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.1f} {unit}" if value < 10 and value != int(value) else f"{value:.0f} {unit}"


def depth(db: sqlite3.Connection) -> Depth:
    count, oldest, newest = db.execute("SELECT COUNT(*), MIN(id), MAX(id) FROM changesets").fetchone()
    return Depth(int(count), blob_bytes(db), oldest, newest)
