"""The workspace engine: confined paths, byte-faithful text, atomic writes, change journal, audited shells.

Every front end goes through `Workspace`; nothing here knows String syntax, the wire or the UI. Names load on
first use (PEP 562), so importing the package for `Workspace` does not also build every response type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.lazyexports import lazy_exports

if TYPE_CHECKING:
    from stringsh.workspace.activity import ClientChanges, Health
    from stringsh.workspace.atomic import open_folders, sha256
    from stringsh.workspace.audit import AuditCheck
    from stringsh.workspace.auditfolder import audit_folder, audit_tail, journal_stray_rows, verify_audit_folder
    from stringsh.workspace.auditread import Entry as AuditEntry
    from stringsh.workspace.auditread import Spot as AuditSpot
    from stringsh.workspace.clients import Client, pick_client
    from stringsh.workspace.codexpatch import is_codex_patch, named_paths, patched_line
    from stringsh.workspace.context import RequestContext
    from stringsh.workspace.digest import sha256 as builtin_sha256
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.guards import (
        NO_GUARD,
        SHOWN_LINES,
        BodyRefused,
        Guard,
        PartText,
        WholeFile,
        block_changed,
        block_gone,
        changed_since,
        lines_changed,
        refuse_empty,
        refuse_numbered,
    )
    from stringsh.workspace.guards import shown as shown_text
    from stringsh.workspace.hunks import PatchFailed, apply_hunks
    from stringsh.workspace.journalcheck import stray_paths
    from stringsh.workspace.journalrows import ChangeRow, FileRow, MissingBlob, TreeOp
    from stringsh.workspace.keep import human_size, prune_at
    from stringsh.workspace.layers import load_policy, policy_summary, shown_path, startup_line, workspace_policy_bytes
    from stringsh.workspace.models import (
        ChangeSet,
        ChangeSetId,
        FileChange,
        LinkInFolder,
        RevertedFile,
        RevertOutcome,
        SkippedChange,
        WriteOutcome,
    )
    from stringsh.workspace.ops.actionrun import ActionRequest, ActionRun
    from stringsh.workspace.ops.grep import GrepLine
    from stringsh.workspace.ops.inplace import Rewritten
    from stringsh.workspace.ops.lines import splice_lines
    from stringsh.workspace.ops.listdir import DirEntry, FolderTree, TreeEntry
    from stringsh.workspace.ops.partedit import Located, PartEditRequest
    from stringsh.workspace.ops.read import TextFile
    from stringsh.workspace.ops.replace import Mode as ReplaceMode
    from stringsh.workspace.ops.replace import PairRefused, find_all, replace_all_pairs
    from stringsh.workspace.ops.replace import Refused as ReplaceRefused
    from stringsh.workspace.ops.replace import replace as exact_replace
    from stringsh.workspace.ops.revert import pruned_error
    from stringsh.workspace.ops.searchwalk import Identity, SearchedPath, SearchFile, SearchWalk
    from stringsh.workspace.ops.shell import ShellRequest
    from stringsh.workspace.ops.stat import FileInfo
    from stringsh.workspace.ops.streams import StreamsRequest
    from stringsh.workspace.ops.walk import Traversal
    from stringsh.workspace.ops.window import TextWindow, WindowRequest
    from stringsh.workspace.patches import Hunk, Patch
    from stringsh.workspace.policy import Policy
    from stringsh.workspace.redact import BUILTINS, Redactor, masked_lines
    from stringsh.workspace.redact import builtin as builtin_redactor
    from stringsh.workspace.seen import is_seen_unchanged, mark_seen
    from stringsh.workspace.shell.clean import clean_text
    from stringsh.workspace.shell.live import LISTENER
    from stringsh.workspace.shell.result import ShellResult
    from stringsh.workspace.shell.sandboxing import shell_note
    from stringsh.workspace.shell.session import ShellSession
    from stringsh.workspace.shell.streams import Stream, StreamsResult
    from stringsh.workspace.textdiff import line_opcodes, shown_pair
    from stringsh.workspace.textdiff import unified as unified_diff
    from stringsh.workspace.textio import (
        BREAK,
        LEGACY_ENCODINGS,
        as_lf,
        count_lines,
        decode,
        is_ambiguous,
        legacy_note,
        line_spans,
        refuse_ambiguous,
        splice,
        split_lines,
    )
    from stringsh.workspace.textio import encode as encode_text
    from stringsh.workspace.trust import digest as trust_digest
    from stringsh.workspace.trust import record as trust_record
    from stringsh.workspace.trust import recorded as trust_recorded
    from stringsh.workspace.trust import revoke as trust_revoke
    from stringsh.workspace.unified import parse_diff

#: Each public name and the module it loads from (`module:attr` when the public name differs).
_WHERE = {
    "ClientChanges": "activity",
    "Health": "activity",
    "AuditEntry": "auditread:Entry",
    "AuditSpot": "auditread:Spot",
    "ActionRequest": "ops.actionrun",
    "ActionRun": "ops.actionrun",
    "LinkInFolder": "models",
    "TreeEntry": "ops.listdir",
    "FolderTree": "ops.listdir",
    "block_changed": "guards",
    "block_gone": "guards",
    "changed_since": "guards",
    "lines_changed": "guards",
    "refuse_empty": "guards",
    "refuse_numbered": "guards",
    "SHOWN_LINES": "guards",
    "shown_text": "guards:shown",
    "exact_replace": "ops.replace:replace",
    "find_all": "ops.replace",
    "replace_all_pairs": "ops.replace",
    "PairRefused": "ops.replace",
    "ReplaceRefused": "ops.replace:Refused",
    "ReplaceMode": "ops.replace:Mode",
    "splice_lines": "ops.lines",
    "line_spans": "textio",
    "splice": "textio",
    "builtin_redactor": "redact:builtin",
    "BodyRefused": "guards",
    "Guard": "guards",
    "NO_GUARD": "guards",
    "PartText": "guards",
    "WholeFile": "guards",
    "Located": "ops.partedit",
    "PartEditRequest": "ops.partedit",
    "Rewritten": "ops.inplace",
    "apply_hunks": "hunks",
    "as_lf": "textio",
    "audit_folder": "auditfolder",
    "audit_tail": "auditfolder",
    "journal_stray_rows": "auditfolder",
    "stray_paths": "journalcheck",
    "AuditCheck": "audit",
    "BREAK": "textio",
    "BUILTINS": "redact",
    "ChangeRow": "journalrows",
    "ChangeSet": "models",
    "ChangeSetId": "models",
    "clean_text": "shell.clean",
    "Client": "clients",
    "count_lines": "textio",
    "decode": "textio",
    "encode_text": "textio:encode",
    "DirEntry": "ops.listdir",
    "FileChange": "models",
    "FileInfo": "ops.stat",
    "FileRow": "journalrows",
    "GrepLine": "ops.grep",
    "human_size": "keep",
    "Hunk": "patches",
    "is_ambiguous": "textio",
    "is_codex_patch": "codexpatch",
    "is_seen_unchanged": "seen",
    "LEGACY_ENCODINGS": "textio",
    "legacy_note": "textio",
    "line_opcodes": "textdiff",
    "LISTENER": "shell.live",
    "load_policy": "layers",
    "mark_seen": "seen",
    "masked_lines": "redact",
    "MissingBlob": "journalrows",
    "named_paths": "codexpatch",
    "open_folders": "atomic",
    "parse_diff": "unified",
    "Patch": "patches",
    "patched_line": "codexpatch",
    "PatchFailed": "hunks",
    "pick_client": "clients",
    "Policy": "policy",
    "prune_at": "keep",
    "pruned_error": "ops.revert",
    "Redactor": "redact",
    "refuse_ambiguous": "textio",
    "RequestContext": "context",
    "RevertedFile": "models",
    "RevertOutcome": "models",
    "sha256": "atomic",
    "shell_note": "shell.sandboxing",
    "ShellRequest": "ops.shell",
    "ShellResult": "shell.result",
    "ShellSession": "shell.session",
    "shown_pair": "textdiff",
    "SkippedChange": "models",
    "split_lines": "textio",
    "policy_summary": "layers",
    "shown_path": "layers",
    "startup_line": "layers",
    "Stream": "shell.streams",
    "StreamsRequest": "ops.streams",
    "StreamsResult": "shell.streams",
    "TextFile": "ops.read",
    "TextWindow": "ops.window",
    "Traversal": "ops.walk",
    "Identity": "ops.searchwalk",
    "SearchedPath": "ops.searchwalk",
    "SearchFile": "ops.searchwalk",
    "SearchWalk": "ops.searchwalk",
    "TreeOp": "journalrows",
    "trust_digest": "trust:digest",
    "builtin_sha256": "digest:sha256",
    "trust_record": "trust:record",
    "trust_recorded": "trust:recorded",
    "trust_revoke": "trust:revoke",
    "unified_diff": "textdiff:unified",
    "verify_audit_folder": "auditfolder",
    "WindowRequest": "ops.window",
    "Workspace": "engine",
    "workspace_policy_bytes": "layers",
    "WriteOutcome": "models",
}

__all__ = [
    "BREAK",
    "BUILTINS",
    "LEGACY_ENCODINGS",
    "LISTENER",
    "NO_GUARD",
    "SHOWN_LINES",
    "ActionRequest",
    "ActionRun",
    "AuditCheck",
    "AuditEntry",
    "AuditSpot",
    "BodyRefused",
    "ChangeRow",
    "ChangeSet",
    "ChangeSetId",
    "Client",
    "ClientChanges",
    "DirEntry",
    "FileChange",
    "FileInfo",
    "FileRow",
    "FolderTree",
    "GrepLine",
    "Guard",
    "Health",
    "Hunk",
    "Identity",
    "LinkInFolder",
    "Located",
    "MissingBlob",
    "PairRefused",
    "PartEditRequest",
    "PartText",
    "Patch",
    "PatchFailed",
    "Policy",
    "Redactor",
    "ReplaceMode",
    "ReplaceRefused",
    "RequestContext",
    "RevertOutcome",
    "RevertedFile",
    "Rewritten",
    "SearchFile",
    "SearchWalk",
    "SearchedPath",
    "ShellRequest",
    "ShellResult",
    "ShellSession",
    "SkippedChange",
    "Stream",
    "StreamsRequest",
    "StreamsResult",
    "TextFile",
    "TextWindow",
    "Traversal",
    "TreeEntry",
    "TreeOp",
    "WholeFile",
    "WindowRequest",
    "Workspace",
    "WriteOutcome",
    "apply_hunks",
    "as_lf",
    "audit_folder",
    "audit_tail",
    "block_changed",
    "block_gone",
    "builtin_redactor",
    "builtin_sha256",
    "changed_since",
    "clean_text",
    "count_lines",
    "decode",
    "encode_text",
    "exact_replace",
    "find_all",
    "human_size",
    "is_ambiguous",
    "is_codex_patch",
    "is_seen_unchanged",
    "journal_stray_rows",
    "legacy_note",
    "line_opcodes",
    "line_spans",
    "lines_changed",
    "load_policy",
    "mark_seen",
    "masked_lines",
    "named_paths",
    "open_folders",
    "parse_diff",
    "patched_line",
    "pick_client",
    "policy_summary",
    "prune_at",
    "pruned_error",
    "refuse_ambiguous",
    "refuse_empty",
    "refuse_numbered",
    "replace_all_pairs",
    "sha256",
    "shell_note",
    "shown_pair",
    "shown_path",
    "shown_text",
    "splice",
    "splice_lines",
    "split_lines",
    "startup_line",
    "stray_paths",
    "trust_digest",
    "trust_record",
    "trust_recorded",
    "trust_revoke",
    "unified_diff",
    "verify_audit_folder",
    "workspace_policy_bytes",
]


__getattr__ = lazy_exports(__name__, _WHERE)
