"""The changelog operators on their own (plain Python over Arrow, no Spark): fed a random
changelog in random micro-batches, with their state pickled between batches as the processor
keeps it, each emits a well-formed changelog (it never takes back a row it did not emit) whose
final table is what the operator computes from scratch over the final input. Plus the cases
Flink's documentation spells out: the exact changes of an update, the ranks of RANK and
DENSE_RANK, NULL ordering, padded rows of outer joins, TTL."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import pickle
from collections import Counter
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.analysis.physical import counted_sides
from planner.logical.joins import JoinKind
from sqlengine.changelog.aggregate import AggCallSpec, GroupAggregate
from sqlengine.changelog.dedup import Deduplicate
from sqlengine.changelog.join import ANTI, FULL, INNER, LEFT, SEMI, Join
from sqlengine.changelog.kinds import DELETE, INSERT, SIGN, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.operator import KIND_FIELD, Operator
from sqlengine.changelog.topn import APPEND_FAST, DENSE_RANK, RANK, RETRACT, ROW_NUMBER, TopN
from sqlengine.changelog.values import Typing

KINDS = {INSERT: "+I", UPDATE_BEFORE: "-U", UPDATE_AFTER: "+U", DELETE: "-D"}


def table(fields: list[tuple[str, pa.DataType]], changes: list[tuple[int, tuple[Any, ...]]]) -> pa.Table:
    schema = pa.schema([KIND_FIELD, *(pa.field(n, t) for n, t in fields)])
    cols = list(zip(*[(k, *row) for k, row in changes], strict=True)) if changes else [()] * len(schema)
    return pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(cols, schema, strict=True)], schema=schema)


def out_schema(fields: list[tuple[str, pa.DataType]]) -> pa.Schema:
    return pa.schema([KIND_FIELD, *(pa.field(n, t) for n, t in fields)])


def run(op: Operator, batches: list[list[pa.Table | None]], now_ms: int = 0) -> list[tuple[str, tuple[Any, ...]]]:
    """The operator's changes over ``batches`` (per batch, per input), state pickled in between."""
    blob = pickle.dumps(op.new_state())
    out: list[tuple[str, tuple[Any, ...]]] = []
    for inputs in batches:
        state = pickle.loads(blob)
        changes = op.apply(state, inputs, now_ms)
        # what reaches Spark: the changes as Arrow, in the operator's output schema
        t = changes.table(op.out_schema)
        for row in t.to_pylist():
            values = list(row.values())
            out.append((KINDS[values[0]], tuple(values[1:])))
        blob = pickle.dumps(state)
    return out


def apply_changelog(changes: list[tuple[str, tuple[Any, ...]]]) -> Counter[tuple[Any, ...]]:
    """The table a changelog ends in; a retraction of a row not in the table fails the test."""
    held: Counter[tuple[Any, ...]] = Counter()
    for kind, row in changes:
        if kind in ("+I", "+U"):
            held[row] += 1
        else:
            assert held[row] > 0, f"{kind}{row} takes back a row the table does not hold"
            held[row] -= 1
            if not held[row]:
                del held[row]
    return held


# -- random changelogs -----------------------------------------------------------------------------

rows_ = st.tuples(st.sampled_from(["a", "b", "c", None]), st.one_of(st.none(), st.integers(-5, 5)))


@st.composite
def changelogs(draw: Any, rows: Any = rows_, max_size: int = 30) -> list[tuple[int, tuple[Any, ...]]]:
    """A valid changelog: insertions, and retractions (as -U/+U pairs or -D) of rows it holds."""
    out: list[tuple[int, tuple[Any, ...]]] = []
    held: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(0, max_size))):
        action = draw(st.sampled_from(["insert", "insert", "delete", "update"]))
        if action == "insert" or not held:
            row = draw(rows)
            held.append(row)
            out.append((INSERT, row))
        else:
            row = held.pop(draw(st.integers(0, len(held) - 1)))
            if action == "delete":
                out.append((DELETE, row))
            else:
                new = draw(rows)
                held.append(new)
                out += [(UPDATE_BEFORE, row), (UPDATE_AFTER, new)]
    return out


