"""What the processes that serve many clients for long (the daemon, the MCP servers) set once they are up."""

from __future__ import annotations

import gc
import sys

#: How long a thread that wants the interpreter lock waits before asking the running thread to let go (Python's
#: default is 5 ms): a short request is not held that long behind another thread's walk or diff.
SWITCH_INTERVAL = 0.001


def settle() -> None:
    """Everything start-up made (modules, the SDK's models and schemas) leaves the collector's sight, so a full
    collection walks only what serving made: under load (bench/load.py) the MCP HTTP server's full collections took
    110-140 ms each, a pause added to every call in flight. Called when the server is ready, before the first
    request. No collection first: it would cost a start-up about as long as the pauses it saves; what start-up left
    as garbage stays, a little memory."""
    gc.freeze()
    sys.setswitchinterval(SWITCH_INTERVAL)


_STARTED = False


def started() -> None:
    """The process's first workspace is loaded: what start-up made (modules, the command table, the policy) lives as
    long as the process, and leaves the collector's sight, once per process. A one-shot `stringsh -c` then pays no
    full collection walking it: the repeat `/open` of a 10 MB page (bench/documents.py) was 3-5 ms faster, its
    index entry's load about twice as fast."""
    global _STARTED
    if not _STARTED:
        _STARTED = True
        gc.freeze()


def keep_made() -> None:
    """Something long-lived was just made (an MCP session's client: its topic, and what the SDK built for the
    connection on its first call): it, and whatever else is alive now, joins start-up's objects out of the
    collector's sight. Anything alive is freed by its count as ever; only a cycle alive at this moment is kept."""
    gc.freeze()
