"""Named windows (``OVER w ... WINDOW w AS (...)``) bind to the same plan as the window written
out, in streaming and batch mode; a name that is not defined is a positioned error."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from tests.planner import helpers

DDL = """
CREATE TABLE clicks (usr STRING, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def explain(sql: str, mode: str = "streaming") -> str:
    return helpers.explain(DDL, sql, mode)


INLINE = """SELECT usr, COUNT(*) OVER (PARTITION BY usr ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS c,
  MAX(url) OVER (PARTITION BY usr ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m FROM clicks"""


@pytest.mark.parametrize("mode", ["streaming", "batch"])
@pytest.mark.parametrize(
    "named",
    [
        "SELECT usr, COUNT(*) OVER w AS c, MAX(url) OVER w AS m FROM clicks "
        "WINDOW w AS (PARTITION BY usr ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
        "SELECT usr, COUNT(*) OVER (w) AS c, MAX(url) OVER (w) AS m FROM clicks "
        "WINDOW w AS (PARTITION BY usr ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
        # a definition from an earlier one
        "SELECT usr, COUNT(*) OVER w2 AS c, MAX(url) OVER w2 AS m FROM clicks "
        "WINDOW w1 AS (PARTITION BY usr), w2 AS (w1 ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
    ],
    ids=["over_w", "over_parenthesized_w", "w2_from_w1"],
)
def test_a_named_window_plans_as_the_window_written_out(named: str, mode: str) -> None:
    assert explain(named, mode) == explain(INLINE, mode)


def test_an_undefined_window_is_a_positioned_error() -> None:
    session = PlannerSession(Catalog.in_memory())
    text = DDL + "SELECT usr, COUNT(*) OVER win FROM clicks;"
    statements = parse_script(text, "q.sql").statements
    for stmt in statements[:-1]:
        session.execute(stmt)
    with pytest.raises(SqlError) as info:
        session.execute(statements[-1])
    err = info.value
    assert "Window 'win' is not defined" in err.message
    assert (err.line, text.splitlines()[err.line - 1][err.column - 1 :].startswith("win")) == (4, True)