def final(changes: list[tuple[int, tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    held: Counter[tuple[Any, ...]] = Counter()
    for kind, row in changes:
        held[row] += SIGN[kind]
    return list(held.elements())


def split(draw: Any, changes: list[Any]) -> list[list[Any]]:
    cuts = sorted(draw(st.lists(st.integers(0, len(changes)), max_size=5)))
    bounds = [0, *cuts, len(changes)]
    return [changes[a:b] for a, b in itertools.pairwise(bounds) if b > a]


FIELDS = [("k", pa.string()), ("v", pa.int64())]


# -- group aggregation --------------------------------------------------------------------------------


def aggregate() -> GroupAggregate:
    calls = [
        AggCallSpec("COUNT", star=True, args=0),
        AggCallSpec("COUNT"),
        AggCallSpec("SUM", typing=Typing("long")),
        AggCallSpec("MIN"),
        AggCallSpec("MAX"),
    ]
    out = out_schema([("k", pa.string()), ("n", pa.int64()), ("nv", pa.int64()), ("s", pa.int64()), ("lo", pa.int64()), ("hi", pa.int64())])
    return GroupAggregate(1, calls, [None, pa.int64(), pa.int64(), pa.int64(), pa.int64()], retracting=True, out_schema=out)


def expected_aggregate(rows: list[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    groups: dict[Any, list[Any]] = {}
    for k, v in rows:
        groups.setdefault(k, []).append(v)
    out: Counter[tuple[Any, ...]] = Counter()
    for k, vs in groups.items():
        nn = [v for v in vs if v is not None]
        out[(k, len(vs), len(nn), sum(nn) if nn else None, min(nn, default=None), max(nn, default=None))] += 1
    return out


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_an_aggregation_over_any_changelog_ends_in_the_aggregation_of_its_final_table(data: Any) -> None:
    changes = data.draw(changelogs())
    op = aggregate()
    # the input arrives in micro-batches; the operator's own input is the aggregation's arguments
    op_fields = [("k", pa.string()), ("a", pa.int64()), ("b", pa.int64()), ("c", pa.int64()), ("d", pa.int64())]
    batches = [[table(op_fields, [(k, (r[0], r[1], r[1], r[1], r[1])) for k, r in part])] for part in split(data.draw, changes)]
    assert apply_changelog(run(op, batches)) == expected_aggregate(final(changes))


def test_an_update_of_a_group_is_a_minus_u_then_a_plus_u_and_its_last_row_gone_a_minus_d() -> None:
    op = aggregate()
    f = [("k", pa.string()), ("a", pa.int64()), ("b", pa.int64()), ("c", pa.int64()), ("d", pa.int64())]
    out = run(
        op,
        [
            [table(f, [(INSERT, ("a", 1, 1, 1, 1))])],
            [table(f, [(INSERT, ("a", 4, 4, 4, 4))])],
            [table(f, [(DELETE, ("a", 1, 1, 1, 1)), (DELETE, ("a", 4, 4, 4, 4))])],
        ],
    )
    assert out == [
        ("+I", ("a", 1, 1, 1, 1, 1)),
        ("-U", ("a", 1, 1, 1, 1, 1)),
        ("+U", ("a", 2, 2, 5, 1, 4)),
        ("-D", ("a", 2, 2, 5, 1, 4)),
    ]


def test_a_batch_that_leaves_a_group_as_it_was_emits_nothing_for_it() -> None:
    op = aggregate()
    f = [("k", pa.string()), ("a", pa.int64()), ("b", pa.int64()), ("c", pa.int64()), ("d", pa.int64())]
    row = ("a", 3, 3, 3, 3)
    out = run(op, [[table(f, [(INSERT, row)])], [table(f, [(UPDATE_BEFORE, row), (UPDATE_AFTER, row)])]])
    assert out == [("+I", ("a", 1, 1, 3, 3, 3))]


def test_a_sum_of_bigints_wraps_as_the_batch_engine_does() -> None:
    out = out_schema([("k", pa.string()), ("s", pa.int64())])
    op = GroupAggregate(1, [AggCallSpec("SUM", typing=Typing("long"))], [pa.int64()], retracting=False, out_schema=out)
    f = [("k", pa.string()), ("v", pa.int64())]
    got = run(op, [[table(f, [(INSERT, ("a", 2**63 - 1)), (INSERT, ("a", 1))])]])
    assert got == [("+I", ("a", -(2**63)))]


def test_a_retracted_nan_leaves_a_max_and_every_nan_is_one_distinct_value() -> None:
    """Every NaN is one value, as in Flink's map of values (Double.equals) and Spark's DISTINCT:
    retracting the NaN maximum falls back to the next value, and COUNT(DISTINCT) counts it once
    (each NaN arrives as a float object of its own)."""
    out = out_schema([("k", pa.string()), ("hi", pa.float64()), ("d", pa.int64())])
    calls = [AggCallSpec("MAX"), AggCallSpec("COUNT", distinct=True)]
    op = GroupAggregate(1, calls, [pa.float64(), pa.float64()], retracting=True, out_schema=out)
    f = [("k", pa.string()), ("a", pa.float64()), ("b", pa.float64())]
    nan = float("nan")
    got = run(op, [[table(f, [(INSERT, ("a", 1.0, 1.0)), (INSERT, ("a", nan, nan)), (INSERT, ("a", nan, nan))])],
                   [table(f, [(DELETE, ("a", nan, nan)), (DELETE, ("a", float("nan"), float("nan")))])]])
    assert [k for k, _ in got] == ["+I", "-U", "+U"]
    assert math.isnan(got[0][1][1]) and got[0][1][2] == 2
    assert got[2][1] == ("a", 1.0, 1)


def test_an_unchanged_row_is_emitted_again_only_under_a_ttl_and_compared_as_flink_does() -> None:
    """Flink's GroupAggFunction emits nothing for a group whose row did not change, unless a state
    TTL is in force (then -U/+U, so that the operators after it keep its state alive); its
    equaliser compares binary rows: NaN equals NaN, -0.0 is not 0.0."""
    f = [("k", pa.string()), ("v", pa.float64())]
    out = out_schema([("k", pa.string()), ("hi", pa.float64())])

    def changes(first: float, second: float, ttl: int | None = None, func: str = "MAX") -> list[str]:
        typing = Typing("float") if func == "SUM" else Typing("as-is")
        op = GroupAggregate(1, [AggCallSpec(func, typing=typing)], [pa.float64()], retracting=True, out_schema=out, ttl_ms=ttl)
        got = run(op, [[table(f, [(INSERT, ("a", first))])], [table(f, [(DELETE, ("a", first)), (INSERT, ("a", second))])]])
        return [k for k, _ in got]

    assert changes(2.0, 2.0) == ["+I"]
    assert changes(float("nan"), float("nan"), func="SUM") == ["+I"]  # NaN - NaN + NaN: a new NaN object
    assert changes(0.0, -0.0) == ["+I", "-U", "+U"]
    assert changes(2.0, 2.0, ttl=60_000) == ["+I", "-U", "+U"]


def test_state_ttl_forgets_an_idle_group_without_a_retraction() -> None:
    out = out_schema([("k", pa.string()), ("n", pa.int64())])
    op = GroupAggregate(1, [AggCallSpec("COUNT", star=True, args=0)], [None], retracting=False, out_schema=out, ttl_ms=1000)
    f = [("k", pa.string())]
    state = op.new_state()
    first = op.apply(state, [table(f, [(INSERT, ("a",))])], now_ms=0)
    again = op.apply(state, [table(f, [(INSERT, ("a",))])], now_ms=500)
    later = op.apply(state, [table(f, [(INSERT, ("b",))])], now_ms=1600)  # a: idle 1100 ms, expired
    back = op.apply(state, [table(f, [(INSERT, ("a",))])], now_ms=1700)
    assert list(first.rows) == [("a", 1)]
    assert again.rows == [("a", 1), ("a", 2)]
    assert later.rows == [("b", 1)]
    assert back.kinds == [INSERT] and back.rows == [("a", 1)]  # counted from zero again
    assert op.entries(state) == 2  # a and b: one group each


# -- Top-N ---------------------------------------------------------------------------------------------


def topn(n: int, function: str = ROW_NUMBER, *, rank: bool = False, strategy: str = RETRACT) -> TopN:
    fields = [("k", pa.string()), ("v", pa.int64())]
    if rank:
        fields.append(("rk", pa.int64()))
    return TopN(
        [0], [(1, True)], [pa.string(), pa.int64()], n, out_schema(fields),
        function=function, rank_position=2 if rank else None, strategy=strategy,
    )  # fmt: skip


def expected_topn(rows: list[tuple[Any, ...]], n: int, function: str) -> Counter[tuple[Any, ...]]:
    """Rows ranked by v descending, NULLs last (Flink), per k; the ranks of RANK/DENSE_RANK."""
    out: Counter[tuple[Any, ...]] = Counter()
    for k in {r[0] for r in rows}:
        part = sorted((r for r in rows if r[0] == k), key=lambda r: (r[1] is None, -(r[1] or 0)))
        values = [r[1] for r in part]
        for _i, r in enumerate(part):
            if function == RANK:
                rk = values.index(r[1]) + 1
            else:
                rk = len(dict.fromkeys(values[: values.index(r[1]) + 1]))
            if rk <= n:
                out[(*r, rk)] += 1
    return out


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 3))
def test_top_n_over_any_changelog_ends_in_the_top_n_of_its_final_table(data: Any, n: int) -> None:
    changes = data.draw(changelogs())
    got = apply_changelog(run(topn(n), [[table(FIELDS, part)] for part in split(data.draw, changes)]))
    rows = final(changes)
    # ties may be broken either way: compare per partition the multiset of order values kept
    want: Counter[tuple[Any, ...]] = Counter()
    for k in {r[0] for r in rows}:
        part = sorted((r for r in rows if r[0] == k), key=lambda r: (r[1] is None, -(r[1] or 0)))
        want.update(part[:n])
    assert Counter((r[0], r[1]) for r in got.elements()) == want


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from([RANK, DENSE_RANK]), st.integers(1, 3))
def test_rank_and_dense_rank_over_any_changelog_end_with_their_batch_ranks(data: Any, function: str, n: int) -> None:
    changes = data.draw(changelogs())
    op = topn(n, function, rank=True)
    got = apply_changelog(run(op, [[table(FIELDS, part)] for part in split(data.draw, changes)]))
    assert got == expected_topn(final(changes), n, function)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 3), st.booleans())
