"""The state estimates count a store per shuffle partition: the partitions the engine runs jobs
with (its --conf, or the Spark session it was given), unless the script SETs them."""

from __future__ import annotations

from planner.statements.script import parse_script
from sqlengine.engine import Engine

DDL = ("CREATE TEMPORARY TABLE g (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', "
       "'fields.k.min' = '1', 'fields.k.max' = '10');\n")
QUERY = "SELECT k, COUNT(*) FROM g GROUP BY k;"


def _assumptions(engine: Engine, sql: str) -> tuple[str, ...]:
    *before, stmt = parse_script(sql).statements
    for s in before:
        engine.plan(s)
    analysis = engine.plan(stmt).analysis
    assert analysis is not None
    ((estimate,),) = analysis.estimates.values()
    return estimate.assumptions


def test_the_engines_partitions_reach_the_estimate_and_a_set_wins(tmp_path):
    engine = Engine(home=tmp_path / "h", conf={"spark.sql.shuffle.partitions": "8"})  # Spark is not started
    assert "8 shuffle partitions, each with a store costing 480 B before the first entry" in _assumptions(engine, DDL + QUERY)
    set_three = DDL + "SET 'spark.sql.shuffle.partitions' = '3';\n" + QUERY
    assert "3 shuffle partitions, each with a store costing 480 B before the first entry" in _assumptions(engine, set_three)
