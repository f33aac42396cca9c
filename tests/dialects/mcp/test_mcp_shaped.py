"""structuredContent from the engine's values (shaped.structured): a result whose names need no masking or escaping
is given back as it is, in one scan; one leaf that does is shown as the text shows it, its neighbours unchanged."""

from __future__ import annotations

import os
from pathlib import Path

from stringsh.dialects.mcp.shaped import Shaped, structured
from stringsh.workspace import Workspace

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def entries(*names: str) -> dict[str, list[dict[str, str]]]:
    return {"entries": [{"name": name, "type": "file"} for name in names]}


def test_names_are_shown_as_the_text_shows_them_whichever_way_they_are_checked(tmp_path: Path) -> None:
    ws = Workspace.load(tmp_path)
    try:
        plain = entries(*(f"entry-{n:04d}.txt" for n in range(1000)))
        assert structured(ws, Shaped("text", plain), "text") == {"content": "text", **plain}
        odd = entries("a.txt", f"key-{TOKEN}", "cr\rname", "PRIVATE", "KEY.txt", os.fsdecode(b"caf\xe9"))
        assert structured(ws, Shaped("text", odd), "text") == {"content": "text", "entries": [
            {"name": "a.txt", "type": "file"}, {"name": "key-***REDACTED***", "type": "file"},
            {"name": "cr\\x0dname", "type": "file"}, {"name": "PRIVATE", "type": "file"},
            {"name": "KEY.txt", "type": "file"}, {"name": "caf\\xe9", "type": "file"}]}
        assert structured(ws, Shaped("t", {"tree": ("a", "b")}), "t") == {"content": "t", "tree": ["a", "b"]}
    finally:
        ws.close()
