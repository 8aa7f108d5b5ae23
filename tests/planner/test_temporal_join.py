"""The event-time temporal join in the planner: against a versioned table (a primary key and a
watermark: a declared PRIMARY KEY, an upsert source) or a versioned view (the latest row per key by
ROW_NUMBER() on its event time) it runs as a changelog operator in streaming mode; in batch mode
against an insert-only versioned table or a versioned view over one. What Flink refuses (no
primary key, no event time, the key not joined on, a join other than INNER or LEFT) is refused
with a positioned message, as is what we cannot run yet (an updating left side)."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.analysis.physical import Why
from planner.logical.joins import TemporalJoin
from planner.logical.visit import distinct_nodes
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """
CREATE TABLE orders (order_ts TIMESTAMP(3), id BIGINT, currency STRING, amount BIGINT,
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE rates (update_time TIMESTAMP(3), currency STRING, rate BIGINT,
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE keyed_rates (update_time TIMESTAMP(3), currency STRING, rate BIGINT, PRIMARY KEY (currency) NOT ENFORCED,
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE untimed_rates (update_time TIMESTAMP(3), currency STRING, rate BIGINT, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'datagen');
CREATE TABLE upsert_rates (update_time TIMESTAMP(3), currency STRING, rate BIGINT, PRIMARY KEY (currency) NOT ENFORCED,
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND) WITH ('connector' = 'upsert-kafka',
  'topic' = 'r', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'key.format' = 'json', 'value.format' = 'json');
CREATE VIEW versioned_rates AS SELECT currency, rate, update_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY
  currency ORDER BY update_time DESC) AS rownum FROM rates) WHERE rownum = 1;
"""


def plan(sql: str, mode: str = "streaming") -> Outcome:
    session = PlannerSession(Catalog.in_memory(), settings={"execution.runtime-mode": mode})
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


def query(right: str, join: str = "JOIN", on: str = "o.currency = r.currency") -> str:
    return f"SELECT o.id, o.amount * r.rate AS total\nFROM orders AS o\n{join} {right} FOR SYSTEM_TIME AS OF o.order_ts AS r\n  ON {on};"


def temporal(outcome: Outcome) -> TemporalJoin:
    (node,) = [n for n in distinct_nodes(outcome.plans) if isinstance(n, TemporalJoin)]
    return node


@pytest.mark.parametrize("right", ["keyed_rates", "versioned_rates", "upsert_rates"])
@pytest.mark.parametrize("join", ["JOIN", "LEFT JOIN"])
def test_a_temporal_join_against_a_versioned_table_runs_as_a_changelog_operator(right: str, join: str):
    outcome = plan(query(right, join))
    assert outcome.analysis.problems == ()
    node = temporal(outcome)
    physical = outcome.analysis.physical[node.node_id]
    assert physical.changelog and physical.counted == (False, False)
    # over an updating versioned side it consumes changes; over a declared key, Spark has none
    assert physical.why == (Why.NO_NATIVE if right == "keyed_rates" else Why.CONSUMES_CHANGES)
    assert outcome.analysis.props[node.node_id].changelog.insert_only  # each left row once: append
    assert "SE302" in {d.code for d in outcome.analysis.diagnostics}
    # a versioned view's deduplication emits each version, not one change per key and micro-batch
    dedups = [outcome.analysis.physical[n.node_id] for n in distinct_nodes(outcome.plans) if n.kind == "Deduplicate"]
    assert [p.every_change for p in dedups] == ([True] if right == "versioned_rates" else [])


def test_its_state_is_left_rows_until_the_watermark_and_the_latest_version_per_key():
    outcome = plan(query("versioned_rates", "LEFT JOIN"))
    (info,) = [i for i in outcome.analysis.state if isinstance(i.node, TemporalJoin)]
    left, versions = info.parts
    assert left.release.kind.value == "watermark" and left.growth.value == "none"
    assert versions.growth.value == "keys" and info.verdict.value == "unbounded"
    assert "SE110" in {d.code for d in outcome.analysis.diagnostics}


@pytest.mark.parametrize(
    ("sql", "code", "words"),
    [
        (query("rates"), Code.TEMPORAL_JOIN_NO_KEY, "`rates` is no versioned table: an event-time temporal join needs a primary key"),
        (query("untimed_rates"), Code.TEMPORAL_JOIN_NO_TIME, "needs an event-time attribute"),
        (query("keyed_rates", on="o.amount = r.rate"), Code.TEMPORAL_JOIN_KEY_NOT_JOINED, "primary key (currency)"),
        (query("versioned_rates", on="o.amount = r.rate"), Code.TEMPORAL_JOIN_KEY_NOT_JOINED, "primary key (currency)"),
        (query("keyed_rates", join="FULL JOIN"), Code.TEMPORAL_JOIN_KIND, "inner or LEFT join (as in Flink), not FULL"),
        (query("keyed_rates", join="RIGHT JOIN"), Code.TEMPORAL_JOIN_KIND, "not RIGHT"),
        (
            query("keyed_rates", on="o.currency = r.currency AND UPPER(o.currency) = r.currency"),
            Code.JOIN_CONDITION, "UPPER",
        ),
        (
            query("keyed_rates").replace("FROM orders AS o", "FROM (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id "
                                         "ORDER BY order_ts DESC) AS rn FROM orders) WHERE rn = 1) AS o"),
            Code.TEMPORAL_JOIN_UPDATING_LEFT, "left (probe) side updates",
        ),
    ],
)
def test_what_flink_refuses_or_we_cannot_run_is_refused_where_it_is(sql: str, code: Code, words: str):
    outcome = plan(sql)
    problems = outcome.analysis.problems
    assert [p.code for p in problems][:1] == [code], [p.reason for p in problems]
    assert words in problems[0].reason
    (d,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    lines = DDL.count("\n")
    assert d.line - lines >= 2 and d.column >= 1  # at the join, in the query


def test_batch_mode_runs_it_against_an_insert_only_versioned_table_or_view():
    assert plan(query("keyed_rates"), "batch").analysis.problems == ()
    assert plan(query("versioned_rates", "LEFT JOIN"), "batch").analysis.problems == ()
    problems = plan(query("upsert_rates"), "batch").analysis.problems
    assert Code.UPSERT_SOURCE in [p.code for p in problems]


def test_a_processing_time_lookup_join_is_unchanged():
    sql = (
        "CREATE TABLE clicks (ts TIMESTAMP(3), currency STRING, pt AS PROCTIME(), WATERMARK FOR ts AS ts) "
        "WITH ('connector' = 'datagen');\n"
        "CREATE TABLE dim (currency STRING, rate BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/d', 'format' = 'json');\n"
        "SELECT c.currency, d.rate FROM clicks AS c JOIN dim FOR SYSTEM_TIME AS OF c.pt AS d ON c.currency = d.currency;"
    )
    outcome = plan(sql)
    assert outcome.analysis.problems == ()
    assert not any(isinstance(n, TemporalJoin) for n in distinct_nodes(outcome.plans))
    assert [str(p) for p in outcome.analysis.physical.values()] == []
