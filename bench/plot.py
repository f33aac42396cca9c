"""docs/benchmarks.md's tables and plots from one source: the rows bench/catalogue.py describes and the ratios
bench/history.jsonl holds (the figures earlier stops' closing notes state, then every run recorded with
`--record bench/history.jsonl`).

    python bench/plot.py [--history FILE] [--images DIR] [--page FILE] [--check]

Writes one PNG per area that has history (DIR/bench-<area>.png: each row's ratio over the tree's history, its goal
dashed) and rewrites the page's generated blocks, `<!-- bench:AREA -->` to `<!-- /bench -->`, in place. The images
carry no timestamp or version, so a rerun on the same history gives the same bytes. `--check` writes nothing and
exits 1 when the page's blocks are not what the history gives.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catalogue import AREAS, Area, Row

REPO = Path(__file__).resolve().parents[1]
SETUP = "python -m venv v && . v/bin/activate && pip install -e '.[test]'"
BLOCK = re.compile(r"(<!-- bench:(?P<area>[^>]+?) -->\n).*?(<!-- /bench -->)", re.S)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def slug(area: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", area.lower()).strip("-")


def moment(entry: dict) -> str:
    """The point of history an entry belongs to: its stop, or its run's day and commit."""
    if entry.get("stop") is not None:
        return f"stop {entry['stop']}"
    return " ".join(filter(None, [str(entry.get("date") or "")[:10], str(entry.get("commit") or "")[:7]])) or "run"


def moments(entries: Iterable[dict]) -> list[str]:
    """Moments in time order: the stops by number, then the recorded runs by date (all later than the stops)."""
    first: dict[str, tuple] = {}
    for entry in entries:
        stop = entry.get("stop")
        key = (0, stop, "") if stop is not None else (1, 0, str(entry.get("date") or ""))
        first[moment(entry)] = min(first.get(moment(entry), key), key)
    return sorted(first, key=first.__getitem__)


def pattern(row: Row) -> re.Pattern[str]:
    return re.compile(re.escape(row.name).replace("NAME", r"[^\s,']+") + r"\Z")


def area_rows(area: Area, entries: list[dict]) -> list[tuple[Row, str]]:
    """Each catalogue row with the recorded names it stands for (a `NAME` row: one per name), then any recorded row
    the catalogue does not describe."""
    names = list(dict.fromkeys(entry["row"] for entry in entries if entry["area"] == area.key))
    taken: set[str] = set()
    rows: list[tuple[Row, str]] = []
    for row in area.rows:
        found = [name for name in names if pattern(row).match(name)]
        taken.update(found)
        rows += [(row, name) for name in found] or [(row, row.name)]
    rows += [(Row(name, "", "—", "—", None, "—"), name) for name in names if name not in taken]
    return rows


def series(entries: list[dict], area: str, name: str, order: list[str]) -> list[tuple[int, float]]:
    """(moment's position, median ratio there) for one row."""
    at: dict[str, list[float]] = {}
    for entry in entries:
        if entry["area"] == area and entry["row"] == name and entry.get("ratio") is not None:
            at.setdefault(moment(entry), []).append(entry["ratio"])
    return [(order.index(when), statistics.median(values)) for when, values in at.items()]


def newest(entries: list[dict], area: str, name: str) -> dict | None:
    mine = [entry for entry in entries if entry["area"] == area and entry["row"] == name and entry.get("ratio")]
    if not mine:
        return None
    order = moments(mine)
    return max(enumerate(mine), key=lambda pair: (order.index(moment(pair[1])), pair[0]))[1]


def duration(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.3g} s"
    return f"{ms:.3g} ms" if ms >= 1 else f"{ms * 1000:.3g} µs"


def latest_text(entry: dict | None) -> str:
    if entry is None:
        return "—"
    reference = entry.get("reference_ms")
    name = entry.get("reference") or "reference"
    beside = f"{name} {duration(reference)}" if reference else f"{name}: time not stated"
    if entry.get("stop") is not None:
        where = f"stop {entry['stop']}'s closing note"
    else:
        load = f", load {str(entry['loadavg']).split()[0]}" if entry.get("loadavg") else ""
        cores = f", {entry['cores']} cores" if entry.get("cores") else ""
        where = f"{str(entry.get('date'))[:10]}, `{str(entry.get('commit'))[:7]}`{load}{cores}"
    note = f": {entry['note']}" if entry.get("note") else ""
    return f"**{entry['ratio']:.3g}×** ({beside}; {where}{note})"


