"""Codex patch search is linear in the file's and the chunk's lines: each file's lines are
numbered once and a chunk is found by one pass from the cursor, so a 60 KB chunk against a 200,000-line file costs
the sum of their sizes, not the product. Proved by counting the lines looked at (codexpatch.WORK), never by the
clock; in-process, on real files."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher
from stringsh.workspace import codexpatch


def patch(*lines: str) -> str:
    return "/patch\n" + "".join(line + "\n" for line in lines)


def hostile(dispatcher: Dispatcher, ws: Path, n: int, m: int) -> tuple[str, int]:
    """A file of one `y` line then n `x` lines, and a chunk of m `x` lines then `y`: every offset matches m lines
    before it fails (a slice comparison at every offset would cost n·m). Returns the reply and the lines counted."""
    (ws / "big.txt").write_text("y\n" + "x\n" * n)
    before = codexpatch.WORK["compared"]
    reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: big.txt", "@@", *[" x"] * m, "-y", "+z",
                                     "*** End Patch")).text
    return reply, codexpatch.WORK["compared"] - before


def test_a_chunk_that_almost_matches_everywhere_costs_linear_work(dispatcher: Dispatcher, ws: Path) -> None:
    reply, small = hostile(dispatcher, ws, 20_000, 2_000)
    assert reply == ("re: /patch\nERROR(PATCH_FAILED): Chunk 1 of big.txt: its 2001 context and removed lines (first: "
                     "'x') are not in the file, exactly or with whitespace and Unicode punctuation relaxed; the "
                     "nearest is line 2, where its first 2000 of 2001 lines match, then line 2002 reads 'x' where "
                     "the patch has 'y'. Nothing was written.\nRe-read those lines "
                     "and redo the hunk: /open big.txt")
    _, large = hostile(dispatcher, ws, 40_000, 4_000)
    assert small > 0 and large <= 2.2 * small
    assert (ws / "big.txt").read_text() == "y\n" + "x\n" * 40_000


def test_chunks_in_a_large_file_are_found_in_order_with_linear_work(dispatcher: Dispatcher, ws: Path) -> None:
    def run(n: int) -> int:
        (ws / "long.txt").write_text("".join(f"line {i % 50}\n" for i in range(n)))
        before = codexpatch.WORK["compared"]
        reply = dispatcher.execute(patch("*** Begin Patch", "*** Update File: long.txt", "@@", " line 48",
                                         "-line 49", "+forty-nine", "@@", " line 48", "-line 49", "+again",
                                         "*** End of File", "*** End Patch"))
        assert reply.text == "re: /patch\nPatched long.txt (+2 -2)", reply.text
        return codexpatch.WORK["compared"] - before

    small, large = run(10_000), run(20_000)
    assert large <= 2.2 * small
    lines = (ws / "long.txt").read_text().splitlines()
    assert lines[49] == "forty-nine" and lines[-1] == "again" and lines.count("line 49") == 20_000 // 50 - 2
