"""The stateful-operator fingerprint and the verdict on resuming a checkpoint with a changed plan
(planner.resume), without Spark. What counts as compatible follows what Spark 4.3 does with a
checkpoint (docs/running.md, "Savepoints and compatible restarts"): each refusal here is a change
Spark either fails on at its first batch or, worse, resumes with state that meant something else."""

from __future__ import annotations

from dataclasses import replace

import pytest

from planner.resume import JobPrint, compare, job_print
from tests.planner.helpers import outcome

DDL = """
CREATE TABLE orders (id BIGINT, user_id BIGINT, region STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '/tmp/orders', 'format' = 'json');
CREATE TABLE refunds (id BIGINT, user_id BIGINT, region STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '/tmp/refunds', 'format' = 'json');
CREATE TABLE totals (user_id BIGINT, n BIGINT, total BIGINT) WITH ('connector' = 'print');
CREATE TABLE totals_wide (user_id BIGINT, n BIGINT, total BIGINT, big BOOLEAN) WITH ('connector' = 'print');
CREATE TABLE by_region (user_id BIGINT, region STRING, n BIGINT, total BIGINT) WITH ('connector' = 'print');
CREATE TABLE avgs (user_id BIGINT, n BIGINT, total DOUBLE) WITH ('connector' = 'print');
CREATE TABLE windows (user_id BIGINT, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
CREATE TABLE latest (id BIGINT, user_id BIGINT, amount BIGINT) WITH ('connector' = 'print');
"""

TOTALS = "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id;"
WINDOWS = (
    "INSERT INTO windows SELECT user_id, window_start, COUNT(*) "
    "FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '{size}' SECOND)) GROUP BY user_id, window_start, window_end;"
)


def fingerprint(sql: str, backend: str = "HDFSBackedStateStoreProvider", buckets: int = 64, **settings: str) -> JobPrint:
    ddl = DDL + "".join(f"SET '{k.replace('_', '.')}' = '{v}';" for k, v in settings.items())
    analysis = outcome(ddl, sql).analysis
    assert analysis is not None
    return job_print(analysis, backend=backend, buckets=buckets)


def verdict(old_sql: str, new_sql: str, *, ignore_unclaimed: bool = False, **new: object):
    return compare(fingerprint(old_sql), fingerprint(new_sql, **new), ignore_unclaimed=ignore_unclaimed)


def test_a_group_aggregation_is_printed_as_its_keys_and_calls_with_their_types():
    (pipeline,) = fingerprint(TOTALS).pipelines
    (op,) = pipeline.operators
    assert (pipeline.sink, pipeline.sources) == ("totals", ("orders",))
    assert (op.kind, op.name, op.runs_as) == ("GroupAggregate", "GroupAggregate #2", "native")
    assert [(t.text, t.type) for t in op.keys] == [("user_id", "BIGINT")]
    assert [(t.text, t.type) for t in op.calls] == [("COUNT(*)", "BIGINT"), ("SUM(amount)", "BIGINT")]
    assert str(op) == "GroupAggregate #2 (keyed by user_id)"


def test_a_fingerprint_survives_its_json():
    for sql in (TOTALS, WINDOWS.format(size=10), "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 5;"):
        printed = fingerprint(sql)
        assert JobPrint.from_json(printed.to_json()) == printed


def test_columns_are_printed_as_what_they_compute_not_what_they_are_called():
    renamed = "INSERT INTO totals SELECT u, COUNT(*), SUM(a) FROM (SELECT user_id AS u, amount AS a FROM orders) GROUP BY u;"
    assert fingerprint(renamed).pipelines[0].operators == fingerprint(TOTALS).pipelines[0].operators
    shifted = "INSERT INTO totals SELECT uid, COUNT(*), SUM(amount) FROM (SELECT user_id + 1 AS uid, amount FROM orders) GROUP BY uid;"
    assert [t.text for t in fingerprint(shifted).pipelines[0].operators[0].keys] == ["user_id + 1"]


@pytest.mark.parametrize(
    "changed",
    [
        pytest.param(TOTALS, id="the same statement"),
        pytest.param(
            "INSERT INTO totals SELECT * FROM (SELECT user_id, COUNT(*) AS n, SUM(amount) AS t FROM orders GROUP BY user_id) WHERE user_id > 3;",
            id="a filter after the last stateful operator",
        ),
        pytest.param(
            "INSERT INTO totals_wide SELECT user_id, n, t, t > 100 FROM (SELECT user_id, COUNT(*) AS n, SUM(amount) AS t FROM orders GROUP BY user_id);",
            id="a new sink column computed without state",
        ),
        pytest.param(
            "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders WHERE region <> 'test' GROUP BY user_id;",
            id="a filter before it (Spark takes it; it applies from the restart on)",
        ),
    ],
)
def test_compatible_changes_resume(changed):
    found = verdict(TOTALS, changed)
    assert found.compatible, found
    assert str(found) == "compatible"