def test_appends_ranked_by_row_number_give_the_changes_of_the_general_strategy(data: Any, n: int, rank: bool) -> None:
    """AppendFastStrategy keeps only the top N and skips a row no better than a full partition's
    Nth: per partition, the same changes in the same order as RetractStrategy, which keeps every
    row (partitions may come out in another order)."""
    times = data.draw(st.booleans())  # a descending TIMESTAMP orders by a wrapped value, an integer by its negation
    value = st.datetimes(dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 2)) if times else st.integers(0, 5)
    fields = [("k", pa.string()), ("v", pa.timestamp("us") if times else pa.int64())]
    inserts = data.draw(st.lists(st.tuples(st.sampled_from("ab"), st.one_of(st.none(), value)), max_size=30))
    batches = [[table(fields, [(INSERT, r) for r in part])] for part in split(data.draw, inserts)]

    def op(strategy: str) -> TopN:
        out = [*fields, ("rk", pa.int64())] if rank else fields
        return TopN([0], [(1, True)], [f[1] for f in fields], n, out_schema(out), rank_position=2 if rank else None, strategy=strategy)

    fast, general = run(op(APPEND_FAST), batches), run(op(RETRACT), batches)
    for k in "ab":
        assert [c for c in fast if c[1][0] == k] == [c for c in general if c[1][0] == k]


