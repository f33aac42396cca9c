"""docs/benchmarks.md is the benches' page: it names every bench, its tables and plots are what bench/history.jsonl
gives, every recorded row is one the page describes, and a recorded run reaches its table and plot."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PAGE = ROOT / "docs" / "benchmarks.md"
#: What the benches share, not benches.
HELPERS = {"benchenv.py", "record.py", "stallwatch.py", "plot.py", "catalogue.py"}


def bench_module(name: str) -> ModuleType:
    """A bench helper module, imported as the benches import it (bench/ first on the path)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_names_every_bench_and_has_every_areas_plot() -> None:
    page = PAGE.read_text()
    benches = sorted(path.name for path in BENCH.glob("*.py") if path.name not in HELPERS)
    assert len(benches) >= 18
    assert [name for name in benches if f"python bench/{name}" not in page] == []
    plot = bench_module("plot")
    areas = {entry["area"] for entry in plot.load(BENCH / "history.jsonl")}
    assert areas == {area.key for area in plot.AREAS}
    for area in areas:
        assert (ROOT / "docs" / "images" / f"bench-{plot.slug(area)}.png").is_file(), area
        assert f"<!-- bench:{area} -->" in page
        assert f"(images/bench-{plot.slug(area)}.png)" in page


def test_the_tables_are_the_historys_and_every_recorded_row_is_described() -> None:
    plot = bench_module("plot")
    entries = plot.load(BENCH / "history.jsonl")
    page = PAGE.read_text()
    assert plot.render_page(page, entries) == page, "run python bench/plot.py"
    for area in plot.AREAS:
        assert {row.bench for row in area.rows} <= {path.name for path in BENCH.glob("*.py")}
        described = {name for row, name in plot.area_rows(area, entries) if row.bench}
        assert {entry["row"] for entry in entries if entry["area"] == area.key} <= described, area.key
    for entry in entries:
        assert entry["source"].startswith(("closing note of stop ", "bench/")), entry
        assert entry["ratio"] > 0 and (entry["cores"] or entry["source"].startswith("closing note")), entry


def checkout_commit() -> str | None:
    """The commit of the tree the benches run from, as git says it; None without git (a bare machine) or outside a
    checkout (an unpacked archive)."""
    git = shutil.which("git")
    if git is None:
        return None
    done = subprocess.run([git, "rev-parse", "HEAD"], cwd=BENCH, capture_output=True, text=True, check=False)
    commit = done.stdout.strip()
    assert not commit or len(commit) == 40
    return commit or None


def test_a_recorded_run_is_plotted_and_tabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    record = bench_module("record")
    argv = ["bench/x.py", "7", "--record", str(tmp_path / "h.jsonl"), "--rounds", "2"]
    assert record.take_record_argument(argv) == str(tmp_path / "h.jsonl")
    assert argv == ["bench/x.py", "7", "--rounds", "2"]
    history = tmp_path / "h.jsonl"
    history.write_text(json.dumps({"area": "web", "row": "agents' write p50, pages open", "ratio": 2.1,
                                   "reference": "no page open", "reference_ms": 96, "goal": 1.1, "stop": 45,
                                   "source": "closing note of stop 45", "cores": 2}) + "\n")
    monkeypatch.setenv(record.ENVIRONMENT, str(history))
    assert record.row("web", "agents' write p50, pages open", 0.12, "no page open", 0.1, 1.1) == 1.2
    assert capsys.readouterr().out == ("agents' write p50, pages open: 120.00 ms against no page open 100.00 ms, "
                                       "ratio 1.20x (goal <= 1.1x)\n")
    entry = json.loads(history.read_text().splitlines()[-1])
    assert (entry["ratio"], entry["measured_ms"], entry["reference_ms"], entry["goal"]) == (1.2, 120.0, 100.0, 1.1)
    assert entry["commit"] == checkout_commit() and entry["cores"] and len(entry["loadavg"].split()) == 3
    page = tmp_path / "page.md"
    page.write_text("# B\n\n<!-- bench:web -->\nold\n<!-- /bench -->\n<!-- bench:nothing -->\nkept\n<!-- /bench -->\n")
    plot = bench_module("plot")
    args = ["--history", str(history), "--images", str(tmp_path / "img"), "--page", str(page)]
    assert plot.main(args) == 0
    image = tmp_path / "img" / "bench-web.png"
    first = image.read_bytes()
    assert first.startswith(b"\x89PNG") and sorted(p.name for p in (tmp_path / "img").iterdir()) == ["bench-web.png"]
    text = page.read_text()
    assert "\nold\n" not in text and "<!-- bench:nothing -->\nkept\n" in text
    assert "| `agents' write p50, pages open` |" in text and "**1.2×** (no page open 100 ms; " in text
    assert "(images/bench-web.png)" in text and plot.main([*args, "--check"]) == 0
    assert b"tIME" not in first and b"Software" not in first  # nothing in the file that changes between reruns
