"""The document service: what a topic has open and how it gets there, shared by every command that reads files.

Modules, each imported only by the commands that need it (start-up stays light):
`service` (the open view's lifecycle: current, open, reload, history, read-for-edit, after-write), `state` (the
per-workspace index cache and file watcher a dispatcher owns), `guard` (`require_seen`, the stale-write guard),
`targets` (`--from N` and `path#block` arguments), `shortcuts` (`@id` lookups), `actions` (running a page's
actions, and front matter `default:`), `listing` (folder listings for /ls and /open).
"""