def test_a_new_leader_moves_the_others_down_one_rank_each() -> None:
    op = topn(2, rank=True, strategy=APPEND_FAST)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", 5)), (INSERT, ("a", 3))])], [table(FIELDS, [(INSERT, ("a", 9))])]])
    assert out == [
        ("+I", ("a", 5, 1)),
        ("+I", ("a", 3, 2)),
        ("-U", ("a", 5, 1)),
        ("+U", ("a", 9, 1)),
        ("-U", ("a", 3, 2)),
        ("+U", ("a", 5, 2)),
    ]


def test_without_the_rank_number_a_row_pushed_out_is_deleted_and_the_newcomer_inserted() -> None:
    op = topn(2, strategy=APPEND_FAST)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", 5)), (INSERT, ("a", 3))])], [table(FIELDS, [(INSERT, ("a", 9))])]])
    assert out[2:] == [("+I", ("a", 9)), ("-D", ("a", 3))]


def test_descending_order_puts_nulls_last_as_flink_does() -> None:
    op = topn(2)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", None)), (INSERT, ("a", -1)), (INSERT, ("a", 4))])]])
    assert sorted(row for _, row in out) == [("a", -1), ("a", 4)]


def test_a_retraction_from_the_top_brings_back_the_next_row() -> None:
    op = topn(1)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", 5)), (INSERT, ("a", 3))])], [table(FIELDS, [(DELETE, ("a", 5))])]])
    assert out == [("+I", ("a", 5)), ("+I", ("a", 3)), ("-D", ("a", 5))]


