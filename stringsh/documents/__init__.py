"""The document service: what a topic has open and how it gets there, shared by every command that reads files.

Modules, each imported only by the commands that need it (start-up stays light):
`service` (the open view's lifecycle: current, open, reload, history, read-for-edit, after-write), `state` (the
per-workspace index cache and file watcher a dispatcher owns), `guard` (`require_seen`, the stale-write guard),
`shortcuts` (`@id` lookups), `actions` (running a page's actions, and front matter `default:`), `listing` (folder
listings for /ls and /open). `host` names the little documents use of the layers above them (the workspace's owner,
the running command), so nothing here imports the dispatcher or the command context.
"""
