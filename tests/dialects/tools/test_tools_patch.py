"""The JSON tool `apply_patch` through one real `stringsh tools` run: Codex's format applied as /patch applies it,
one journalled change, a refusal writing nothing, and the audit summary naming the patch's paths."""

from __future__ import annotations

from pathlib import Path

from tests.dialects.tools.client import audit_records, steady, tools

PATCH = ("*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    pass\n+    return 0\n"
         "*** Delete File: gone.txt\n*** End Patch\n")


def test_apply_patch_applies_refuses_and_is_undone_as_one_change(ws: Path) -> None:
    (ws / "app.py").write_bytes(b"def other():\r\n    pass\r\n\r\ndef main():\r\n    pass\r\n")
    (ws / "gone.txt").write_bytes(b"bye\n")
    replies = [steady(r) for r in tools(
        ws,
        {"id": 1, "tool": "apply_patch", "args": {"input": PATCH}},
        {"id": 2, "tool": "apply_patch", "args": {"input": "*** Begin Patch\n*** Add File: x.txt\n+x\n"}},
        {"id": 3, "tool": "apply_patch", "args": {"patch": PATCH}},
    )]
    assert replies[0] == {"id": 1, "ok": True, "result": {
        "success": True, "change_id": 1, "summary": "Patched 2 files: app.py (+1 -1), gone.txt (deleted, -1)"}}
    assert replies[1] == {
        "id": 2, "ok": False, "code": "INVALID_PAYLOAD",
        "error": "The patch does not end with '*** End Patch'; nothing was written.",
        "hint": "Send '*** Begin Patch', then per file '*** Add File: path' (lines '+…'), '*** Delete File: path' or "
                "'*** Update File: path' (chunks: '@@', then ' ' context, '-' removed, '+' added lines), then "
                "'*** End Patch'."}
    assert replies[2]["ok"] is False and replies[2]["code"] == "INVALID_ARGS"
    assert (ws / "app.py").read_bytes() == b"def other():\r\n    pass\r\n\r\ndef main():\r\n    return 0\r\n"
    assert not (ws / "gone.txt").exists() and not (ws / "x.txt").exists()
    first = next(r for r in audit_records() if r["op"] == "tools.apply_patch")
    assert (first["outcome"], first["paths"]) == ("ok", ["app.py", "gone.txt"])
    assert "return 0" not in str(audit_records())  # paths, never contents
