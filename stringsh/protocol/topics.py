"""Topic names: `main`, a bare tab name, or `bash:<name>`; anything else is INVALID_TARGET."""

from __future__ import annotations

import re

from stringsh.errors import StringError

TAB = r"^[A-Za-z0-9_-]{1,64}$"  # compiled by `re` on the first topic other than main
RESERVED = frozenset({"app", "bash", "tool", "system"})


def parse_topic(topic: str | None) -> tuple[str, str]:
    """Return (canonical topic, kind) where kind is `tab` or `bash`."""
    if not topic or topic == "main":  # most requests
        return "main", "tab"
    topic = (topic or "").strip() or "main"
    if topic.startswith("bash:") and re.match(TAB, topic[5:]):
        return topic, "bash"
    if re.match(TAB, topic) and topic not in RESERVED:
        return topic, "tab"
    raise StringError(
        "INVALID_TARGET",
        f"Invalid topic: {topic}",
        "Use main, a tab name of letters, digits, '_' or '-', or bash:<name>.",
    )
