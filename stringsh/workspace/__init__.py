"""The workspace engine: confined paths, byte-faithful text, atomic writes, change journal.

Every front end goes through `Workspace`; nothing here knows String syntax, the wire or the UI.
"""

from stringsh.workspace.engine import Workspace
from stringsh.workspace.models import (
    ChangeSet,
    DirEntry,
    FileChange,
    FileInfo,
    RevertedFile,
    RevertOutcome,
    TextFile,
    WriteOutcome,
)
from stringsh.workspace.policy import Policy, load_policy
from stringsh.workspace.seen import is_seen_unchanged, mark_seen

__all__ = [
    "ChangeSet",
    "DirEntry",
    "FileChange",
    "FileInfo",
    "Policy",
    "RevertOutcome",
    "RevertedFile",
    "TextFile",
    "Workspace",
    "WriteOutcome",
    "is_seen_unchanged",
    "load_policy",
    "mark_seen",
]
