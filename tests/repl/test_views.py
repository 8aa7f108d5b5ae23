"""The result views' pieces on real results (ResultTable) and jobs (Job with progress snapshots),
without Spark: changelog and tableau lines, fixed column widths, the status and watermark text.
The views running live on Spark are in test_shell_spark.py."""

from __future__ import annotations

import datetime
from pathlib import Path

from sqlglot import exp

from repl.views.changelog import ChangelogFeed
from repl.views.columns import Columns
from repl.views.live import watermark_text
from repl.views.tableau import TableauFeed
from sqlengine.jobs import Job, JobKind
from sqlengine.progress import OperatorState, Snapshot
from sqlengine.results import ResultTable

TS = datetime.datetime(2024, 1, 1, 0, 0, 10)


def texts(lines):
    return [t for _s, t in lines]


def test_changelog_lines_mark_inserts_and_updates():
    result = ResultTable(("item", "c"), ("item",))
    feed = ChangelogFeed(result, Columns(result.columns, [None, exp.DataType.build("BIGINT")], op=True))
    assert feed.poll() == []
    result.apply(0, [("apple", 1), ("pear", 2)])
    first = feed.poll()
    assert texts(first) == [
        "| op | item  | c                    |",
        "| +I | apple |                    1 |",
        "| +I | pear  |                    2 |",
    ]
    assert [s for s, _t in first][1:] == ["change.insert", "change.insert"]
    result.apply(1, [("apple", 3)])
    assert texts(feed.poll()) == ["| -U | apple |                    1 |", "| +U | apple |                    3 |"]
    assert texts(feed.finish(cancelled=True)) == ["Query stopped: received a total of 4 changes."]


def test_tableau_rows_line_up_across_batches_and_long_values_are_cut():
    result = ResultTable(("item", "ts"))
    feed = TableauFeed(result, Columns(result.columns, [None, exp.DataType.build("TIMESTAMP(3)")], limit=8, op=True), final_only=False)
    result.apply(0, [("apple", TS)])
    lines = texts(feed.poll())  # widths are fixed by the first rows: item 5 ("apple"), ts 8 (the limit)
    assert lines == ["+----+-------+----------+", "| op | item  | ts       |", "+----+-------+----------+", "| +I | apple | 2024-01… |"]
    result.apply(1, [("a-very-long-name", None)])
    assert texts(feed.poll()) == ["| +I | a-ve… | NULL     |"]
    assert texts(feed.finish(cancelled=False)) == ["+----+-------+----------+", "Query finished: received a total of 2 rows."]


def test_a_bounded_query_prints_its_final_table_once():
    result = ResultTable(("item", "c"), ("item",))
    feed = TableauFeed(result, Columns(result.columns), final_only=True)
    result.apply(0, [("apple", 1)])
    result.apply(1, [("apple", 2), ("pear", None)])
    assert feed.poll() == []
    final = texts(feed.finish(cancelled=False))[0]
    assert "| apple  | 2    |" in final and "| pear   | NULL |" in final and final.endswith("2 rows in set")
    assert texts(feed.finish(cancelled=True)) == ["Query stopped before it finished."]


def test_watermark_text():
    job = Job(id="j", name="n", sql="SELECT 1", kind=JobKind.SELECT, checkpoint=Path("/tmp/x"), pipelines=[], bounded=False)
    assert watermark_text(job) == "-"

    def snap(batch: int, wm: str) -> Snapshot:
        return Snapshot("q-0", batch, f"t{batch}", 1, 1.0, 1.0, 5, wm, (OperatorState("stateStoreSave", 3, 2048),))

    job.history.append(snap(0, "1970-01-01T00:00:00.000Z"))
    assert watermark_text(job) == "-"
    job.history.append(snap(1, "2024-01-01T00:00:28.000Z"))
    assert watermark_text(job) == "2024-01-01T00:00:28.000Z"
    job.history.append(snap(2, "9999-12-31T23:59:58.000Z"))
    assert watermark_text(job) == "end of input"