# -- deduplication --------------------------------------------------------------------------------------


def test_keep_first_on_event_time_replaces_its_row_when_an_earlier_one_arrives() -> None:
    op = Deduplicate([0], 1, [pa.string(), pa.int64()], out_schema(FIELDS), keep_last=False, on_proctime=False)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", 5))])], [table(FIELDS, [(INSERT, ("a", 7)), (INSERT, ("a", 2))])]])
    assert out == [("+I", ("a", 5)), ("-U", ("a", 5)), ("+U", ("a", 2))]


def test_keep_last_on_event_time_keeps_the_latest_whatever_the_arrival_order() -> None:
    op = Deduplicate([0], 1, [pa.string(), pa.int64()], out_schema(FIELDS), keep_last=True, on_proctime=False)
    out = run(op, [[table(FIELDS, [(INSERT, ("a", 5)), (INSERT, ("b", 1))])], [table(FIELDS, [(INSERT, ("a", 3)), (INSERT, ("a", 8))])]])
    assert apply_changelog(out) == Counter({("a", 8): 1, ("b", 1): 1})
    assert out[2:] == [("-U", ("a", 5)), ("+U", ("a", 8))]


# -- joins -----------------------------------------------------------------------------------------------

L = [("k", pa.string()), ("v", pa.int64())]
R = [("k2", pa.string()), ("w", pa.int64())]


def join(kind: str) -> Join:
    fields = L if kind in (SEMI, ANTI) else [*L, *R]
    return Join(kind, [0], [0], 2, 2, out_schema(fields), counted=counted_sides(JoinKind(kind)))


