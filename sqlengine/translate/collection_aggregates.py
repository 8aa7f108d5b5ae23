"""ARRAY_AGG, COLLECT, JSON_ARRAYAGG and JSON_OBJECTAGG with Flink's results, composed of Spark's
collect_list (which skips NULLs, so a value that must stay is wrapped in a struct first):

- ARRAY_AGG(x): the values in arrival order, NULLs kept (IGNORE NULLS drops them); NULL when none;
- COLLECT(x): a MULTISET, as sqlengine carries it (a map of each value to its count), NULLs skipped;
- JSON_ARRAYAGG(x): a JSON array text, NULLs absent (NULL ON NULL keeps them);
- JSON_OBJECTAGG(KEY k VALUE v): a JSON object text, its keys sorted as Flink writes them, NULL
  values kept (ABSENT ON NULL drops them); a repeated key fails the job, in Flink too.

``sqlengine.changelog.collections`` gives the same results over a changelog.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp

from planner.logical import typing as T
from planner.logical.specs import AggCall, AggFunc
from sqlengine.translate.json_functions import json_text

FUNCTIONS = frozenset({AggFunc.ARRAY_AGG, AggFunc.COLLECT, AggFunc.JSON_ARRAYAGG, AggFunc.JSON_OBJECTAGG})


def collection_sql(agg: AggCall, args: list[str], types: list[exp.DataType], filter_: str | None,
                   part: Callable[[str], str] = str) -> str:
    """``agg`` over the argument columns ``args`` (Spark SQL, of bound types ``types``), as Spark
    SQL. ``part`` turns its collect_list call into what stands for it: the call itself in a GROUP
    BY, a column of the call over a window for OVER (Spark's ``over`` takes a bare aggregate call)."""
    conditions = [filter_] if filter_ is not None else []
    if agg.func == AggFunc.JSON_OBJECTAGG:
        key, value = args
        if not agg.keeps_nulls:
            conditions.append(f"{value} IS NOT NULL")
        pair = f"named_struct('k', CAST({key} AS STRING), 'v', {value})"  # a JSON key is a string
        entries = f"array_sort({part(_collect(pair, conditions))}, (a, b) -> CASE WHEN a.k < b.k THEN -1 WHEN a.k > b.k THEN 1 ELSE 0 END)"
        return _json_object(entries, types[1])
    (x,) = args
    if agg.keeps_nulls:  # a struct is never NULL, so collect_list keeps it
        wrapped = f"named_struct('v', {x})"
        values = f"transform({part(_collect(wrapped, conditions))}, s -> s.v)"
    else:
        values = part(_collect(x, conditions))
    if agg.distinct:
        values = f"array_distinct({values})"
    if agg.func == AggFunc.ARRAY_AGG:
        return f"CASE WHEN size({values}) = 0 THEN NULL ELSE {values} END"
    if agg.func == AggFunc.JSON_ARRAYAGG:
        return f"concat('[', array_join(transform({values}, {_V} -> {_json(_V, types[0])}), ','), ']')"
    # COLLECT: each distinct value and how many times it came
    return (f"map_from_arrays(array_distinct({values}), "
            f"transform(array_distinct({values}), d -> coalesce(size(filter({values}, e -> e <=> d)), 0)))")


_V, _E = "sqe_value", "sqe_entry"


def _json(value: str, t: exp.DataType) -> str:
    """A value's JSON text as Flink writes it (``json_functions.json_text``: a double's exponent
    with its sign)."""
    return json_text(sqlglot.parse_one(value, read="spark"), t).sql(dialect="spark")


def _json_object(entries: str, value_type: exp.DataType) -> str:
    """The sorted entries as a JSON object (a key is written as a string); a NULL key or a key
    given twice fails the job, as in Flink."""
    keys = f"transform({entries}, {_E} -> {_E}.k)"
    twice = f"element_at(filter({keys}, {_V} -> size(filter({keys}, x -> x = {_V})) > 1), 1)"
    member = f"concat({_json(f'{_E}.k', T.STRING)}, ':', {_json(f'{_E}.v', value_type)})"
    return (f"CASE WHEN exists({keys}, {_V} -> {_V} IS NULL) "
            f"THEN raise_error('A key of JSON_OBJECTAGG is NULL; JSON object keys cannot be NULL.') "
            f"WHEN size(array_distinct({keys})) < size({keys}) "
            f"THEN raise_error(concat('Key \\'', {twice}, '\\' is already present. Duplicate keys are not allowed in "
            f"JSON_OBJECTAGG. Please ensure that keys are unique.')) "
            f"ELSE concat('{{', array_join(transform({entries}, {_E} -> {member}), ','), '}}') END")


def _collect(value: str, conditions: list[str]) -> str:
    where = f" FILTER (WHERE {' AND '.join(f'({c})' for c in conditions)})" if conditions else ""
    return f"collect_list({value}){where}"
