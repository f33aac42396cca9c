"""A view from the signed index cache is the view a fresh scan gives: the same replies for the same commands, after
another process rewrote the file (same size, same mtime too), and with tampered or foreign cache entries. A repeat
open of an unchanged file neither re-indexes nor re-masks the whole text."""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.render import sfmd
from stringsh.render.cache import MASK_VERSION
from stringsh.workspace.redact import Redactor

TOKEN = "ghp_" + "A1b2C3d4E5" * 4
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1\nbodyline2\n-----END RSA PRIVATE KEY-----"
COMMANDS = [
    "/open big.md",
    "/open big.md#section-40",
    "/open #section-7",
    "/open big.md --from 395",
    "/open big.md --from 231 --to 240",
    "/open big.md --from 401",
    "/open big.md:L229-L233",
    "/open big.md#nope",
]


def document(word: str) -> str:
    """About 24 KB of markdown (past the size that goes to disk) with a token and a key block in the middle."""
    parts = ["---\ntitle: Big\n---\n# Big\n\n[@home Home](./big.md)\n\n<!-- #intro -->\nIntro.\n<!-- /intro -->\n"]
    for i in range(60):
        parts.append(f"## Section {i}\n\n{word} text {i} with a [link][ref] and more words.\n\n- item {i}\n- item\n\n")
        if i == 30:
            parts.append(f"token: {TOKEN}\n\n{PEM}\n\n```md\n# not a heading\n```\n\n")
    parts.append("[ref]: https://example.org/\n")
    return "".join(parts) * 4


def replies(ws: Path, name: str = "big.md") -> list[str]:
    dispatcher = Dispatcher(ws)
    try:
        return [dispatcher.execute(command.replace("big.md", name)).text for command in COMMANDS]
    finally:
        dispatcher.close()


def uncached(tmp_path: Path, ws: Path, name: str) -> list[str]:
    """The replies for the same bytes in a workspace that has never been opened (no cache entry at all)."""
    fresh = tmp_path / name
    fresh.mkdir()
    shutil.copy2(ws / "big.md", fresh / "big.md")
    return replies(fresh)


def entries(ws: Path) -> list[Path]:
    return sorted((ws / ".stringsh" / "cache" / "index").glob("*.idx"))


def test_cached_views_give_the_replies_a_fresh_scan_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.md").write_text(document("alpha"))
    first = replies(ws)
    assert TOKEN not in "".join(first) and "bodyline2" not in "".join(first)
    assert "***REDACTED***\n***REDACTED***" in first[4]  # the window starting inside the key block is masked too
    assert len(entries(ws)) == 3  # the block index, what the redactor changes, the index of the masked text

    # A repeat open of the unchanged file, in a new dispatcher: no scan, no whole-text mask, the same bytes.
    size = len(document("alpha"))
    masked_lengths: list[int] = []
    real_call = Redactor.__call__

    def recording(self: Redactor, text: str, *, keep_lines: bool = False) -> str:
        masked_lengths.append(len(text))
        return real_call(self, text, keep_lines=keep_lines)

    with monkeypatch.context() as patch:
        patch.setattr("stringsh.render.document.build_index", None)  # any re-scan would fail
        patch.setattr(Redactor, "__call__", recording)
        assert replies(ws) == first
    assert masked_lengths and max(masked_lengths) < size // 2

    # Without a secret, the repeat open does not even decode the text past the window it shows; an edit then
    # decodes it and splices it like any other.
    (ws / "clean.md").write_text(document("alpha").replace(TOKEN, "no token").replace(PEM, "no key") * 2)
    cold = replies(ws, "clean.md")
    assert replies(ws, "clean.md") == cold
    dispatcher = Dispatcher(ws)
    try:
        assert dispatcher.execute("/open clean.md").text == cold[0]
        doc = dispatcher.session().document.doc
    finally:
        dispatcher.close()
    assert "text" not in doc.__dict__ and doc.raw == (ws / "clean.md").read_bytes()
    assert doc.text == (ws / "clean.md").read_text()
    dispatcher = Dispatcher(ws)
    try:
        dispatcher.execute("/open clean.md")
        assert dispatcher.execute("/edit clean.md#intro\nNew intro.\n").ok
    finally:
        dispatcher.close()
    assert (ws / "clean.md").read_text().startswith(document("alpha")[:120].replace("Intro.", "New intro."))

    # Another process rewrites the file with the same size and puts the old mtime back: the hash tells.
    before = os.stat(ws / "big.md")
    rewrite = "import sys; p = sys.argv[1]; t = open(p).read(); open(p, 'w').write(t.replace('alpha', 'omega'))"
    subprocess.run([sys.executable, "-c", rewrite, str(ws / "big.md")], check=True, timeout=60)
    os.utime(ws / "big.md", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(ws / "big.md").st_size == before.st_size
    rewritten = replies(ws)
    assert rewritten == uncached(tmp_path, ws, "fresh1") != first
    assert "omega text" in rewritten[0]

    # Tampered entries: garbage, an unsigned "nothing to mask", one signed with another user's key.
    sha = hashlib.sha256((ws / "big.md").read_bytes()).hexdigest()
    masks = [p for p in entries(ws) if p.name.startswith(f"{sha}.m")]
    assert len(masks) == 1
    forged = marshal.dumps((MASK_VERSION, []))
    other_key = hmac.new(b"another user", masks[0].name.encode() + b"\0" + forged, hashlib.sha256).digest()
    for planted in (b"\x00garbage", b"\0" * 32 + forged, other_key + forged):
        for entry in entries(ws):
            entry.write_bytes(planted)
        assert replies(ws) == rewritten


CASES = [
    "",
    "[a]: x\n",
    "[a]:\n[b]: url\n[c]: u2\n",
    "x [a]: no\n  [b]: yes\n",
    "<!-- #a --> <!-- #b -->\n<!-- /a -->\n",
    "[!nav:m](m.md) [!nav:n](n.md)\n[!include:x](y.md)\n[!requirements](r.md)\n",
    "```\n[!nav:m](m.md)\n```\n[!nav:k](k.md)\r\n",
    "[!nav:m](m.md)",
    "]:" * 50 + "\n[z]: end",
]


@pytest.mark.parametrize("text", CASES)
def test_line_matches_are_the_full_scan_matches(text: str) -> None:
    """The literal-guided line search finds exactly what a `finditer` over the whole text finds."""
    for pattern, literal in ((sfmd.REFERENCE_DEF, "]:"), (sfmd.MARKER_LINE, "<!-- "), (sfmd.MENU_LINE, "[!"),
                             (sfmd.INCLUDE_LINE, "[!"), (sfmd.REQUIREMENTS_LINE, "[!")):
        code = [(0, 3)] if text.startswith("```") else []
        full = [(line, m.span()) for line, m in sfmd.iter_matches(pattern, sfmd.LineMap(text, code))]
        guided = [(line, m.span()) for line, m in sfmd.iter_line_matches(pattern, literal, sfmd.LineMap(text, code))]
        assert guided == full, pattern.pattern
