"""Progress for long calls: when the client's request carries `_meta.progressToken`, a call still running after
`FIRST` seconds sends `notifications/progress` (then one every `EVERY` seconds until it answers), so a client
(and the person behind it) sees that a `bash` command, a grep, a symbol search or a patch of many files is at
work rather than hung. `progress` counts the notifications (it only grows, as the protocol asks), no `total` (a
shell command's length is unknown), and the message names the tool and the seconds it has run. Without a token
nothing is sent."""

from __future__ import annotations

import time
from typing import Any

#: Seconds a call runs before its first progress notification.
FIRST = 0.5
#: Seconds between later ones.
EVERY = 1.0


def progress_token(request: Any) -> str | int | None:
    """The request's progress token (`_meta.progressToken`), or None when the client asked for no progress."""
    meta = getattr(request, "meta", None)
    token = (meta.get("progressToken", meta.get("progress_token")) if isinstance(meta, dict) else None)
    return token if isinstance(token, str | int) and not isinstance(token, bool) else None


async def report(request: Any, tool: str) -> None:
    """Send progress for `tool`'s call until cancelled (the caller cancels it when the call is answered)."""
    import anyio

    started = time.monotonic()
    count = 0
    await anyio.sleep(FIRST)
    while True:
        count += 1
        seconds = int(time.monotonic() - started)
        try:
            await request.session.report_progress(count, None, f"{tool}: running for {seconds} s")
        except Exception:  # advisory: a client that cannot take it must not fail the call
            return
        await anyio.sleep(EVERY)
