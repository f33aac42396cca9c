"""A subscription to a folder's resource URI (`file:///ws/src`): one `notifications/resources/updated` naming the
folder's URI per burst of changes anywhere inside it (a file written, made, removed or moved; a folder made, removed
or moved), whichever process made them, on one recursive watch of the folder (render/watch.py `watch_folder`).
The client then lists or reads what it needs. stringsh's own files below it (`.stringsh/`: shell spool, index
cache), which change as a side effect of the client's own calls, are not reported."""

from __future__ import annotations

#: stringsh's own folder in a workspace (the engine's STATE_DIR), whose changes a folder's subscriber never hears.
OWN_FOLDER = "/.stringsh/"


def own_files(path: str) -> bool:
    """Whether a changed path is inside a `.stringsh/` folder (or is that folder): left out of folder updates."""
    return OWN_FOLDER in path + "/"