def goal_text(row: Row) -> str:
    return row.goal_text or (f"≤ {row.goal:g}×" if row.goal else "no goal")


def table(area: Area, entries: list[dict]) -> str:
    lines = ["| row | what is measured | reference | goal | latest | reproduce |", "|---|---|---|---|---|---|"]
    for row, name in area_rows(area, entries):
        command = area.commands.get(row.bench, "—")
        latest = latest_text(newest(entries, area.key, name)) if row.recorded else "printed, not recorded"
        cells = [f"`{name}`", row.measured, row.reference, goal_text(row), latest, f"`{command}`" if row.bench else "—"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def block(area: Area, entries: list[dict], images: str) -> str:
    text = f"{area.about}\n\n{table(area, entries)}\n"
    if any(entry["area"] == area.key for entry in entries):
        text += f"\n![{area.title}: each row's ratio over the tree's history]({images}/bench-{slug(area.key)}.png)\n"
    return text


def render_page(page: str, entries: list[dict], images: str = "images") -> str:
    """The page with each generated block rewritten from the history (unknown areas are left as they are)."""
    areas = {area.key: area for area in AREAS}

    def fill(match: re.Match[str]) -> str:
        area = areas.get(match["area"])
        return match[0] if area is None else match[1] + block(area, entries, images) + match[3]

    return BLOCK.sub(fill, page)


def plot(area: Area, entries: list[dict], path: Path) -> None:
    """One area's ratios over the history: a line per row, its goal dashed in the same colour."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    mine = [entry for entry in entries if entry["area"] == area.key]
    order = moments(mine)
    rows = [(row, name, points) for row, name in area_rows(area, mine)
            if (points := series(mine, area.key, name, order))]
    colours = colormaps["tab10" if len(rows) <= 10 else "tab20"]
    figure = Figure(figsize=(8, 3.4), dpi=100)
    FigureCanvasAgg(figure)  # the Agg renderer: no display, no global pyplot state
    axes = figure.subplots()
    values: list[float] = []
    for index, (row, name, points) in enumerate(rows):
        colour = colours(index % colours.N)
        xs, ys = zip(*sorted(points), strict=True)
        axes.plot(xs, ys, marker="o", markersize=4, linewidth=1.4, color=colour, label=name)
        values += ys
        if row.goal:
            axes.axhline(row.goal, linestyle="--", linewidth=1, color=colour, alpha=0.8)
            values.append(row.goal)
    if values and max(values) / max(min(values), 1e-9) > 20:
        axes.set_yscale("log")
    axes.set_xticks(range(len(order)), order, rotation=30, ha="right", fontsize=8)
    axes.set_xlim(-0.5, len(order) - 0.5)
    axes.set_ylabel("ratio to the reference (×)")
    axes.set_title(f"{area.title}: ratio per row across the tree's history (dashed: its goal)", fontsize=10)
    axes.grid(axis="y", alpha=0.3)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=7, frameon=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    # no version or time in the file: a rerun on the same history gives the same bytes
    figure.savefig(path, metadata={"Software": None}, bbox_inches="tight", pad_inches=0.15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", type=Path, default=REPO / "bench" / "history.jsonl")
    parser.add_argument("--images", type=Path, default=REPO / "docs" / "images")
    parser.add_argument("--page", type=Path, default=REPO / "docs" / "benchmarks.md")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page's tables are not the history's")
    args = parser.parse_args(argv)
    entries = load(args.history)
    page = args.page.read_text(encoding="utf-8") if args.page.exists() else ""
    rendered = render_page(page, entries)
    if args.check:
        if rendered != page:
            print(f"{args.page}: its tables are not what {args.history} gives; run python bench/plot.py")
            return 1
        return 0
    for area in AREAS:
        if any(entry["area"] == area.key for entry in entries):
            plot(area, entries, args.images / f"bench-{slug(area.key)}.png")
    if page and rendered != page:
        args.page.write_text(rendered, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
