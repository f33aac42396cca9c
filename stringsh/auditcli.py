"""`stringsh audit verify` and `stringsh audit tail [-n N] [--json]`: the workspace's audit log for people and
scripts, read from the user's state folder without starting a workspace (no shell, no journal, no index).

verify exits 0 with one summary line, 1 naming the first bad file and line and why; a missing workspace folder or
a policy that does not load is status 2, as for the other subcommands.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.options import Options
    from stringsh.workspace import AuditCheck, Policy

#: What each of verify's reasons means, for the person reading the report.
EXPLAINED = {
    "not a record": "the line is not an audit record",
    "truncated record": "the last record is cut short",
    "chain broken": "its link to the record before it does not match: a record was removed, inserted or moved",
    "hash mismatch": "its hash does not match its fields: the record was changed",
}


def policy_of(args: Options) -> Policy | None:
    """The policy of the workspace the options name (`--root`, else the current folder); None (after saying why)
    when there is no such folder or its policy does not load."""
    from stringsh.errors import StringError
    from stringsh.workspace import load_policy

    root = args.workspace_folder()
    if root is None:
        return None
    try:
        policy = load_policy(root, Path(args.policy) if args.policy else None)
    except StringError as exc:
        print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        return None
    return policy


def run_audit(args: Options) -> int:
    """The state folder is keyed like the engine keys it: by the policy's main root."""
    from stringsh.workspace import audit_folder

    policy = policy_of(args)
    if policy is None:
        return 2
    folder = audit_folder(policy.root.path)
    if args.audit_command == "verify":
        return verify(folder, {root.id for root in policy.roots})
    return tail(folder, args.lines, json_lines=args.json, mask=policy.redactor())


def verify(folder: Path, root_ids: set[str]) -> int:
    """The chain, its head, and the anchor the journal keeps outside both (a damaged journal: no anchor); then the
    journal's rows, none of which may name a path outside the roots (the engine never journals one)."""
    from stringsh.workspace import journal_stray_rows, verify_audit_folder

    check = verify_audit_folder(folder)
    print(report(check, folder))
    strays = journal_stray_rows(folder, root_ids)
    if strays:
        print(tampered(strays))
    return 0 if check.ok and not strays else 1


def tampered(strays: list[tuple[int, str]]) -> str:
    """The line verify prints for journal rows outside the roots: the first, and how many more."""
    change, path = strays[0]
    more = f" (and {len(strays) - 1} more row{'' if len(strays) == 2 else 's'})" if len(strays) > 1 else ""
    return (f"journal TAMPERED: change {change} names a path outside the roots: {path}{more}; "
            "recovery never writes it")


def report(check: AuditCheck, folder: Path) -> str:
    """The one line verify prints."""
    plural = "" if check.records == 1 else "s"
    if check.ok:
        return f"audit log ok: {check.records} record{plural}, {check.size} bytes, in {folder}"
    why = EXPLAINED.get(check.reason, "")
    if check.reason.endswith("missing from the end"):
        why = "the head file remembers more records than the log holds: records were cut from its end"
    elif check.reason.startswith("does not match"):
        why = "the newest records were replaced"
    elif check.reason.endswith("missing or damaged"):
        why = "cannot tell whether records were cut from the end"
    elif check.reason.startswith("no records, but"):
        why = "the log and its head were removed or emptied"
    elif check.reason.endswith("is not in the log"):
        why = "the log was removed or cut and started again"
    because = f" ({why})" if why else ""
    return (f"audit log BROKEN: {folder / check.file} line {check.bad_line}: {check.reason}{because}; "
            f"{check.records} record{plural} verified before it")


def tail(folder: Path, count: int, *, json_lines: bool, mask: Callable[[str], str] = str) -> int:
    """The newest records, masked as they are printed (`mask`, the policy's redactor): a path or a command's
    words may hold a token the record keeps as it was."""
    from stringsh.workspace import audit_tail

    if count < 0:
        print("stringsh: audit tail -n needs a count of 0 or more", file=sys.stderr)
        return 2
    for line in audit_tail(folder, count):
        print(mask(line if json_lines else human(line)))
    return 0


def human(line: str) -> str:
    """`local time  topic  op  outcome  ms  summary` (paths, then the command line, then the change id)."""
    try:
        record = json.loads(line)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(record["time"])))
        paths = [str(path) for path in record.get("paths", [])]
        summary = ", ".join(paths)
        if record.get("command") is not None:
            summary = f"{summary} · {record['command']}" if summary else str(record["command"])
        if record.get("change") is not None:
            summary = f"{summary} (change {record['change']})".lstrip()
        elif record.get("changes"):  # a request that made several change sets (a batch of writes)
            summary = f"{summary} (changes {', '.join(map(str, record['changes']))})".lstrip()
        fields = (stamp, record["topic"], record["op"], record["outcome"], f"{float(record['ms']):.1f} ms", summary)
    except (ValueError, KeyError, TypeError, AttributeError):
        return "(not an audit record)"
    return "  ".join(str(field) for field in fields).rstrip()
