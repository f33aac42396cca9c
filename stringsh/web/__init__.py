"""`stringsh web`: the supervisor's page, one more front end of the workspace, read-mostly.

It reads the journal and the audit log through the `Workspace` facade, streams new records to the page as
server-sent events (feed.py), shows each change set's diff as `/changes ID` does (views.py), and its only writes are
a revert of one change set and an undo of one client's newest change, through the engine's own operations, each a
request of the `web` dialect (actions.py). server.py holds the routes and the guards (stringsh/httpguard.py's token,
Host and Origin, with a strict Content-Security-Policy); static/ holds the page, served from the package.
"""
