"""The audit log of a state folder read without starting a workspace (`stringsh audit verify|tail`), and the one
verify `Workspace.verify_audit` runs too: the chain, its head and the anchor the journal keeps outside both."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.workspace.state import AUDIT_FILES, JOURNAL_FILE, state_folder

if TYPE_CHECKING:
    from stringsh.workspace.audit import AuditCheck


def audit_folder(root: Path) -> Path:
    """The state folder of the workspace whose policy's main root is `root`, keyed as the engine keys it."""
    return state_folder(root)


def verify_audit_folder(folder: Path, journal: Path | None = None) -> AuditCheck:
    """Verify the folder's audit log against the anchor in `journal` (default: the folder's own journal); a
    damaged journal has no anchor to hold the log against."""
    from stringsh.workspace.audit import verify_audit
    from stringsh.workspace.journalcheck import read_anchor

    try:
        anchor = read_anchor(journal if journal is not None else folder / JOURNAL_FILE)
    except sqlite3.Error:
        anchor = None
    return verify_audit(folder, AUDIT_FILES, anchor)


def journal_stray_rows(folder: Path, root_ids: Collection[str]) -> list[tuple[int, str]]:
    """(change set, path) of the folder's journal rows naming a path outside the roots (journalcheck.py)."""
    from stringsh.workspace.journalcheck import stray_rows

    try:
        return stray_rows(folder / JOURNAL_FILE, root_ids)
    except sqlite3.Error:
        return []  # a damaged journal: verify already says the anchor is missing


def audit_tail(folder: Path, count: int) -> list[str]:
    """The newest `count` records of the folder's audit log, as they are stored."""
    from stringsh.workspace.audit import tail_lines

    return tail_lines(folder, AUDIT_FILES, count)
