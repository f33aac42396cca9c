"""The notes a sandboxed command's reply ends with when it failed on what the sandbox keeps read-only or hides
(stringsh/workspace/shell/hidden.py), as the tests expect them, word for word."""

READ_ONLY_NOTE = (
    "note: the sandbox is read-only outside the workspace's writable roots, and at its protected paths "
    '(.git/hooks, .git/config, .stringsh/, stringsh.toml) (docs/security.md, "What a sandboxed command sees '
    'outside the workspace")'
)


def tmp_note(path: str) -> str:
    return (f"note: the sandbox's /tmp is the shell's own: {path} in the real /tmp, if it is there, is not seen; "
            "your own policy can add a folder as a read-only root (docs/security.md, \"What a sandboxed command "
            "sees outside the workspace\")")