@pytest.mark.parametrize(
    "old,new,reason",
    [
        pytest.param(
            TOTALS,
            "INSERT INTO by_region SELECT user_id, region, COUNT(*), SUM(amount) FROM orders GROUP BY user_id, region;",
            "GroupAggregate #2 re-keyed: (user_id) → (user_id, region)",
            id="re-keyed",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT id, COUNT(*), SUM(amount) FROM orders GROUP BY id;",
            "GroupAggregate #2 re-keyed: (user_id) → (id)",
            id="re-keyed on a column of the same type (Spark resumes it with the old keys)",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO avgs SELECT user_id, COUNT(*), AVG(amount) FROM orders GROUP BY user_id;",
            "GroupAggregate #2 aggregate changed: SUM(amount) → AVG(amount)",
            id="a changed aggregate",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT user_id, COUNT(*), MAX(amount) FROM orders GROUP BY user_id;",
            "GroupAggregate #2 aggregate changed: SUM(amount) → MAX(amount)",
            id="an aggregate of the same type (Spark resumes MAX from the SUM)",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM (SELECT DISTINCT id, user_id, amount FROM orders) GROUP BY user_id;",
            "operator added: Distinct #3 (keyed by id, user_id, amount)",
            id="an operator added",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT user_id, 1, amount FROM orders;",
            "operator removed: GroupAggregate #2 (keyed by user_id) of the checkpoint "
            "('execution.savepoint.ignore-unclaimed-state' = 'true' leaves its state behind)",
            id="an operator removed",
        ),
        pytest.param(
            "INSERT INTO totals SELECT user_id, 1, amount FROM orders;",
            TOTALS,
            "operator added: GroupAggregate #2 (keyed by user_id)",
            id="state where there was none",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO latest SELECT id, user_id, amount FROM "
            "(SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM orders) WHERE rn = 1;",
            "operator changed: GroupAggregate #2 (keyed by user_id) → Deduplicate #2 (keyed by id)",
            id="another operator in its place",
        ),
        pytest.param(
            WINDOWS.format(size=10),
            WINDOWS.format(size=20),
            "WindowAggregate #2 changed: window TUMBLE(ts, size=10 s) → window TUMBLE(ts, size=20 s)",
            id="a window resized",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM (SELECT * FROM orders UNION ALL SELECT * FROM refunds) GROUP BY user_id;",
            "sources changed: (orders) → (orders, refunds)",
            id="a source added",
        ),
        pytest.param(
            TOTALS,
            "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 5;",
            "GroupAggregate #2 runs as changelog operator on the JVM (a filter on its result turns an update that leaves the filter into a delete) now, "
            "as native before",
            id="the same operator run another way",
        ),
    ],
)
def test_incompatible_changes_are_refused_with_the_reason(old, new, reason):
    found = verdict(old, new)
    assert not found.compatible
    assert str(found.changes[0]) == reason


def test_a_native_deduplication_written_before_it_kept_the_micro_batch_time_is_refused():
    """Spark's max_by keeps each row's micro-batch time to order ties: a state written
    without it has another layout, refused before the job starts (with the reason)."""
    latest = ("INSERT INTO latest SELECT id, user_id, amount FROM "
              "(SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM orders) WHERE rn = 1;")
    new = fingerprint(latest)
    (op,) = new.pipelines[0].operators
    assert op.runs_as == "native" and op.shape == ("keep last row by ts", "ties by micro-batch time")
    old = replace(new, pipelines=(replace(new.pipelines[0], operators=(replace(op, shape=op.shape[:1]),)),))
    found = compare(old, new)
    assert not found.compatible
    assert str(found.changes[0]) == "Deduplicate #2 changed: nothing → ties by micro-batch time"


