"""The translation in a session time zone (sqlengine.translate.time_zone), without Spark: in UTC
every expression is translated as before; in another zone each place Flink reads a wall time
moves the value there, and nothing else changes. The values are Flink's: the function suite's
zone group (tests/functions/cases/zone.txt) compares them on Spark."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from planner.dialect import Flink
from planner.logical import typing as T
from planner.logical.fields import Field
from sqlengine.translate.expressions import SparkExpressions


def _sql(text: str, zone: str) -> str:
    fields = {"ms": Field("ms", T.BIGINT), "ts": Field("ts", exp.DataType.build("TIMESTAMP(3)")), "s": Field("s", T.STRING)}
    return SparkExpressions(fields, zone).sql(sqlglot.parse_one("SELECT " + text, read=Flink).expressions[0])


@pytest.mark.parametrize("text", [
    "CAST(TO_TIMESTAMP_LTZ(ms, 3) AS STRING)", "HOUR(TO_TIMESTAMP_LTZ(ms, 3))", "FLOOR(TO_TIMESTAMP_LTZ(ms, 3) TO DAY)",
    "CAST(ts AS TIMESTAMP_LTZ(3))", "TO_TIMESTAMP_LTZ(ms, 3) > ts", "FROM_UNIXTIME(ms)", "UNIX_TIMESTAMP(s)", "LOCALTIMESTAMP",
])
def test_in_utc_the_translation_is_unchanged_and_in_a_zone_each_wall_time_is_read_there(text: str) -> None:
    assert "utc_timestamp" not in _sql(text, "UTC").lower()
    zoned = _sql(text, "Asia/Kolkata")
    assert "'Asia/Kolkata'" in zoned and "LOCAL(" not in zoned.upper().replace("LOCALTIMESTAMP", "")


def test_a_zone_free_expression_is_the_same_in_every_zone() -> None:
    for text in ("TO_TIMESTAMP_LTZ(ms, 3)", "CAST(ts AS STRING)", "HOUR(ts)", "TO_TIMESTAMP_LTZ('2024-03-15 13:45:30', 'yyyy-MM-dd HH:mm:ss')"):
        assert _sql(text, "Asia/Kolkata") == _sql(text, "UTC")


@pytest.mark.parametrize("text", ["AVG(HOUR(TO_TIMESTAMP_LTZ(ms, 3)))", "REGEXP_EXTRACT(CAST(TO_TIMESTAMP_LTZ(ms, 3) AS STRING), '(..):', 1)"])
def test_what_a_rewritten_node_is_built_from_is_rewritten_too(text: str) -> None:
    """AVG of an integer and REGEXP_EXTRACT are replaced by compositions; their arguments are
    rewritten first (the zone's markers were once left in them, as invalid Spark SQL)."""
    zoned = _sql(text, "Asia/Kolkata")
    assert "FROM_UTC_TIMESTAMP" in zoned and "LOCAL(" not in zoned.upper()
