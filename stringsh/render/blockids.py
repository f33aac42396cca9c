"""Distinct ids for headings, and the replies that list them: a `#id` must name one block, and say which exist.

String resolves a heading slug to the first heading that has it, so 34 `### Changes` headings left 33 unreachable.
Here every heading also gets a distinct id, GitHub's way (String has no rule for repeated headings): the second
`changes` is `changes-1`, the third `changes-2`, skipping ids another block already has (String's meaning of an id
never changes). The first of a repeated slug is `changes-0`, because the bare `changes` is ambiguous: commands
refuse it and list the distinct ids. Headings whose text has letters outside ASCII (`## Säction`, String's
`#sction`) also answer to the Unicode spelling (`#säction`), numbered the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stringsh.errors import StringError
from stringsh.suggest import did_you_mean, with_suggestion
from stringsh.workspace import builtin_redactor as builtin

#: How many ids a reply lists before it says how many more there are.
LIST_CAP = 20
_NUMBERED = re.compile(r"^(.*?)-\d+$")


def number_slugs(slugs: Sequence[str], taken: set[str]) -> tuple[list[str], dict[str, list[int]]]:
    """(distinct id per heading, "" for none; every name → the headings it names, in document order).

    `slugs` has one entry per heading ("" for a heading without one); `taken` holds ids that resolve elsewhere first
    (markers, explicit heading ids), so a heading whose slug is one of them is numbered from `-1`.
    """
    groups: dict[str, list[int]] = {}
    for i, slug in enumerate(slugs):
        if slug:
            groups.setdefault(slug, []).append(i)
    reserved = taken | set(groups)
    ids = [""] * len(slugs)
    counters: dict[str, int] = {}
    for i, slug in enumerate(slugs):
        if not slug:
            continue
        members = groups[slug]
        if members[0] == i and slug not in taken:
            zero = f"{slug}-0"
            if len(members) == 1 or zero in reserved:
                ids[i] = slug
            else:
                ids[i] = zero
                reserved.add(zero)
            continue
        n = counters.get(slug, 0) + 1
        while f"{slug}-{n}" in reserved:
            n += 1
        counters[slug] = n
        ids[i] = f"{slug}-{n}"
        reserved.add(ids[i])
    names: dict[str, list[int]] = {name: [i] for i, name in enumerate(ids) if name}
    for slug, members in groups.items():
        if slug not in taken:
            names[slug] = members  # the bare slug: the first heading for String, ambiguous when there are more
    return ids, names


def capped(ids: Sequence[str], cap: int = LIST_CAP) -> str:
    """`a, b, c` or, past the cap, `a, …, t … and 14 more`."""
    shown = ", ".join(ids[:cap])
    return shown if len(ids) <= cap else f"{shown} … and {len(ids) - cap} more"


def near_first(ids: list[str], block_id: str) -> list[str]:
    """Ids that start like the one asked for (`changes-99` → `changes…`) first, the rest after, each in order."""
    match = _NUMBERED.match(block_id)
    stem = (match.group(1) if match else block_id)[:6]
    if not stem:
        return ids
    near = [i for i in ids if i.startswith(stem)]
    return near + [i for i in ids if not i.startswith(stem)] if near else ids


def not_found(ids: list[str], path: str, block_id: str) -> StringError:
    """BLOCK_NOT_FOUND with the ids there are (String's `Available blocks: a, b`), capped, near matches first."""
    if not ids:
        hint = "This document has no blocks."
    elif len(ids) <= LIST_CAP:
        hint = f"Available blocks: {', '.join(ids)}"
    else:
        hint = (f"Available blocks: {capped(near_first(ids, block_id))}. "
                "A heading's id is its slug (## Quick Start is #quick-start): /help open")
    return StringError("BLOCK_NOT_FOUND", f"Block not found: #{block_id} in {path}",
                       with_suggestion(hint, did_you_mean(block_id, ids, "#{}", builtin())))


def ambiguous(candidates: list[tuple[str, int]], path: str, block_id: str) -> StringError:
    """The refusal of a bare heading id that several headings share, naming each by its distinct id and line."""
    named = [f"#{name} (line {line})" for name, line in candidates]
    return StringError(
        "AMBIGUOUS_BLOCK",
        f"#{block_id} names {len(candidates)} headings in {path}; nothing was done.",
        f"Name one: {capped(named)}",
    )
