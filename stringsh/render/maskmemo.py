"""What a workspace's redactor changes in a document, remembered by content hash beside its block index.

Every view is masked before it is shown (`view.masked`), and masking is a scan of the whole text with every secret
pattern: on a 10 MB file it costs more than everything else a repeat `/open` does. Most documents hold no secret,
so the answer, "these lines change" (usually none), is kept in the signed index cache under the text's sha256
and the redactor's key (its patterns and replacement): a repeat open of an unchanged file, even in a new process,
masks by patching those lines instead of scanning. A changed file has another hash, a changed policy another key;
an entry not signed with this user's key is never read (see cache.py), so a planted "nothing to mask" cannot
unmask a secret.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from stringsh.workspace import builtin_sha256 as sha256  # (importing hashlib loads OpenSSL)

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.render.cache import IndexCache, Mask
    from stringsh.workspace import Redactor, Workspace


def redactor_key(redactor: Redactor) -> str:
    """A hex digest of everything that decides what the redactor masks: the built-in and the policy's patterns
    and the replacement."""
    return _key(redactor.sources, redactor.replacement)


@lru_cache(maxsize=16)
def _key(sources: tuple[str, ...], replacement: str) -> str:
    """(Worked out once per policy: every view asks.)"""
    from stringsh.workspace import BUILTINS

    spec = repr((tuple(BUILTINS), sources, replacement))
    return sha256(spec.encode("utf-8", "surrogatepass")).hexdigest()


class MaskMemo:
    """Masks texts of one workspace through its index cache; used only with that workspace's own `redact_lines`."""

    __slots__ = ("cache", "workspace")

    def __init__(self, workspace: Workspace, cache: IndexCache) -> None:
        self.workspace = workspace
        self.cache = cache

    def serves(self, redact: Callable[[str], str]) -> bool:
        return redact == self.workspace.redact_lines

    def record(self, sha256: str, size: int | None = None) -> tuple[bool, Mask] | None:
        """(whether the bytes of `sha256` are UTF-8 without a BOM, the lines masking changes), None when unknown;
        `size`, when known, spares a disk lookup for a text too small to be kept there."""
        return self.cache.lookup_mask(sha256, redactor_key(self.workspace.redactor), size) if sha256 else None

    def known_utf8(self, sha256: str, size: int) -> bool:
        """Whether a view of these `size` bytes was shown before as UTF-8 (then they need no decoding to be opened)."""
        record = self.record(sha256, size)
        return record is not None and record[0]

    def masked_text(self, text: str, sha256: str, lines: list[str] | None, utf8: bool) -> str:
        """`workspace.redact_lines(text)`, from the cache when this text was masked before with these patterns.

        `lines` is `text.split("\\n")` when the caller has it (else it is split only when a line changes); `utf8`
        says the text was decoded from UTF-8 without a BOM (recorded, so a repeat open may skip decoding)."""
        key = redactor_key(self.workspace.redactor)
        record = self.cache.lookup_mask(sha256, key) if sha256 else None
        if record is None:
            result = self.workspace.redact_lines(text)
            if sha256 and result == text:
                self.cache.put_mask(sha256, key, (utf8, []), len(text))
            elif sha256:
                new, old = result.split("\n"), lines if lines is not None else text.split("\n")
                if len(new) == len(old):  # the lines still pair up (they do unless a lone CR inside a secret went)
                    changes: Mask = [(i, line) for i, (line, was) in enumerate(zip(new, old, strict=True))
                                     if line != was]
                    self.cache.put_mask(sha256, key, (utf8, changes), len(text))
            return result
        mask = record[1]
        if not mask:
            return text
        patched = list(lines) if lines is not None else text.split("\n")
        for i, line in mask:
            patched[i] = line
        return "\n".join(patched)