def expected_join(kind: str, left: list[tuple[Any, ...]], right: list[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    out: Counter[tuple[Any, ...]] = Counter()

    def match(lrow: tuple[Any, ...], rrow: tuple[Any, ...]) -> bool:
        return lrow[0] is not None and lrow[0] == rrow[0]

    for lrow in left:
        matches = [r for r in right if match(lrow, r)]
        if (kind == SEMI and matches) or (kind == ANTI and not matches):
            out[lrow] += 1
        elif kind in (INNER, LEFT, FULL):
            for r in matches:
                out[(*lrow, *r)] += 1
            if not matches and kind != INNER:
                out[(*lrow, None, None)] += 1
    if kind == FULL:
        for r in right:
            if not any(match(lrow, r) for lrow in left):
                out[(None, None, *r)] += 1
    return out


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from([INNER, LEFT, FULL, SEMI, ANTI]))
def test_a_join_of_any_two_changelogs_ends_in_the_join_of_their_final_tables(data: Any, kind: str) -> None:
    left, right = data.draw(changelogs(max_size=15)), data.draw(changelogs(max_size=15))
    lparts, rparts = split(data.draw, left), split(data.draw, right)
    batches: list[list[pa.Table | None]] = []
    for i in range(max(len(lparts), len(rparts))):
        lt = table(L, lparts[i]) if i < len(lparts) else None
        rt = table(R, rparts[i]) if i < len(rparts) else None
        batches.append([lt, rt])
    got = apply_changelog(run(join(kind), batches))
    assert got == expected_join(kind, final(left), final(right))


def test_a_left_row_is_padded_until_its_first_match_and_again_after_its_last() -> None:
    out = run(
        join(LEFT),
        [
            [table(L, [(INSERT, ("a", 1))]), None],
            [None, table(R, [(INSERT, ("a", 10))])],
            [None, table(R, [(DELETE, ("a", 10))])],
        ],
    )
    assert out == [
        ("+I", ("a", 1, None, None)),
        ("-D", ("a", 1, None, None)),
        ("+I", ("a", 1, "a", 10)),
        ("-D", ("a", 1, "a", 10)),
        ("+I", ("a", 1, None, None)),
    ]


def test_changes_that_cancel_within_a_batch_are_not_emitted() -> None:
    out = run(join(LEFT), [[table(L, [(INSERT, ("a", 1))]), table(R, [(INSERT, ("a", 10))])]])
    assert out == [("+I", ("a", 1, "a", 10))]


def test_a_null_key_matches_nothing() -> None:
    out = run(join(INNER), [[table(L, [(INSERT, (None, 1))]), table(R, [(INSERT, (None, 10))])]])
    assert out == []


def test_a_row_with_a_null_key_is_emitted_alone_and_not_kept() -> None:
    """It can never match: an outer side's row is padded as it comes and goes, and no side keeps it."""
    op = join(LEFT)
    state = op.new_state()
    first = op.apply(state, [table(L, [(INSERT, (None, 1))]), table(R, [(INSERT, (None, 10))])], 0)
    assert op.entries(state) == 0
    assert [(KINDS[k], r) for k, r in zip(first.kinds, first.rows, strict=True)] == [("+I", (None, 1, None, None))]
    out = run(op, [[table(L, [(INSERT, (None, 1))]), None], [table(L, [(DELETE, (None, 1))]), None]])
    assert out == [("+I", (None, 1, None, None)), ("-D", (None, 1, None, None))]


def test_a_row_holding_nan_is_found_by_its_retraction_in_a_later_batch() -> None:
    """Flink's binary rows equal NaN to NaN; in Python every NaN read is one object, which the
    pickled state gives back as itself, so the held row is found and its match retracted."""
    fields = [("k3", pa.string()), ("x", pa.float64())]
    op = Join(LEFT, [0], [0], 2, 2, out_schema([*L, *fields]), counted=counted_sides(JoinKind(LEFT)))
    nan = float("nan")
    out = run(op, [
        [table(L, [(INSERT, ("a", 1))]), table(fields, [(INSERT, ("a", nan))])],
        [None, table(fields, [(DELETE, ("a", float("nan")))])],
    ])
    assert [(k, r[:3]) for k, r in out] == [("+I", ("a", 1, "a")), ("-D", ("a", 1, "a")), ("+I", ("a", 1, None))]
    assert math.isnan(out[1][1][3])


def test_spark_s_count_of_a_changelog_operator_s_state_is_shown_as_buckets() -> None:
    """Spark counts the state rows of transformWithState: one per bucket of keys, not one per
    key. Shown as such, never as keys."""
    from sqlengine.progress import from_progress

    snap = from_progress("q", {"stateOperators": [{"operatorName": "transformWithStateInPandasExec", "numRowsTotal": 64}]})
    assert [(o.name, o.rows) for o in snap.operators] == [("changelog operator (rows = buckets of keys)", 64)]


def test_the_keys_a_changelog_operator_gained_per_batch_add_up_to_what_it_keeps() -> None:
    """Each micro-batch reports the keys each changelog operator gained (an observed metric per
    node id); summed, they replace Spark's count of buckets, paired top-down (node id order)."""
    from sqlengine.progress import KEYS, ChangelogKeys, from_progress

    tws = {"operatorName": "transformWithStateInPandasExec", "numRowsTotal": 3}
    native = {"operatorName": "stateStoreSave", "numRowsTotal": 7}
    counter = ChangelogKeys()

    def batch(n: int, gained: dict[str, int]):
        metrics = {k: {"bytes" if "bytes" in k else "keys": v} for k, v in gained.items()}
        progress = {"batchId": n, "stateOperators": [tws, native, tws], "observedMetrics": metrics}
        return counter.apply(from_progress("q", progress))

    batch(0, {"changelog-4": 10, "changelog-1": 2, "changelog-bytes-4": 900, "changelog-bytes-1": 150})
    snap = batch(1, {"changelog-4": -3, "changelog-1": 1, "changelog-bytes-4": -200, "changelog-bytes-1": 50})
    assert [(o.name, o.rows) for o in snap.operators] == [(KEYS, 3), ("stateStoreSave", 7), (KEYS, 7)]
    # and the bytes of their stored state, in place of RocksDB's memory
    assert [o.bytes for o in snap.operators][::2] == [200, 700]
    assert snap.metrics == {}
    assert [o.rows for o in batch(2, {}).operators] == [3, 7, 7]  # a batch without data keeps the counts
