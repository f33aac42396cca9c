"""The people's REPL (prompt_toolkit + rich), imported only when `stringsh` runs on a terminal.

app.py runs the loop (`run_repl`); keys.py holds the key bindings; completer.py decides what the word under the
cursor is and sources.py supplies candidates from the command table, the engine and the open view's index;
toolbar.py draws the bottom toolbar; history.py keeps input history. Reply text is split and styled for people by
`stringsh/render/replyparts.py` and `replies.py`, below the front ends, so `--color` output uses them too. Agents
use the plain loop (`stringsh/plain.py`) instead, which never imports this package.
"""
