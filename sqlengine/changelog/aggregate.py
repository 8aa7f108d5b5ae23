"""Group aggregation over a changelog (Flink's GroupAggFunction with retraction).

Input: the row kind, the group key columns, then per aggregate call its argument columns and,
with a FILTER clause, the filter's value (all computed by Spark before the rows come in).

State layout, per group key (``planner.analysis.state`` says "one accumulator per group key"):
``[rows, acc_1, ..., acc_n, emitted]``: the number of input rows the group holds (+1 for each
+I/+U, -1 for each -U/-D), one accumulator per aggregate call, and the row last emitted for the
group. An accumulator is a count, a (sum, count) pair, the extreme value (MIN/MAX over an
insert-only input), or a multiset of values with their counts (MIN/MAX over an updating input,
so that retracting the maximum falls back to the next; DISTINCT aggregates). Nothing releases a
group but its last row being retracted (its count back to 0) or the state TTL.

Output per micro-batch and group (as Flink does with mini-batches): +I for a new group, -U/+U
when its row changed, -D when its last row was retracted; nothing when the row is unchanged.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.collections import FUNCTIONS as COLLECTING
from sqlengine.changelog.collections import Collected
from sqlengine.changelog.kinds import DELETE, INSERT, SIGN, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.ordered import FirstLast, Lag, ListAgg
from sqlengine.changelog.user_aggregate import UserAggregate
from sqlengine.changelog.values import DECIMAL_CONTEXT, NAN, Typing, columns, freezer, same_row, thaw, value_key
from sqlengine.changelog.variance import FUNCTIONS as VARIANCE_FUNCTIONS
from sqlengine.changelog.variance import Sums, Welford

_MISSING = object()
AS_IS = Typing("as-is")
COMBINE_FROM = 64  # rows in a batch from which it is aggregated by key first


@dataclass(frozen=True)
class AggCallSpec:
    func: str  # COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG, STDDEV_POP, ..., USER_DEFINED
    distinct: bool = False
    star: bool = False  # COUNT(*)
    args: int = 1  # argument columns
    filtered: bool = False  # a FILTER column follows the arguments
    typing: Typing = AS_IS  # the result's type, as the batch engine gives it
    keep_nulls: bool = False  # ARRAY_AGG and the JSON aggregates: NULL values are held (AggCall.keeps_nulls)
    # a Python aggregate function (func USER_DEFINED): its class, its name in the job (for its
    # errors), its SQL name and its declared result type
    function: type | None = None
    label: str = ""
    name: str = ""
    result: pa.DataType | None = None
    offset: int = 1  # LAG's: how many rows back


class _CountStar(Accumulator):
    def new(self) -> Any:
        return 0

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        return acc + sign

    def value(self, acc: Any) -> Any:
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        return acc + other


class _Count(Accumulator):
    def new(self) -> Any:
        return 0

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        for a in args:
            if a is None:
                return acc
        return acc + sign

    def value(self, acc: Any) -> Any:
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        return acc + other


class _Sum(Accumulator):
    """SUM and AVG: [sum, count of non-NULL values]."""

    def __init__(self, typing: Typing, average: bool) -> None:
        self.typing, self.average = typing, average

    def new(self) -> Any:
        return [0, 0]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        v = args[0]
        if v is not None:
            acc[0] = acc[0] + v if sign > 0 else acc[0] - v
            acc[1] += sign
        return acc

    def value(self, acc: Any) -> Any:
        if acc[1] <= 0:
            return None
        return self.typing.divide(acc[0], acc[1]) if self.average else self.typing.cast(acc[0])

    def merge(self, acc: Any, other: Any) -> Any:
        return [acc[0] + other[0], acc[1] + other[1]]


class _Extreme(Accumulator):
    """MIN/MAX over an insert-only input: the best value so far."""

    def __init__(self, key: Callable[[Any], Any], largest: bool) -> None:
        self.key, self.largest = key, largest

    def new(self) -> Any:
        return None

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        v = args[0]
        if v is None:
            return acc
        if acc is None:
            return v
        better = self.key(v) > self.key(acc) if self.largest else self.key(v) < self.key(acc)
        return v if better else acc

    def value(self, acc: Any) -> Any:
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        return self.update(acc, [other], 1)


class _Multiset(Accumulator):
    """A multiset of values: {value: count}; MIN/MAX over an updating input (the extreme found
    again when it is retracted), and the DISTINCT aggregates."""

    def __init__(self, func: str, typing: Typing, key: Callable[[Any], Any]) -> None:
        self.func, self.typing, self.key = func, typing, key

    def new(self) -> Any:
        return {}

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        for a in args:
            if a is None:
                return acc
        v = args[0] if len(args) == 1 else tuple(args)
        if isinstance(v, float) and v != v:  # NaN: one value, as Flink's map of values and Spark's DISTINCT take every NaN
            v = NAN
        n = acc.get(v, 0) + sign
        if n > 0:
            acc[v] = n
        else:
            acc.pop(v, None)
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        for v, n in other.items():
            acc[v] = acc.get(v, 0) + n
        return acc

    def value(self, acc: Any) -> Any:
        f = self.func
        if f == "COUNT":
            return len(acc)
        if not acc:
            return None
        if f == "MIN":
            return min(acc, key=self.key)
        if f == "MAX":
            return max(acc, key=self.key)
        total = sum(acc, start=0)
        return self.typing.divide(total, len(acc)) if f == "AVG" else self.typing.cast(total)


def accumulator(spec: AggCallSpec, arg_type: pa.DataType | None, retracting: bool, over: bool = False) -> Accumulator:
    """One call's accumulator; ``retracting``: values may be taken back, so MIN/MAX keep every
    value; ``over``: in an OVER window (where Flink computes a variance from sums)."""
    key = value_key(arg_type) if arg_type is not None else (lambda v: v)
    if spec.function is not None:
        assert spec.result is not None
        return UserAggregate(spec.function, spec.label, spec.name, spec.result)
    if (spec.func == "COUNT" and spec.star) or spec.func == "ROW_NUMBER":  # an OVER ROWS frame numbers its rows
        return _CountStar()
    if spec.func == "LAG":
        return Lag(spec.offset, spec.args > 1)
    if spec.distinct and spec.func in ("COUNT", "SUM", "AVG"):
        return _Multiset(spec.func, spec.typing, key)
    if spec.func == "COUNT":
        return _Count()
    if spec.func in ("SUM", "AVG"):
        return _Sum(spec.typing, spec.func == "AVG")
    if spec.func in ("MIN", "MAX"):
        return _Multiset(spec.func, spec.typing, key) if retracting else _Extreme(key, spec.func == "MAX")
    if spec.func in ("FIRST_VALUE", "LAST_VALUE"):
        return FirstLast(spec.func == "LAST_VALUE", retracting)
    if spec.func == "LISTAGG":
        return ListAgg()
    if spec.func in COLLECTING:
        return Collected(spec.func, spec.keep_nulls, spec.distinct, freezer(arg_type) if arg_type is not None else None)
    if spec.func in VARIANCE_FUNCTIONS:  # computed one way in an OVER window, another elsewhere
        return Sums(spec.func, spec.typing) if over else Welford(spec.func, spec.typing)
    raise ValueError(f"no changelog implementation of {spec.func}")


def call_columns(calls: Sequence[AggCallSpec], cols: list[list[Any]], pos: int) -> tuple[list[list[list[Any]]], list[list[Any] | None]]:
    """Per call, from column ``pos`` on: its argument columns, and its FILTER column (or None)."""
    arg_cols: list[list[list[Any]]] = []
    filters: list[list[Any] | None] = []
    for c in calls:
        arg_cols.append(cols[pos : pos + c.args])
        pos += c.args
        filters.append(cols[pos] if c.filtered else None)
        pos += 1 if c.filtered else 0
    return arg_cols, filters


class GroupAggregate(Operator):
    name = "group aggregation"

    def __init__(
        self,
        n_keys: int,
        calls: Sequence[AggCallSpec],
        arg_types: Sequence[pa.DataType | None],
        retracting: bool,
        out_schema: pa.Schema,
        ttl_ms: int | None = None,
    ) -> None:
        super().__init__(out_schema, ttl_ms)
        self.n_keys = n_keys
        self.calls = tuple(calls)
        self.arg_types = tuple(arg_types)
        self.retracting = retracting

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)

    def _accumulators(self) -> list[Accumulator]:
        accs = getattr(self, "_accs", None)
        if accs is None:
            accs = [accumulator(c, t, self.retracting) for c, t in zip(self.calls, self.arg_types, strict=True)]
            self._accs = accs
        return accs

    def new_state(self) -> Any:
        return {"groups": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None}

    def entries(self, state: Any) -> int:
        return len(state["groups"])

    def end_of_input(self, state: Any) -> Changes | None:
        """Without GROUP BY, batch mode has one row over no input too: the initial values
        (COUNT 0, SUM NULL), as Flink's batch aggregation gives."""
        if self.n_keys or state["groups"]:
            return None
        out = Changes()
        out.emit(INSERT, tuple(a.value(a.new()) for a in self._accumulators()))
        return out

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        with decimal.localcontext(DECIMAL_CONTEXT):  # decimal sums with all their digits
            if self._combinable(batch):
                return self._apply_combined(state, batch)
            return self._apply(state, batch, now_ms)

    def _combinable(self, batch: pa.Table) -> bool:
        """Whether the batch can be folded in per key instead of per row: insert-only, no TTL,
        plain keys, and only COUNT, MIN and MAX (no DISTINCT, no FILTER) of values that Arrow
        orders as the batch engine does (integers, dates, times), each partial exact whatever the
        rows' order."""
        if self.retracting or self.ttl_ms or not self.n_keys or batch.num_rows < COMBINE_FROM:
            return False
        names = batch.schema.names
        for i in range(1, 1 + self.n_keys):  # keys Arrow groups as Python's dict does (no floats: NaN, -0.0)
            t = batch.schema.field(i).type
            if not (pa.types.is_integer(t) or pa.types.is_temporal(t) or pa.types.is_string(t) or pa.types.is_large_string(t)
                    or pa.types.is_boolean(t) or pa.types.is_decimal(t) or pa.types.is_binary(t)):
                return False
        pos = 1 + self.n_keys
        for c in self.calls:
            if c.distinct or c.filtered or c.function is not None or c.args > 1 or c.func not in ("COUNT", "MIN", "MAX"):
                return False
            if not c.star:
                t = batch.schema.field(pos).type
                if c.func != "COUNT" and not (pa.types.is_integer(t) or pa.types.is_temporal(t)):
                    return False
            pos += c.args
        return pos == len(names) and pc.all(pc.equal(batch.column(0), INSERT)).as_py() is True

    def _apply_combined(self, state: Any, batch: pa.Table) -> Changes:
        """As ``_apply`` over an insert-only batch, with each key's rows first aggregated by Arrow
        (rows, and per call the partial COUNT, MIN or MAX), then folded into its group once: the
        local-global aggregation Flink does with mini-batches, exact for these aggregates."""
        groups: dict[Any, list[Any]] = state["groups"]
        accs = self._accumulators()
        cols = {f"k{i}": batch.column(1 + i) for i in range(self.n_keys)}
        aggs: list[tuple[Any, str]] = [([], "count_all")]
        results = []  # per call, its partial's column in the result (COUNT(*): the rows)
        pos = 1 + self.n_keys
        for j, c in enumerate(self.calls):
            if c.star:
                results.append("count_all")
                continue
            func = "count" if c.func == "COUNT" else c.func.lower()
            cols[f"a{j}"] = batch.column(pos)
            aggs.append((f"a{j}", func))
            results.append(f"a{j}_{func}")
            pos += c.args
        key_names = [f"k{i}" for i in range(self.n_keys)]
        grouped = pa.table(cols).group_by(key_names, use_threads=False).aggregate(aggs)
        per_key = columns(grouped.select(key_names), 0)
        rows = grouped.column("count_all").to_pylist()
        partials = [grouped.column(name).to_pylist() for name in results]
        out = Changes()
        for i, key in enumerate(zip(*per_key, strict=True)):
            group = groups.get(key)
            before = None if group is None else group[-1]
            if group is None:
                group = [0, *(a.new() for a in accs), None]
                groups[key] = group
            group[0] += rows[i]
            for j, c in enumerate(self.calls):
                v = partials[j][i]
                if c.func == "COUNT":
                    group[j + 1] += v
                elif v is not None:
                    group[j + 1] = accs[j].update(group[j + 1], [v], 1)
            _emit_group(out, key, group, before, accs)
        return out

    def _apply(self, state: Any, batch: pa.Table, now_ms: int) -> Changes:
        groups: dict[Any, list[Any]] = state["groups"]
        expiry: Expiry | None = state["ttl"]
        accs = self._accumulators()
        n_calls = len(accs)
        cols = columns(batch, 0)
        kinds = cols[0]
        keys: list[Any] = list(zip(*cols[1 : 1 + self.n_keys], strict=True)) if self.n_keys else [()] * len(kinds)
        arg_cols, filters = call_columns(self.calls, cols, 1 + self.n_keys)
        touched: dict[Any, Any] = {}  # group key -> the row emitted before this batch (or None)
        for i, kind in enumerate(kinds):
            key = keys[i]
            group = groups.get(key)
            if group is not None and expiry is not None and key not in touched and not expiry.alive(key, now_ms):
                del groups[key]  # idle longer than the TTL: gone, and nothing retracted
                group = None
            sign = SIGN[kind]
            if group is None:
                if sign < 0:
                    continue  # a retraction of a group this operator does not hold (Flink ignores it)
                group = [0, *(a.new() for a in accs), None]
                groups[key] = group
            if key not in touched:
                touched[key] = group[-1]
            group[0] += sign
            for j in range(n_calls):
                f = filters[j]
                if f is not None and f[i] is not True:
                    continue
                group[j + 1] = accs[j].update(group[j + 1], [c[i] for c in arg_cols[j]], sign)
        out = Changes()
        for key, before in touched.items():
            group = groups[key]
            if group[0] <= 0:
                if before is not None:
                    out.emit(DELETE, before)
                del groups[key]
                if expiry is not None:
                    expiry.forget(key)
                continue
            _emit_group(out, key, group, before, accs, ttl=expiry is not None)
            if expiry is not None:
                expiry.touch(key, now_ms)
        if expiry is not None:
            expiry.drop_expired(groups, now_ms)
        return out


def _emit_group(out: Changes, key: Any, group: list[Any], before: Any, accs: Sequence[Accumulator], ttl: bool = False) -> None:
    """A group's row after the batch: +I when it is new, -U/+U when it changed (nothing when it
    is the row emitted before, as Flink's equaliser compares them, unless a state TTL is in force:
    Flink then emits it again, so that the operators after it keep their state of it alive), kept
    as the group's last emitted row."""
    row = (*(thaw(k) for k in key), *(accs[j].value(group[j + 1]) for j in range(len(accs))))
    if before is None:
        out.emit(INSERT, row)
    elif ttl or not same_row(row, before):
        out.emit(UPDATE_BEFORE, before)
        out.emit(UPDATE_AFTER, row)
    group[-1] = row
