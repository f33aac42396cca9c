"""The notes a sandboxed command's reply ends with when it failed on what the sandbox keeps read-only or hides, or
wrote to the sandbox's own /tmp (stringsh/workspace/shell/hidden.py, privatetmp.py), as the tests expect them,
word for word."""

SEE = '(docs/security.md, "What a sandboxed command sees outside the workspace")'

READ_ONLY_NOTE = (
    "note: the sandbox is read-only outside the workspace's writable roots, and at its protected paths "
    f"(.git/hooks, .git/config, .stringsh/, stringsh.toml) {SEE}"
)


def tmp_note(path: str) -> str:
    """`path`, in the real /tmp, is hidden from the sandbox."""
    return (f"note: the sandbox's /tmp is the shell's own: {path} is in the real /tmp but not seen here; your own "
            f"policy can add a folder as a read-only root {SEE}")


def written_note(shown: str, until: str = "when the shell ends") -> str:
    """`shown` (paths as the sandbox sees them, `, `-joined, maybe `and N more`) was written to the sandbox's /tmp."""
    return (f"note: the sandbox's /tmp is the shell's own: written there, not to the real /tmp, and gone {until}: "
            f"{shown} {SEE}")
