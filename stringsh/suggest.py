""""Did you mean": the one rule every refusal uses to name the closest command, flag, path or block id.

One line, and only when one candidate is close (difflib's ratio at or above `CUTOFF`) and closer than every
other, so a wild guess never points somewhere unrelated or picks one of several equal ones.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: How alike two words must be (difflib's ratio) before one is offered for the other.
CUTOFF = 0.75


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate most like `word` (case-insensitive), or None when none is close or `word` is one of them."""
    pool = {c.lower(): c for c in candidates if c}
    key = word.lower()
    if not key or key in pool:
        return None
    scored = sorted(((_ratio(key, c), c) for c in pool), reverse=True)
    if not scored or scored[0][0] < CUTOFF:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None  # a tie (`changes-` among changes-0..9): no one of them is the likely meant one
    return pool[scored[0][1]]


def _ratio(a: str, b: str) -> float:
    matcher = difflib.SequenceMatcher(None, a, b)
    if matcher.real_quick_ratio() < CUTOFF or matcher.quick_ratio() < CUTOFF:
        return 0.0
    return matcher.ratio()


def did_you_mean(word: str, candidates: Iterable[str], shown: str = "{}") -> str | None:
    """`Did you mean /open?` (`shown` formats the candidate), or None when nothing is close."""
    match = closest(word, candidates)
    return f"Did you mean {shown.format(match)}?" if match is not None else None


def with_suggestion(hint: str | None, suggestion: str | None) -> str | None:
    """The suggestion first, then the hint that was there: the likeliest fix is read first."""
    if suggestion is None:
        return hint
    return suggestion if not hint else f"{suggestion} {hint}"
