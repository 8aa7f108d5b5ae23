"""Node ids and operator traits: one id per distinct node, shared subtrees keep one id, side
tables key by it; what an operator is comes from its class."""

from __future__ import annotations

from catalog import Catalog
from planner.logical.changelog import Mode
from planner.logical.joins import LookupJoin, WindowJoin
from planner.logical.operators import GroupAggregate, Scan, WindowAggregate
from planner.logical.visit import distinct_nodes
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), item STRING, price BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE items (ts TIMESTAMP(3), id STRING, cat INT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE labels (id STRING, label STRING) WITH ('connector' = 'datagen',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100');
CREATE VIEW counts AS SELECT item, window_start, window_end, COUNT(*) AS c
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY item, window_start, window_end;
"""


def plan(sql: str) -> Outcome:
    session = PlannerSession(Catalog.in_memory())
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


def test_a_cte_read_twice_is_one_node_with_one_id_and_one_state_entry():
    outcome = plan(
        "WITH per AS (SELECT item, COUNT(*) AS c FROM bids GROUP BY item) "
        "SELECT a.item, a.c, b.c FROM per a JOIN per b ON a.item = b.item;"
    )
    (root,) = outcome.plans
    walked = list(root.walk())
    distinct = distinct_nodes([root])
    assert len(walked) > len(distinct)  # the view's subtree is there twice, as one node
    assert sorted(n.node_id for n in distinct) == list(range(len(distinct)))
    aggs = [n for n in walked if isinstance(n, GroupAggregate)]
    assert len(aggs) == 2 and aggs[0] is aggs[1]
    assert [s.operator for s in outcome.analysis.state].count("GroupAggregate") == 1
    assert set(outcome.analysis.props) == {n.node_id for n in distinct}


def test_a_window_join_pairs_each_sides_own_window():
    outcome = plan(
        """SELECT L.item, L.c, R.mx FROM counts L JOIN (
             SELECT id, window_start, window_end, MAX(cat) AS mx
             FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY id, window_start, window_end) R
           ON L.item = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end;"""
    )
    (join,) = [n for n in outcome.plans[0].walk() if isinstance(n, WindowJoin)]
    left_agg = next(n for n in join.left.walk() if isinstance(n, WindowAggregate))
    right_agg = next(n for n in join.right.walk() if isinstance(n, WindowAggregate))
    assert (join.left_window, join.right_window) == (left_agg.window.id, right_agg.window.id)
    assert join.left_window != join.right_window


def test_a_lookup_join_keeps_no_state_and_a_bounded_sequence_is_a_finite_table():
    outcome = plan(
        "SELECT b.item, l.label FROM (SELECT *, PROCTIME() AS pt FROM bids) b "
        "JOIN labels FOR SYSTEM_TIME AS OF b.pt AS l ON b.item = l.id;"
    )
    join = next(n for n in outcome.plans[0].walk() if isinstance(n, LookupJoin))
    assert not join.stateful and outcome.analysis.state == ()
    assert outcome.analysis.problems == ()  # datagen's sequence ends: a finite right-hand table


def test_traits_come_from_the_operator_classes():
    outcome = plan(
        "SELECT item, COUNT(*) AS n FROM bids GROUP BY item;"
    )
    (root,) = outcome.plans
    props = outcome.analysis.props
    agg = root.input  # Calc over the aggregation
    assert agg.stateful and not agg.waits_on_watermark()
    assert props[agg.node_id].changelog.mode == Mode.UPSERT and props[root.node_id].changelog.key == ("item",)
    scan = next(n for n in root.walk() if isinstance(n, Scan))
    assert not scan.stateful and props[scan.node_id].changelog.insert_only


def test_filters_right_on_a_scan_are_offered_to_its_source_per_use():
    outcome = plan("SELECT x.item FROM bids x JOIN bids y ON x.item = y.item WHERE y.price > 10;")
    scans = [n for n in outcome.plans[0].walk() if isinstance(n, Scan)]
    assert sorted(len(s.filters) for s in scans) == [0, 1]  # only the filtered use
