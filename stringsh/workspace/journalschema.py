"""The change journal's tables (journal.py): created with `CREATE TABLE IF NOT EXISTS`, so an older journal upgrades
by creating the tables it lacks, and an older version can still read a newer journal."""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS changesets(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    topic TEXT NOT NULL,
    frontend TEXT NOT NULL,
    kind TEXT NOT NULL,            -- apply | revert
    reverts INTEGER,               -- for kind=revert: the change set undone
    state TEXT NOT NULL,           -- pending | done | rolled_back
    reverted_by INTEGER            -- set on an applied change set once a revert of it is done
);
CREATE INDEX IF NOT EXISTS changesets_state ON changesets(state);
CREATE INDEX IF NOT EXISTS changesets_topic ON changesets(topic, kind, state);
CREATE TABLE IF NOT EXISTS files(
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    path TEXT NOT NULL,            -- resolved root-relative path
    prev_sha TEXT,                 -- NULL: the file did not exist
    new_sha TEXT,                  -- NULL: the change deletes it
    prev_mode INTEGER,
    new_mode INTEGER,
    PRIMARY KEY(cs, idx)
);
CREATE TABLE IF NOT EXISTS blobs(sha TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS blob_files(  -- previous bytes of FILE_BLOB or more: the file blobs/<sha> (blobfiles.py)
    sha TEXT PRIMARY KEY,
    size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS owners(
    cs INTEGER PRIMARY KEY,        -- a change set
    client TEXT NOT NULL,          -- the process (or daemon) that made it: "<pid>-<random>"
    skipped REAL                   -- when `/undo --skip` passed over it (the files were left as they were)
);
CREATE INDEX IF NOT EXISTS owners_client ON owners(client);
CREATE TABLE IF NOT EXISTS new_dirs(
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    dirs TEXT NOT NULL,            -- folders created for the file, outermost first, one per line
    PRIMARY KEY(cs, idx)
);
CREATE TABLE IF NOT EXISTS appends(   -- an append (ops/appending.py) keeps the first prev_size bytes: no blob
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    prev_size INTEGER NOT NULL,
    PRIMARY KEY(cs, idx)
);
CREATE TABLE IF NOT EXISTS tree_ops(  -- folders and symlinks a change made or removed (workspace/tree.py)
    cs INTEGER NOT NULL,
    seq INTEGER NOT NULL,          -- execution order: every `make` (outermost first), then every `remove`
    path TEXT NOT NULL,            -- resolved root-relative path
    kind TEXT NOT NULL,            -- dir | link
    action TEXT NOT NULL,          -- make | remove
    mode INTEGER,                  -- a folder's permission bits (NULL: the default)
    target TEXT,                   -- a symlink's target, kept as written
    PRIMARY KEY(cs, seq)
);
CREATE TABLE IF NOT EXISTS prev_times(  -- a file a move, copy or delete took away: its times, for undo
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    atime_ns INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    PRIMARY KEY(cs, idx)
);
CREATE TABLE IF NOT EXISTS commands(  -- the command line that made a change set (redacted, cut short): /changes
    cs INTEGER PRIMARY KEY,
    line TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);  -- blob_bytes: kept bytes
CREATE TABLE IF NOT EXISTS audit_anchor(  -- the audit head when the newest change set was written (one row)
    id INTEGER PRIMARY KEY CHECK (id = 1),
    cs INTEGER NOT NULL,
    records INTEGER NOT NULL,      -- records in the current audit log then
    hash TEXT NOT NULL             -- its newest record's hash then
);
CREATE TABLE IF NOT EXISTS pruned_undo(  -- per client and topic: the newest undoable change set a prune forgot
    client TEXT NOT NULL,
    topic TEXT NOT NULL,
    cs INTEGER NOT NULL,
    PRIMARY KEY(client, topic)
);
"""
