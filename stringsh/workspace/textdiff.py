"""The one line diff every reply shows (`{_diff}`, `/changes ID`, the `/undo` diff, MCP `edit_file`, the
OPERATOR_CMD confirmation), and the only module that uses `difflib`.

A diff shown to anyone must not show a secret, not even one an edit just broke. Masking each changed line on its
own fails twice: a private-key block whose `BEGIN` line was changed is no longer a block, so its body lines are
plain text; and a token whose prefix was changed (`ghp_…` to `ghq_…`) no longer matches its pattern, so the new
line shows the token's tail. So the lines are compared as they are (a change inside a secret is still a change),
and each line is shown masked in two steps:

1. the whole document is masked with line breaks kept (`Redactor(text, keep_lines=True)`), so a secret over N
   lines is N masked lines and line numbers stay the file's;
2. every run of characters that repeats a piece of at least `PIECE` characters of a secret found in EITHER
   document is masked too (a shorter line of a secret where it recurs whole, or is a whole line). That hides
   what an edit left of a secret it broke: the `ghq_…` tail, the body of a block whose header changed.

Masking is idempotent: a shown line masked again is the same line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from stringsh.escapes import shown_name
from stringsh.workspace.redact import masked_lines

if TYPE_CHECKING:
    from stringsh.workspace.redact import Redactor

#: Past this many differing lines (after the common head and tail are cut) the middle counts as replaced whole:
#: difflib's matcher is quadratic, and a reply is cut long before that anyway.
MATCH_LIMIT = 4000
#: A run this long that repeats part of a secret is masked where a diff shows it (shorter runs are too common:
#: `-----BEG` of a certificate header would be hidden for nothing).
PIECE = 8
#: A secret's line shorter than PIECE is looked for whole, down to this length (shorter is ordinary text).
SHORTEST = 6
#: Opcode tuples: (tag, i1, i2, j1, j2) as difflib's.
Opcode = tuple[str, int, int, int, int]


class Pieces:
    """What is left of the secrets of a pair of documents: their PIECE-character windows and short lines."""

    def __init__(self, secrets: Sequence[str], replacement: str) -> None:
        self.replacement = replacement
        self.windows: set[str] = set()
        self.whole: set[str] = set()
        self.lines: set[str] = set()  # a secret's shortest lines, masked only where a line is nothing else
        for secret in secrets:
            for part in secret.replace("\r", "\n").split("\n"):
                part = part.strip()
                if len(part) >= PIECE:
                    self.windows.update(part[k : k + PIECE] for k in range(len(part) - PIECE + 1))
                elif len(part) >= SHORTEST:
                    self.whole.add(part)
                elif part:
                    self.lines.add(part)

    def __bool__(self) -> bool:
        return bool(self.windows or self.whole or self.lines)

    def mask(self, line: str) -> str:
        """`line` with every run that repeats a secret's piece replaced by one replacement."""
        if line.strip() in self.lines:
            return self.replacement
        covered = [False] * len(line)
        windows = self.windows
        for k in range(len(line) - PIECE + 1):
            if line[k : k + PIECE] in windows:
                covered[k : k + PIECE] = [True] * PIECE
        for part in self.whole:
            at = line.find(part)
            while at != -1:
                covered[at : at + len(part)] = [True] * len(part)
                at = line.find(part, at + 1)
        if not any(covered):
            return line
        out: list[str] = []
        k = 0
        while k < len(line):
            if covered[k]:
                while k < len(line) and covered[k]:
                    k += 1
                out.append(self.replacement)
            else:
                out.append(line[k])
                k += 1
        return "".join(out)


class Shown:
    """One document's lines as a diff shows them (see the module docstring), masked on first use."""

    def __init__(self, raw: list[str], masked: list[str] | None, pieces: Pieces | None) -> None:
        self.raw = raw
        self._masked = masked
        self._pieces = pieces
        self._cache: dict[int, str] = {}

    def __getitem__(self, index: int) -> str:
        if self._masked is None and not self._pieces:
            return self.raw[index]
        shown = self._cache.get(index)
        if shown is None:
            line = self.raw[index] if self._masked is None else self._masked[index]
            if self._pieces:
                body = line.rstrip("\r\n")
                line = self._pieces.mask(body) + line[len(body) :]
            shown = self._cache[index] = line
        return shown


def shown_pair(old: str, new: str, redactor: Redactor | None,
               split: Callable[[str], list[str]]) -> tuple[Shown, Shown]:
    """Both documents split into lines by `split`, each line masked as a diff shows it (module docstring).
    `redactor` None shows the lines as they are (a caller that masks nothing)."""
    raw_old, raw_new = split(old), split(new)
    if redactor is None:
        return Shown(raw_old, None, None), Shown(raw_new, None, None)
    pieces = Pieces([*redactor.secrets(old), *redactor.secrets(new)], redactor.replacement)
    return (Shown(raw_old, masked_lines(redactor, old, raw_old, split), pieces),
            Shown(raw_new, masked_lines(redactor, new, raw_new, split), pieces))


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """difflib's opcodes over the whole lists: the common head and tail are trimmed first, and a middle of more
    than MATCH_LIMIT lines counts as replaced whole (difflib is quadratic in it)."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    if len(mid_a) + len(mid_b) > MATCH_LIMIT or not mid_a or not mid_b:
        if mid_a or mid_b:
            ops.append(("replace", head, head + len(mid_a), head, head + len(mid_b)))
    else:
        import difflib  # only when a diff is asked for

        matcher = difflib.SequenceMatcher(None, list(mid_a), list(mid_b), autojunk=False)
        ops.extend((tag, head + i1, head + i2, head + j1, head + j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes())
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _range(start: int, stop: int) -> str:
    """A unified hunk header's range, as difflib writes it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _label(label: str) -> str:
    """A header's file name quoted when it holds a control (one line, as git quotes it); a tab after it separates
    a label (`name\toriginal`) and stays."""
    name, tab, rest = label.partition("\t")
    return f"{shown_name(name)}{tab}{rest}"


def unified(old: Shown, new: Shown, *, fromfile: str = "", tofile: str = "", context: int = 3,
            lineterm: str = "\n") -> Iterator[str]:
    """difflib.unified_diff's lines (headers, `@@` hunks), the lines compared as they are and written as shown."""
    import difflib

    a, b = old.raw, new.raw
    started = False
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        if not started:
            started = True
            yield f"--- {_label(fromfile)}{lineterm}"
            yield f"+++ {_label(tofile)}{lineterm}"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@{lineterm}"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + old[i] for i in range(i1, i2))
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + old[i] for i in range(i1, i2))
            if tag in ("replace", "insert"):
                yield from ("+" + new[j] for j in range(j1, j2))
