"""Who a process is in the journal (its client): whose undo history its changes join and `/undo` walks.

Three kinds, picked once at start-up (cli.py):
- named: `--client NAME` or `STRINGSH_CLIENT=NAME`, whatever the front end; two processes with one name share one
  undo history, two names never undo each other's changes;
- a terminal session's: `-c`, `run`, `operator` and `tools` without a name. An agent's shell calls them one after
  another from one session (`getsid`), so they share `sid-<sid>-<start>-<boot>`: the session leader's start time
  (field 22 of `/proc/<sid>/stat`) and the boot id tell a sid recycled after the terminal closed, or after a
  reboot, from the one that made the changes. Where the leader lives outside this process's pid namespace (a
  container started without a terminal: `getsid` answers 0), the namespace stands for the session:
  `sid-0-<namespace inode>-<boot>`, shared by every process of that container that never started a session;
- a process's own: the daemon, the REPL and the MCP server (and any process where `/proc` cannot say), as before.

A client is attribution, not a permission: `/changes` and `/revert ID` reach every client's changes alike.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from stringsh.errors import StringError

#: The longest client name `--client` or `STRINGSH_CLIENT` may give.
MAX_NAME = 64
#: Set to name the client without the flag.
ENV = "STRINGSH_CLIENT"
NAME_HINT = (f"A client name is 1 to {MAX_NAME} printable characters without spaces "
             f"(--client agent-1, or {ENV}=agent-1).")


class Client(NamedTuple):
    """A process's client. `lasting`: it outlives the process (named, or a terminal session's), so a later
    process can undo its changes, and `/undo` in topic main also walks its `operator` and `tools` runs."""

    name: str
    lasting: bool


def own_client() -> Client:
    """A client of this process alone: a restart starts with nothing to undo."""
    return Client(f"{os.getpid()}-{os.urandom(4).hex()}", False)


def named_client(name: str, source: str) -> Client:
    """The client the caller names; INVALID_PAYLOAD (quoting it safely) when it is not a usable name."""
    problem = None
    if not name:
        problem = "it is empty"
    elif len(name) > MAX_NAME:
        problem = f"it has {len(name)} characters, more than {MAX_NAME}"
    elif any(ch.isspace() for ch in name):
        problem = "it has whitespace"
    elif not name.isprintable():
        problem = "it has a character that is not printable"
    if problem is not None:
        shown = ascii(name if len(name) <= 80 else name[:80] + "…")
        raise StringError("INVALID_PAYLOAD", f"Invalid client name {shown} ({source}): {problem}.", NAME_HINT)
    return Client(name, True)


def terminal_client() -> Client | None:
    """The client of this process's terminal session; None when `/proc` cannot identify it (leader gone, or no
    procfs), where the caller falls back to a process's own client."""
    try:
        sid = os.getsid(0)
        session = _hidden_session() if sid == 0 else _leader_start(sid)
    except OSError:
        return None
    if session is None:
        return None
    return Client(f"sid-{sid}-{session}-{_boot_id()}", True)


def _leader_start(sid: int) -> str | None:
    """The session leader's start time (field 22 of its stat: clock ticks after boot), or None when `sid` names a
    process that no longer leads that session."""
    with open(f"/proc/{sid}/stat", "rb") as handle:
        stat = handle.read()
    fields = stat[stat.rfind(b")") + 2:].split()  # the name in parentheses may hold spaces and `)`
    if len(fields) < 20 or fields[3] != str(sid).encode():  # field 6: the leader's session is this one
        return None
    return fields[19].decode("ascii", "replace")


def _hidden_session() -> str | None:
    """The pid namespace's inode, standing for a session whose leader this namespace cannot see."""
    link = os.readlink("/proc/self/ns/pid")  # "pid:[4026531836]"
    inode = link[link.find("[") + 1:link.rfind("]")]
    return f"ns{inode}" if inode.isdigit() else None


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip().replace("-", "")[:8]
    except OSError:
        return "0"


def pick_client(flag: str | None, *, session: bool) -> Client:
    """The client of this run: `--client`, else `STRINGSH_CLIENT`, else the terminal session's (`session`: a
    one-shot front end) or the process's own."""
    if flag is not None:
        return named_client(flag, "--client")
    env = os.environ.get(ENV)
    if env:
        return named_client(env, ENV)
    if session:
        found = terminal_client()
        if found is not None:
            return found
    return own_client()
