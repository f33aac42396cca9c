"""How the web server stands back for the agents it watches (Linux scheduling policies; elsewhere a no-op).

With ten pages open and 30 agents writing, the server's bursts (a look at the log, the clients' counts, encoding a
batch) landed in the middle of the agents' requests and lengthened their slowest ones by half. Two policies:

- the whole server runs SCHED_BATCH: never preempting an agent's request on waking, with its share of the CPU
  unchanged, so a revert or an undo a person asked for (under the workspace lock) is never starved;
- the threads that only watch (the log's follower, the older records' count) run SCHED_IDLE: only on a CPU no agent
  wants. They take no lock an agent waits for (the audit log is read by position, the journal by a reader that never
  blocks a writer), so their waiting delays the page, never an agent. A thread cannot leave SCHED_IDLE unprivileged:
  only threads that do nothing else are put there.
"""

from __future__ import annotations

import contextlib
import os


def stand_back() -> None:
    """The calling thread, and every thread it starts after, at SCHED_BATCH."""
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


def step_aside() -> None:
    """The calling thread (only it) at SCHED_IDLE: it runs when a CPU would otherwise be idle."""
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
