"""docs/benchmarks.md's charts are drawn from its own tables (bench/charts.py): every chart finds
its tables, with numbers in every column it draws, and every chart is on the page, so that a
table edited or moved cannot leave a chart undrawable or a PNG unreferenced."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_charts", ROOT / "bench" / "charts.py")
assert spec is not None and spec.loader is not None
charts = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = charts  # its dataclasses look their module up
spec.loader.exec_module(charts)


def test_the_cells_of_a_table_read_as_numbers_or_not_at_all():
    assert [charts.number(c) for c in ("**518**", "1,154,716", "0.35", "7.9×", "—", "`q4`")] == [518, 1154716, 0.35, None, None, None]


def test_a_table_is_found_under_its_section_with_its_rows_by_header():
    page = "## A\n\ntext\n\n| q | s |\n|---|---|\n| q0 | 1.5 |\n| q1 | 2 |\n\n## B\n| x |\n|---|\n| 3 |\n"
    assert charts.sections(page) == {"A": [[{"q": "q0", "s": "1.5"}, {"q": "q1", "s": "2"}]], "B": [[{"x": "3"}]]}


def test_every_chart_of_the_page_has_its_rows_and_is_shown():
    page = charts.PAGE.read_text()
    tables = charts.sections(page)
    shown = set(re.findall(r"\]\(img/([\w.]+)\)", page))
    for chart in charts.CHARTS:
        drawn = chart.rows(tables)  # exits, naming the chart, when its table is gone or has no numbers
        assert len(drawn) >= 2 and all(r.get(chart.label) for r in drawn), chart.file
        assert chart.file in shown, f"{chart.file} is not on the page"
        assert (ROOT / "docs" / "img" / chart.file).is_file(), f"{chart.file}: run python bench/charts.py"
