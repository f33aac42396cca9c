"""Policy checks shared by the operations: permission flags, read-only roots, hard links, write size."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from stringsh.errors import StringError, too_large_to_write
from stringsh.userdirs import user_policy_file

if TYPE_CHECKING:
    from stringsh.workspace.paths import Resolved
    from stringsh.workspace.policy import Policy


def require(policy: Policy, allowed: bool, op: str, *, mutating: bool = False) -> None:
    """`allowed` is the operation's own flag (`policy.permissions.<op>`), read by the caller as a typed field."""
    if not allowed:
        raise StringError("NOT_PERMITTED", f"{op} is disabled by policy", f"The policy's [permissions] {op} = false.")
    # Every root read_only: refused here; else each path's own root decides (roots.py, on resolving to change).
    if mutating and all(root.mode != "read_write" for root in policy.roots):
        raise StringError("NOT_PERMITTED", f"{op} is not allowed: root {policy.root.id} is read_only",
                          "A read_only root is never changed; /info lists the roots and their modes.")


def check_hardlink(policy: Policy, res: Resolved, st: os.stat_result) -> None:
    """A hard link can alias a file outside the root that no path rule sees."""
    if st.st_nlink > 1 and stat.S_ISREG(st.st_mode) and not policy.secrets.allow_hardlinks:
        raise StringError(
            "SECRET_DENIED",
            f"Refusing a hard-linked file (it may alias a file outside the workspace): {res.rel}",
            hardlink_hint(policy),
        )


def hardlink_hint(policy: Policy) -> str:
    """Where the user can allow hard links: their own policy always; the workspace's stringsh.toml only once they
    trusted the workspace (an untrusted one's widening settings are ignored: layers.py)."""
    own = f"your own policy ({user_policy_file()})"
    if policy.trusted:
        return f"To allow hard links, set [secrets] allow_hardlinks = true in the workspace's stringsh.toml or {own}."
    return f"To allow hard links, set [secrets] allow_hardlinks = true in {own}; the workspace's stringsh.toml " \
           "cannot widen it."


def check_size(policy: Policy, path: str, data: bytes) -> None:
    limit = policy.limits.max_write_bytes
    if len(data) > limit:
        raise too_large_to_write(path, len(data), limit)


def keep_limit(policy: Policy) -> int:
    """The most previous bytes a change may keep in the journal for undo."""
    return max(policy.limits.max_read_bytes, policy.limits.max_write_bytes)
