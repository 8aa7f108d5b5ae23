"""ARRAY_AGG, COLLECT, JSON_ARRAYAGG and JSON_OBJECTAGG over a changelog, as Flink 2.3 computes
them (expected values from PyFlink, on the same inputs): NULL handling per function, a retraction
taking back the earliest equal value, JSON_OBJECTAGG's sorted keys and its refusal of a key twice;
and the bind errors Flink's parser gives for the NULL clauses and OVER."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from sqlengine.changelog.aggregate import AggCallSpec, accumulator
from sqlengine.changelog.collections import ObjectKeyError, java_double


def run(func: str, changes: list[tuple[int, tuple]], keep_nulls: bool = False, distinct: bool = False) -> object:
    acc = accumulator(AggCallSpec(func, distinct, args=len(changes[0][1]) if changes else 1, keep_nulls=keep_nulls), None, True)
    slot = acc.new()
    for sign, args in changes:
        slot = pickle.loads(pickle.dumps(acc.update(slot, list(args), sign)))  # kept in state between changes
    return acc.value(slot)


def adds(*values: object) -> list[tuple[int, tuple]]:
    return [(1, (v,)) for v in values]


def test_null_handling_as_flink() -> None:
    # Flink: ARRAY_AGG, COLLECT, JSON_ARRAYAGG of 1, NULL, 2, 1
    assert run("ARRAY_AGG", adds(1, None, 2, 1), keep_nulls=True) == [1, None, 2, 1]
    assert run("ARRAY_AGG", adds(1, None, 2, 1), keep_nulls=False) == [1, 2, 1]  # IGNORE NULLS
    assert sorted(run("COLLECT", adds(1, None, 2, 1))) == [(1, 2), (2, 1)]  # type: ignore[arg-type]
    assert run("JSON_ARRAYAGG", adds(1, None, 2, 1)) == "[1,2,1]"
    assert run("JSON_ARRAYAGG", adds(1, None, 2, 1), keep_nulls=True) == "[1,null,2,1]"  # NULL ON NULL
    pairs = [(1, (k, v)) for k, v in (("1", 1), ("2", None), ("3", 2), ("4", 1))]
    assert run("JSON_OBJECTAGG", pairs, keep_nulls=True) == '{"1":1,"2":null,"3":2,"4":1}'
    assert run("JSON_OBJECTAGG", pairs, keep_nulls=False) == '{"1":1,"3":2,"4":1}'  # ABSENT ON NULL


def test_nothing_held() -> None:
    # Flink: ARRAY_AGG gives NULL, COLLECT an empty multiset, the JSON aggregates [] and {}
    assert run("ARRAY_AGG", adds(1) + [(-1, (1,))], keep_nulls=True) is None
    assert run("COLLECT", adds(1) + [(-1, (1,))]) == []
    assert run("JSON_ARRAYAGG", adds(1) + [(-1, (1,))]) == "[]"
    assert run("JSON_OBJECTAGG", [(1, ("k", 1)), (-1, ("k", 1))], keep_nulls=True) == "{}"


def test_updates_in_flinks_order() -> None:
    # Flink, streaming: keys a, b, a, c counted, then grouped by count: the group of 1 gets a, b,
    # loses a (a's count became 2), gets c
    changes = [(1, ("a",)), (1, ("b",)), (-1, ("a",)), (1, ("c",))]
    assert run("ARRAY_AGG", changes, keep_nulls=True) == ["b", "c"]
    assert run("JSON_ARRAYAGG", changes) == '["b","c"]'
    assert run("JSON_OBJECTAGG", [(s, (k[0], 1)) for s, k in changes], keep_nulls=True) == '{"b":1,"c":1}'


def test_json_objectagg_writes_keys_sorted_and_refuses_one_twice() -> None:
    # Flink: keys b, a, zz, aa come out as {"a":..,"aa":..,"b":..,"zz":..}
    pairs = [(1, (k, i)) for i, k in enumerate(("b", "a", "zz", "aa"))]
    assert run("JSON_OBJECTAGG", pairs, keep_nulls=True) == '{"a":1,"aa":3,"b":0,"zz":2}'
    with pytest.raises(ObjectKeyError, match="Key 'a' is already present"):
        run("JSON_OBJECTAGG", [(1, ("a", 1)), (1, ("a", 2))], keep_nulls=True)
    with pytest.raises(ObjectKeyError, match="NULL"):
        run("JSON_OBJECTAGG", [(1, (None, 1))], keep_nulls=True)


def test_json_text_of_numbers_and_strings_as_flink_writes_it() -> None:
    # Flink: JSON_ARRAYAGG of 1.5, 2.0, 1e20 is [1.5,2.0,1.0E+20]
    assert [java_double(v) for v in (1.5, 2.0, 1e20, 12345678.0, 1.5e-5)] == [
        "1.5", "2.0", "1.0E+20", "1.2345678E+7", "1.5E-5"]
    assert run("JSON_ARRAYAGG", adds('c"x', "é")) == '["c\\"x","é"]'


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["a", "b", None])), max_size=25))
def test_after_retractions_the_result_is_that_of_the_values_held(changes) -> None:
    held: list[str | None] = []
    applied: list[tuple[int, tuple]] = []
    for add, v in changes:
        if not add and v not in held:
            continue  # only what is held is taken back (as a changelog does)
        held.append(v) if add else held.remove(v)
        applied.append((1 if add else -1, (v,)))
    assert run("ARRAY_AGG", applied, keep_nulls=True) == (held or None)
    assert run("ARRAY_AGG", applied, distinct=True, keep_nulls=True) == (list(dict.fromkeys(held)) or None)


def _bind_error(sql: str) -> str:
    ddl = "CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n"
    session = PlannerSession(Catalog.in_memory())
    with pytest.raises(SqlError) as info:
        for s in parse_script(ddl + sql).statements:
            session.execute(s)
    return str(info.value)


@pytest.mark.parametrize(("sql", "words"), [
    # Flink: "Cannot specify IGNORE NULLS or RESPECT NULLS following 'UPPER'" / "... 'LAST_VALUE'"
    ("SELECT UPPER(k) IGNORE NULLS FROM t", "Cannot specify IGNORE NULLS following `UPPER`"),
    ("SELECT LAST_VALUE(v) IGNORE NULLS FROM t", "IGNORE NULLS is not allowed in LAST_VALUE"),
    # Flink's parser: "Incorrect syntax near the keyword 'OVER'"
    ("SELECT JSON_ARRAYAGG(v) OVER (PARTITION BY k ORDER BY ts) FROM t", "JSON_ARRAYAGG takes no OVER clause"),
])
def test_what_flink_refuses_is_a_positioned_error(sql: str, words: str) -> None:
    message = _bind_error(sql)
    assert words in message and message.startswith("<input>:2:8: error:"), message


def test_array_agg_distinct_of_rows_keeps_the_first_of_each_in_one_pass() -> None:
    """Rows arrive as dicts (unhashable): DISTINCT compares them by their frozen form."""
    import pyarrow as pa

    row = pa.struct([("a", pa.int32()), ("b", pa.string())])
    acc = accumulator(AggCallSpec("ARRAY_AGG", True, keep_nulls=True), row, True)
    slot = acc.new()
    rows = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 1, "b": "x"}, {"a": 1, "b": "z"}, {"a": 2, "b": "y"}]
    for r in rows:
        slot = acc.update(slot, [r], 1)
    got = acc.value(slot)
    assert [(r["a"], r["b"]) for r in got] == [(1, "x"), (2, "y"), (1, "z")]