@pytest.mark.parametrize(
    ("order", "by_arrival"),
    [
        pytest.param("ts", True, id="keep-first on event time"),
        pytest.param("amount DESC", True, id="a Top-1"),
        pytest.param("ts DESC", False, id="keep-last: a partition's last read is the last arrived"),
    ],
)
def test_a_native_best_row_keeping_the_first_of_ties_keeps_each_rows_arrival_number(order, by_arrival):
    """Where the first of a micro-batch's tied rows stays, Spark's max_by orders them by an arrival
    number too (Physical.ties_by_arrival, set where the planner decides how the operator runs):
    a checkpoint written without it is refused; without the JVM ('sqlengine.changelog.jvm' =
    'false') the operator has the layout of before."""
    sql = ("INSERT INTO latest SELECT id, user_id, amount FROM "
           f"(SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY {order}) AS rn FROM orders) WHERE rn = 1;")
    (op,) = fingerprint(sql).pipelines[0].operators
    assert op.runs_as == "native"
    assert op.shape[-1] == ("ties by micro-batch time, then arrival" if by_arrival else "ties by micro-batch time")
    (plain,) = fingerprint(sql, sqlengine_changelog_jvm="false").pipelines[0].operators
    joined = sql.replace("FROM orders)", "FROM (SELECT o.id, o.user_id, r.amount, o.ts FROM orders o JOIN refunds r ON o.id = r.id))")
    (after_join,) = [o for o in fingerprint(joined).pipelines[0].operators if o.kind != "RegularJoin"]  # the join's order: no number
    assert (after_join.runs_as, after_join.shape[-1]) == ("native", "ties by micro-batch time")
    assert plain.shape[-1] == "ties by micro-batch time"
    found = compare(fingerprint(sql, sqlengine_changelog_jvm="false"), fingerprint(sql))
    assert found.compatible is not by_arrival
    if by_arrival:
        assert str(found.changes[0]).endswith("changed: ties by micro-batch time → ties by micro-batch time, then arrival; "
                                              "SET 'sqlengine.changelog.jvm' = 'false' runs it as before")
        back = compare(fingerprint(sql), fingerprint(sql, sqlengine_changelog_jvm="false"))
        assert str(back.changes[0]).endswith("; SET 'sqlengine.changelog.jvm' = 'true' runs it as before")


def test_a_refusal_names_the_new_plans_operator():
    found = verdict(TOTALS, "INSERT INTO avgs SELECT user_id, COUNT(*), AVG(amount) FROM orders GROUP BY user_id;")
    assert found.changes[0].node == 2


def test_the_state_backend_and_the_buckets_of_changelog_operators_are_part_of_the_state():
    having = "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 5;"
    old = fingerprint(having, backend="RocksDBStateStoreProvider", buckets=64)
    assert compare(old, fingerprint(having, backend="RocksDBStateStoreProvider", buckets=64)).compatible
    rebucketed = compare(old, fingerprint(having, backend="RocksDBStateStoreProvider", buckets=16))
    assert str(rebucketed.changes[0]).startswith("'sqlengine.changelog.buckets' changed: 64 → 16")
    native = fingerprint(TOTALS)
    assert native.buckets is None  # nothing reads them: changing them changes nothing
    moved = compare(native, fingerprint(TOTALS, backend="RocksDBStateStoreProvider"))
    assert str(moved.changes[0]).startswith("state backend changed: HDFSBackedStateStoreProvider → RocksDBStateStoreProvider")


def test_a_changelog_operator_keeps_the_ttl_it_started_with():
    having = "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 5;"
    found = compare(fingerprint(having, table_exec_state_ttl="1 h"), fingerprint(having, table_exec_state_ttl="2 h"))
    assert str(found.changes[0]) == "GroupAggregate #2 changed: state TTL 1 h → state TTL 2 h"


def test_ignore_unclaimed_state_leaves_all_of_a_querys_state_behind_but_not_part_of_it():
    gone = verdict(TOTALS, "INSERT INTO totals SELECT user_id, 1, amount FROM orders;", ignore_unclaimed=True)
    assert gone.compatible and gone.unclaimed == (0,)
    assert "is left behind ('execution.savepoint.ignore-unclaimed-state')" in gone.notes[0]
    two = "INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM (SELECT DISTINCT id, user_id, amount FROM orders) GROUP BY user_id;"
    part = compare(fingerprint(two), fingerprint(TOTALS), ignore_unclaimed=True)
    assert any("only all of it can be left behind" in str(c) for c in part.changes)


STATEMENT_SET = "EXECUTE STATEMENT SET BEGIN {inserts} END;"
WIDE = "INSERT INTO totals_wide SELECT user_id, COUNT(*), SUM(amount), FALSE FROM orders GROUP BY user_id;"


def test_a_statement_set_may_gain_an_insert_and_lose_one_only_leaving_its_state_behind():
    one, both = STATEMENT_SET.format(inserts=TOTALS), STATEMENT_SET.format(inserts=TOTALS + " " + WIDE)
    gained = verdict(one, both)
    assert gained.compatible and gained.notes == ("INSERT INTO totals_wide is new: it starts from the beginning of its input",)
    lost = verdict(both, one)
    assert str(lost.changes[0]).startswith("INSERT INTO totals_wide removed: its state would be left unclaimed")
    allowed = verdict(both, one, ignore_unclaimed=True)
    assert allowed.compatible and allowed.unclaimed == (1,)
    changed = verdict(both, STATEMENT_SET.format(inserts=TOTALS + " " + WIDE.replace("SUM(amount)", "MIN(amount)")))
    assert str(changed.changes[0]) == "INSERT INTO totals_wide: GroupAggregate #6 aggregate changed: SUM(amount) → MIN(amount)"
