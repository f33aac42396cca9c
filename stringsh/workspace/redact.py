"""Content redaction: secrets (tokens, keys, `Authorization:` values) masked wherever text leaves the process.

Replies are masked where they are formatted (one place per dialect) with one `Redactor` built from the policy's
`secrets.redact_regexes` and `secrets.replacement` plus the built-in set below. Patterns compile on first use, so a
command that shows no text (`-c /ls`) pays nothing. A secret becomes one replacement; with `keep_lines` (views of a
file, `Workspace.redact_lines`) a secret spanning N lines becomes N lines of it, so line numbers (`/edit` views,
`--from N`) stay those of the file.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple


class Builtin(NamedTuple):
    """A built-in pattern, tried only when one of its `literals` occurs in the text (a substring test is far faster
    than a regex scan). `word_start`: the match must not continue a word (checked in code: a leading `\\b` would
    cost the regex engine its literal-prefix search)."""

    literals: tuple[str, ...]
    pattern: str
    word_start: bool = True
    #: When >= 0, every match starts this many characters before one of the `literals`: the pattern is tried only
    #: there (a pattern starting with a character class, `[Aa]uthorization`, is otherwise tried at every `a`).
    lead: int = -1


#: Always applied, in addition to the policy's own patterns. A `keep` group is shown as is (a header's name).
BUILTINS: tuple[Builtin, ...] = (
    # Private-key blocks (PEM, OpenSSH, PGP); a block cut before its END line is masked to the end of the text.
    Builtin(("PRIVATE KEY",), r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)", word_start=False),
    Builtin(("gh",), r"gh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    Builtin(("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}\b"),  # GitHub fine-grained tokens
    Builtin(("glpat-",), r"glpat-[A-Za-z0-9_-]{20,}"),  # GitLab
    Builtin(("xox",), r"xox[abposr]-[A-Za-z0-9-]{10,}"),  # Slack
    Builtin(("AKIA", "ASIA"), r"(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key ids
    Builtin(("AIza",), r"AIza[0-9A-Za-z_-]{35}\b"),  # Google API keys
    Builtin(("sk-",), r"sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}"),  # OpenAI-style (sk-…, sk-proj-…)
    # `Authorization: Bearer|Basic <value>` (also quoted, as in JSON or curl -H); a `$NAME` or `{name}` is kept.
    Builtin(("uthorization", "UTHORIZATION"),
            r"(?P<keep>(?:[Aa]uthorization|AUTHORIZATION)[\"']?\s*[:=]\s*[\"']?(?i:bearer|basic|token)\s+)"
            r"[A-Za-z0-9._~+/=-]{4,}", lead=1),
)
WORD = re.compile(r"\w")


def masked_lines(redactor: Callable[..., str], text: str, raw: list[str],
                 split: Callable[[str], list[str]]) -> list[str]:
    """`raw` (the lines `split` made of `text`) as shown: the whole text masked with its line breaks kept, so a
    secret over several lines is masked on each (masking each line alone would show a key block's body), split
    the same way; line for line when a secret held a break the mask does not keep (a lone CR), so the lines still
    pair up with `raw`."""
    masked = redactor(text, keep_lines=True)
    if masked == text:
        return raw
    lines = split(masked)
    if len(lines) == len(raw):
        return lines
    return [redactor(line) for line in raw]


#: Every built-in literal: most texts hold none, and a substring test each (a fast scan in C) rules that out; one
#: regex alternation of them is faster on a reply line but ten times slower on a 100 KB file.
LITERALS = tuple(literal for builtin in BUILTINS for literal in builtin.literals)
LITERAL_BYTES = tuple(literal.encode("ascii") for literal in LITERALS)


class Redactor:
    """Masks every match of the built-in and the given patterns with `replacement` (literal, never a template)."""

    def __init__(self, patterns: Iterable[str], replacement: str) -> None:
        self.sources = tuple(patterns)
        self.replacement = replacement
        self._builtins: dict[Builtin, re.Pattern[str]] = {}
        self._policy: list[re.Pattern[str]] | None = None

    def _found(self, text: str) -> list[tuple[Builtin, re.Pattern[str]]]:
        """The built-in patterns whose literals occur in `text`, each compiled when first needed: every reply is
        masked, and most hold none of them (start-up compiles nothing)."""
        if not any(map(text.__contains__, LITERALS)):  # a substring test each, in C (no generator per call)
            return []
        found = []
        for builtin in BUILTINS:
            if any(literal in text for literal in builtin.literals):
                pattern = self._builtins.get(builtin)
                if pattern is None:
                    pattern = self._builtins[builtin] = re.compile(builtin.pattern)
                found.append((builtin, pattern))
        return found

    def _policies(self) -> list[re.Pattern[str]]:
        """The policy's own patterns, compiled on first use, each on its own, as written."""
        if self._policy is None:
            self._policy = [re.compile(p) for p in self.sources]
        return self._policy

    def _mask(self, secret: str, keep_lines: bool) -> str:
        """The replacement; with `keep_lines` one per line the secret spans (a `\\r` before a break is kept)."""
        if not keep_lines:
            return self.replacement
        pieces = secret.split("\n")
        masked = [self.replacement + ("\r" if piece.endswith("\r") else "") for piece in pieces[:-1]]
        return "\n".join([*masked, self.replacement])

    def _masker(self, builtin: Builtin, keep_lines: bool) -> Callable[[re.Match[str]], str]:
        def mask(match: re.Match[str]) -> str:
            found, start = match.group(0), match.start()
            if builtin.word_start and start and WORD.match(match.string, start - 1):
                return found  # the tail of a longer word (`xghp_…`), not a token
            keep = (match.group("keep") or "") if "keep" in match.re.groupindex else ""
            return keep + self._mask(found[len(keep) :], keep_lines)

        return mask

    def _policy_masker(self, keep_lines: bool) -> Callable[[re.Match[str]], str]:
        def mask(match: re.Match[str]) -> str:
            found = match.group(0)
            return self._mask(found, keep_lines) if found else found  # an empty match masks nothing

        return mask

    def __call__(self, text: str, *, keep_lines: bool = False) -> str:
        found = self._found(text)
        if not found and not self.sources:  # most replies: nothing to mask (and no policy pattern to compile)
            return text
        for builtin, pattern in found:
            if builtin.lead >= 0:
                text = _sub_at_literals(pattern, builtin, self._masker(builtin, keep_lines), text)
            elif any(literal in text for literal in builtin.literals):  # an earlier mask may have removed them
                text = pattern.sub(self._masker(builtin, keep_lines), text)
        policy = self._policies()
        if policy:
            mask = self._policy_masker(keep_lines)
            for pattern in policy:
                text = pattern.sub(mask, text)
        return text

    def secrets(self, text: str) -> list[str]:
        """Every secret this redactor masks in `text`, as it stands there (a `keep` group left out): what a diff
        must not show even where an edit broke its pattern (textdiff.py)."""
        found: list[str] = []
        for builtin, pattern in self._found(text):
            for match in pattern.finditer(text):
                start = match.start()
                if builtin.word_start and start and WORD.match(text, start - 1):
                    continue
                keep = (match.group("keep") or "") if "keep" in pattern.groupindex else ""
                found.append(match.group(0)[len(keep) :])
        for policy in self._policies():
            found.extend(match.group(0) for match in policy.finditer(text) if match.group(0))
        return found

    def path_literals(self) -> tuple[str, ...] | None:
        """Strings one of which a text holds (as is) whenever masking changes it; None when there are none such (the
        policy's own patterns): a listing of many paths is searched for them once, and only the few paths holding
        one are masked one by one (ops/pathscreen.py)."""
        return None if self.sources else LITERALS

    def path_masker(self) -> Callable[[str], str]:
        """The masking of many short texts (the paths a walk meets), the same as calling the redactor: one search of
        a regex of the built-in literals rules out most of them at once (on a path it costs a fraction of a
        substring test each)."""
        if self.sources:
            return self
        search = _literal_search()

        def masked(text: str) -> str:
            return text if search(text) is None else self(text)

        return masked

    def finds_secret(self, text: str) -> bool:
        """Whether the text holds anything this redactor masks."""
        return self(text) != text

    def may_mask(self, raw: bytes) -> bool:
        """Whether masking could change the text these bytes decode to (False only when surely not): a query matched
        on raw bytes stands for one matched on the masked text only where masking changes nothing. True for
        UTF-16 (its bytes do not hold the literals as such) and whenever the policy has patterns of its own."""
        if self.sources or raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return True
        return any(literal in raw for literal in LITERAL_BYTES)

    def meets_mask(self, literal: str, *, ignore_case: bool = False) -> bool:
        """Whether `literal` could match text that overlaps a mask (the replacement) in masked text, where it
        cannot match the raw text: then a raw prefilter (a bytes test, rg's file list) cannot decide that the
        masked text lacks it. An empty replacement joins the text around a secret, so anything may meet it."""
        mask = self.replacement
        if not mask:
            return True
        if ignore_case:
            literal, mask = literal.lower(), mask.lower()
        # every alignment of the literal against one mask where they overlap by at least one character
        for shift in range(1 - len(literal), len(mask)):
            lo, hi = max(0, shift), min(len(mask), shift + len(literal))
            if all(mask[i] == literal[i - shift] for i in range(lo, hi)):
                return True
        return False


_BUILTIN: list[Redactor] = []


@functools.cache
def _literal_search() -> Callable[[str], re.Match[str] | None]:
    """One regex of every built-in literal, compiled on first use (most commands mask no path)."""
    return re.compile("|".join(re.escape(literal) for literal in LITERALS)).search


def builtin() -> Redactor:
    """The built-in patterns alone (made once): the masking where no policy is at hand, as a "did you mean"
    over ids (suggest.py), which must never name what a reply would show masked."""
    if not _BUILTIN:
        _BUILTIN.append(Redactor((), "***REDACTED***"))
    return _BUILTIN[0]


def _sub_at_literals(pattern: re.Pattern[str], builtin: Builtin, mask: Callable[[re.Match[str]], str],
                     text: str) -> str:
    """`pattern.sub(mask, text)` for a pattern whose matches start `builtin.lead` characters before a literal: the
    same matches, left to right and not overlapping, tried only at those places (a substring search finds them)."""
    starts: set[int] = set()
    for literal in builtin.literals:
        at = text.find(literal)
        while at >= 0:
            if at >= builtin.lead:
                starts.add(at - builtin.lead)
            at = text.find(literal, at + 1)
    pieces: list[str] = []
    done = 0
    for start in sorted(starts):
        if start < done:
            continue
        match = pattern.match(text, start)
        if match is not None:
            pieces += [text[done:start], mask(match)]
            done = match.end()
    return "".join([*pieces, text[done:]]) if pieces else text
