"""The workspace engine: confined paths, byte-faithful text, atomic writes, change journal, audited shells.

Every front end goes through `Workspace`; nothing here knows String syntax, the wire or the UI. Names load on
first use (PEP 562), so importing the package for `Workspace` does not also build every response type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.lazyexports import lazy_exports

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.guards import NO_GUARD, BodyRefused, Guard, PartText, WholeFile
    from stringsh.workspace.layers import load_policy
    from stringsh.workspace.models import (
        ChangeSet,
        ChangeSetId,
        FileChange,
        Hunk,
        Patch,
        RevertedFile,
        RevertOutcome,
        WriteOutcome,
    )
    from stringsh.workspace.ops.inplace import Rewritten
    from stringsh.workspace.ops.listdir import DirEntry
    from stringsh.workspace.ops.partedit import Located, PartEditRequest
    from stringsh.workspace.ops.read import TextFile
    from stringsh.workspace.ops.stat import FileInfo
    from stringsh.workspace.policy import Policy
    from stringsh.workspace.seen import is_seen_unchanged, mark_seen

_WHERE = {
    "Workspace": "engine",
    "BodyRefused": "guards",
    "Guard": "guards",
    "NO_GUARD": "guards",
    "PartText": "guards",
    "WholeFile": "guards",
    "Located": "ops.partedit",
    "PartEditRequest": "ops.partedit",
    "Rewritten": "ops.inplace",
    "ChangeSet": "models",
    "ChangeSetId": "models",
    "Hunk": "patches",
    "Patch": "patches",
    "DirEntry": "ops.listdir",
    "FileChange": "models",
    "FileInfo": "ops.stat",
    "RevertedFile": "models",
    "RevertOutcome": "models",
    "TextFile": "ops.read",
    "WriteOutcome": "models",
    "Policy": "policy",
    "load_policy": "layers",
    "is_seen_unchanged": "seen",
    "mark_seen": "seen",
}

__all__ = [
    "NO_GUARD",
    "BodyRefused",
    "ChangeSet",
    "ChangeSetId",
    "DirEntry",
    "FileChange",
    "FileInfo",
    "Guard",
    "Hunk",
    "Located",
    "PartEditRequest",
    "PartText",
    "Patch",
    "Policy",
    "RevertOutcome",
    "RevertedFile",
    "Rewritten",
    "TextFile",
    "WholeFile",
    "Workspace",
    "WriteOutcome",
    "is_seen_unchanged",
    "load_policy",
    "mark_seen",
]


__getattr__ = lazy_exports(__name__, _WHERE)
