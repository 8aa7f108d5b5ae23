"""The charts of docs/benchmarks.md, drawn with matplotlib from the page's own tables into
docs/img/*.png, so that a chart never disagrees with the table above it.

    pip install -e '.[bench]' && python bench/charts.py

Run it after a table changes (each benchmark's script prints its table; the page says which).
Each chart is named for its table's section; a row whose cell is not a number (a query one engine
refused) is left out of the chart and stays in the table.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "benchmarks.md"
# a series' colour by its place: where the series are the engines, sqlengine is blue, the other orange
COLOURS = ("#1f6fb4", "#e08a1e", "#4f9a3a")


@dataclass(frozen=True)
class Chart:
    """One grouped bar chart: a bar per series for each row of the ``tables`` (their indexes, in
    the order they come) of ``section``."""

    file: str
    section: str
    label: str  # the column that names each group of bars
    series: tuple[tuple[str, str], ...]  # (column, legend)
    title: str
    unit: str
    tables: tuple[int, ...] = (0,)
    horizontal: bool = False
    log: bool = False

    def rows(self, tables: dict[str, list[list[dict[str, str]]]]) -> list[dict[str, str]]:
        """The rows it draws: those of its tables with a number in every column it draws."""
        found = tables.get(self.section, [])
        if len(found) <= max(self.tables):
            raise SystemExit(f"{self.file}: no table {max(self.tables) + 1} under '## {self.section}'")
        kept = [r for i in self.tables for r in found[i]
                if all(number(r.get(col, "")) is not None for col, _ in self.series)]
        if not kept:
            raise SystemExit(f"{self.file}: no row of '{self.section}' has numbers in {[c for c, _ in self.series]}")
        return kept


CHARTS = (
    Chart("flink.png", "Against Apache Flink 2.3 on the same files", "query",
          (("sqlengine s (2,000,000)", "sqlengine"), ("Flink s", "Flink 2.3")),
          "Whole run over 2,000,000 Nexmark events (lower is faster)", "seconds"),
    Chart("latency.png", "Interactive latency against Apache Flink 2.3", "engine",
          (("first row, run 1 (s)", "first query of a session"), ("first row, runs 2–4 (median s)", "later queries (median)")),
          "Statement to first row of a 2-s TUMBLE with a 1-s watermark delay", "seconds", horizontal=True),
    Chart("hand_written.png", "Nexmark on Spark: sqlengine vs hand-written PySpark", "query",
          (("sqlengine events/s", "sqlengine"), ("hand-written events/s", "hand-written PySpark")),
          "Nexmark, 2,000,000 events, one JVM per query (higher is faster)", "events per second"),
    Chart("changelog.png", "Changelog operators against Spark's native operators", "pair",
          (("ratio", "changelog events/s over native events/s"),),
          "Changelog operator's speed over the nearest native shape's (both tables; the target is 0.3)", "ratio",
          tables=(0, 1), horizontal=True),
    Chart("lint.png", "Lint against sqlfluff", "shape",
          (("sqlengine lint statements/s", "sqlengine lint"), ("sqlfluff lint statements/s", "sqlfluff lint")),
          "Statements linted per second (higher is faster; log scale)", "statements per second", log=True),
    Chart("startup.png", "Start-up", "shell",
          (("start to prompt (s)", "start to prompt"), ("start to first answer (s)", "start to first answer"),
           ("next answer (s)", "next answer")),
          "Shell start-up (lower is faster)", "seconds", horizontal=True),
)


def sections(markdown: str) -> dict[str, list[list[dict[str, str]]]]:
    """Every table of the page, by the ``##`` section it is in, as rows keyed by the header."""
    out: dict[str, list[list[dict[str, str]]]] = {}
    section, header, rows = "", None, None
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("## "):
            section = line[3:].strip()
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            if header is not None and rows is not None:
                out.setdefault(section, []).append(rows)
            header, rows = None, None
        elif header is None:
            header = cells
        elif rows is None:  # the |---| line under the header
            rows = []
        else:
            rows.append(dict(zip(header, cells, strict=False)))
    return out


def number(cell: str) -> float | None:
    """A table cell as a number ('**518**', '1,154,716', '0.35'), or None ('—', an error)."""
    text = re.sub(r"[*`]", "", cell).replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None


def draw(chart: Chart, kept: list[dict[str, str]], out: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display here
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    # long labels (a lint corpus's shape) on lines of their own rather than over each other
    labels = [textwrap.fill(re.sub(r"[*`]", "", r[chart.label]), 30 if chart.horizontal else 18) for r in kept]
    width = 0.8 / len(chart.series)
    legend_in = 0.35 if chart.horizontal and len(chart.series) > 1 else 0.0  # a row under the axis
    size = ((8, 1.2 + legend_in + 0.25 * len(kept) * max(2, len(chart.series))) if chart.horizontal
            else (max(6.0, 0.55 * len(kept) + 2), 4.2))
    fig, ax = plt.subplots(figsize=size, dpi=110)
    for i, (col, legend) in enumerate(chart.series):
        values = [number(r[col]) or 0.0 for r in kept]
        where = [k + (i - (len(chart.series) - 1) / 2) * width for k in range(len(kept))]
        color = COLOURS[i % len(COLOURS)]
        if chart.horizontal:
            ax.barh(where, values, height=width, label=legend, color=color)
        else:
            ax.bar(where, values, width=width, label=legend, color=color)
    if chart.horizontal:
        ax.set_yticks(range(len(kept)), labels)
        ax.invert_yaxis()  # the table's first row on top
        ax.set_xlabel(chart.unit)
        ax.grid(axis="x", alpha=0.3)
    else:
        ax.set_xticks(range(len(kept)), labels, rotation=45 if len(kept) > 8 else 0)
        ax.set_ylabel(chart.unit)
        ax.grid(axis="y", alpha=0.3)
        if chart.log:
            ax.set_yscale("log")
    if not chart.log:  # 1,000,000 rather than "1e6" over the axis
        (ax.xaxis if chart.horizontal else ax.yaxis).set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))
    ax.set_axisbelow(True)
    ax.set_title(chart.title, fontsize=10)
    if len(chart.series) > 1:
        if legend_in:  # under the axis, where no bar can be
            fig.legend(loc="lower center", ncol=len(chart.series), fontsize=8, frameon=False)
        else:
            ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, legend_in / size[1], 1, 1))
    path = out / chart.file
    # no creation date or version in the file: drawing the same table again gives the same bytes
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page", type=Path, default=PAGE)
    ap.add_argument("--out", type=Path, default=None, help="default: the page's img/ directory")
    args = ap.parse_args()
    out = args.out or args.page.parent / "img"
    out.mkdir(parents=True, exist_ok=True)
    tables = sections(args.page.read_text())
    for chart in CHARTS:
        print(draw(chart, chart.rows(tables), out))


if __name__ == "__main__":
    main()
