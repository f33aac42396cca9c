""""Did you mean": the one rule every refusal uses to name the closest command, flag, path or block id.

One line, and only when one candidate is close and closer than every other: at most one edit (a letter added,
dropped, changed, or two swapped) per three letters of what was typed (its name, without leading `-`, `#`, `@`
or `/`), so a name shorter than three letters gets no suggestion. So `/opne` finds `/open` and
`READNE.md` finds `README.md`, while `/nope` finds nothing and `changes-` among `changes-0`…`changes-9` (a tie)
picks none. A candidate masking would change (a file or symbol named after a token) is never suggested: the
suggestion would tell, an edit at a time, how close a guess is to a secret. Candidates that may hold one come
with `shown`, the masking (Workspace.redact, or the built-in patterns where no policy is at hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def closest(word: str, candidates: Iterable[str], shown: Callable[[str], str] | None = None) -> str | None:
    """The candidate nearest `word` (case-insensitive), or None when none is close, several are equally close, or
    `word` is one of them; a candidate `shown` changes (a masked name) is never one."""
    key = word.lower()
    pool = {c.lower(): c for c in candidates if c and (shown is None or shown(c) == c)}
    if not key or key in pool:
        return None
    limit = len(key.lstrip("-#@/")) // 3  # `-x` is no typo of `-a`: a one-letter name has no edit to spare
    if limit == 0:
        return None
    best: list[str] = []
    best_distance = limit + 1
    for low, original in pool.items():
        if abs(len(low) - len(key)) > limit:
            continue
        distance = edits(key, low, best_distance + 1)
        if distance > limit:
            continue
        if distance < best_distance:
            best, best_distance = [original], distance
        elif distance == best_distance:
            best.append(original)
    return best[0] if len(best) == 1 else None


def edits(a: str, b: str, stop: int) -> int:
    """Edits between `a` and `b` (insert, delete, substitute, swap two neighbours); any value >= `stop` once it
    is certain to reach it."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) >= stop:
            return stop
        previous2, previous = previous, current
    return previous[-1]


def did_you_mean(word: str, candidates: Iterable[str], shown: str = "{}",
                 masked: Callable[[str], str] | None = None) -> str | None:
    """`Did you mean /open?` (`shown` formats the candidate), or None when nothing is close (`masked`: closest's
    `shown`)."""
    match = closest(word, candidates, masked)
    return f"Did you mean {shown.format(match)}?" if match is not None else None


def with_suggestion(hint: str | None, suggestion: str | None) -> str | None:
    """The suggestion first, then the hint that was there: the likeliest fix is read first."""
    if suggestion is None:
        return hint
    return suggestion if not hint else f"{suggestion} {hint}"
