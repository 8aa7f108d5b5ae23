"""MATCH_RECOGNIZE on event time (or processing time: below), as a changelog operator: per partition, rows wait until the
watermark passes their time, are taken in time order (one time's rows in arrival order), and run
through the pattern's automaton as Flink's CEP library runs them; each complete match comes out
as one row (ONE ROW PER MATCH): the partition key, then the measures.

The automaton (Flink's NFA, in the shape its SQL pattern takes: a sequence of quantified
variables). A partial match is where it stands in the pattern (term ``i``, ``c`` rows taken by
it) and the rows it has taken. A row extends each partial match in every way the pattern allows:
taken by the current variable again (its quantifier allows more, its DEFINE holds), or, once the
variable has its minimum, by the next one (and past optional ones). A greedy variable that can
take the row keeps it: the next variable may not have it (Flink adds NOT(the loop's condition) to
the next variable's). A reluctant one lets the next variable try first. Every row also starts a
partial match of its own. A partial match that took its last row and can end is a match; matches
come out in the order of their first rows, and after each the AFTER MATCH strategy discards the
partial matches (and matches not yet out) that start where the next match may not:
PAST LAST ROW, at or before its last row; TO NEXT ROW, at or before its first row; TO FIRST v /
TO LAST v, before v's first / last row.

Ordered by processing time, the wall clock stands for the watermark: a micro-batch's rows (which
share their processing time) go through at once, in arrival order, and WITHIN times out on the
clock (processing-time timers). MATCH_ROWTIME() and MATCH_PROCTIME() are then the processing time
of the row that completes the match.

State, per partition key (``planner.analysis.state``: partial matches, released by WITHIN and the
watermark): ``pending`` (time -> rows waiting for the watermark) and ``partials``. With WITHIN, a
partial match whose first row is that long before a row (or the watermark) is dropped, as Flink
times it out. A key with nothing waiting and no partial match is gone. Rows at or before the
watermark the bucket last fired at are late and dropped, as Flink drops rows behind its watermark.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from planner.logical.evaluate import compile_expression
from planner.logical.match import MatchExpr, MatchSpec, Nav, NavKind, Skip
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import END_OF_TIME_MS, Changes, Operator
from sqlengine.changelog.values import DECIMAL_CONTEXT, Row, Typing, columns, order_key, thawed

# one row of a match: (variable's index in the pattern, the row's sequence number, time ms, row)
Taken = tuple[int, int, int, Row]


class MatchError(RuntimeError):
    """A match that AFTER MATCH SKIP TO cannot go on from: the job fails, as Flink's does."""


def _as_time(ms: int, like: Any) -> Any:
    """Epoch milliseconds as a value of the time attribute's kind (naive, or aware when ``like`` is)."""
    t = _EPOCH + datetime.timedelta(milliseconds=min(ms, END_OF_TIME_MS))
    return t.replace(tzinfo=datetime.UTC) if getattr(like, "tzinfo", None) is not None else t


_EPOCH = datetime.datetime(1970, 1, 1)


class Partial:
    """A partial match: term ``i`` of the pattern has taken ``c`` rows; ``rows`` in order."""

    __slots__ = ("c", "i", "rows")

    def __init__(self, rows: tuple[Taken, ...], i: int, c: int) -> None:
        self.rows, self.i, self.c = rows, i, c

    @property
    def start(self) -> int:
        return self.rows[0][1]

    @property
    def start_ms(self) -> int:
        return self.rows[0][2]

    def __getstate__(self) -> tuple[Any, ...]:
        return (self.rows, self.i, self.c)

    def __setstate__(self, s: tuple[Any, ...]) -> None:
        self.rows, self.i, self.c = s


class Evaluator:
    """A DEFINE condition or a measure over the rows of a (partial) match."""

    def __init__(self, expr: MatchExpr, variables: Sequence[str]) -> None:
        self.navs = expr.navs
        self.fn = compile_expression(expr.tree, [MatchExpr.slot(i) for i in range(len(expr.navs))])
        index = {v: i for i, v in enumerate(variables)}
        # per read: (kind, the variable's index (-1: every row; -2: one the pattern lacks), ...)
        self.reads = [(n.kind, -1 if n.var is None else index.get(n.var, -2), n.column, n.offset, n) for n in expr.navs]

    def __call__(self, rows: Sequence[Taken], time: Any = None) -> Any:
        """``time``: MATCH_ROWTIME(), the time the match comes out at."""
        return self.fn([self._read(r, rows, time) for r in self.reads])

    @staticmethod
    def _read(read: tuple[NavKind, int, int | None, int, Nav], rows: Sequence[Taken], time: Any) -> Any:
        kind, var, column, offset, nav = read
        if kind == NavKind.LAST:  # from the end: the common case (A.x) stops at once
            for r in reversed(rows):
                if var == -1 or r[0] == var:
                    if offset == 0:
                        return r[3][column] if column is not None else None
                    offset -= 1
            return None
        if kind == NavKind.ROWTIME:
            return time
        mine = rows if var == -1 else [r for r in rows if r[0] == var]
        if kind == NavKind.AGG:
            return _aggregate(nav, mine)
        if offset >= len(mine) or column is None:  # FIRST
            return None
        return mine[offset][3][column]


def _aggregate(nav: Nav, rows: Sequence[Taken]) -> Any:
    if nav.column is None:  # COUNT(*), COUNT(A.*)
        return len(rows)
    values = [r[3][nav.column] for r in rows if r[3][nav.column] is not None]
    if nav.func == "COUNT":
        return len(values)
    if not values:
        return None
    if nav.func == "MIN":
        return min(values)
    if nav.func == "MAX":
        return max(values)
    total = sum(values[1:], values[0])
    if nav.func == "SUM":
        return total
    if isinstance(total, int):  # AVG of integers truncates, as Flink's (sum DIV count)
        q = abs(total) // len(values)
        return q if total >= 0 else -q
    return total / len(values)


class MatchRecognize(Operator):
    name = "MATCH_RECOGNIZE"
    timed = True

    def __init__(
        self, keys: Sequence[int], n_fields: int, order_pos: int, spec: MatchSpec, out_schema: pa.Schema,
        then_by: Sequence[tuple[int, bool]] = (), types: Sequence[pa.DataType] = (), processing: bool = False,
    ) -> None:
        """``keys``: the partition key's positions in the input row of ``n_fields`` columns;
        ``order_pos``: the time attribute's position; ``then_by``: the ORDER BY keys after it
        (position, descending), which order the rows of one time (``types``: the input's);
        ``processing``: ordered by processing time (the wall clock stands for the watermark)."""
        super().__init__(out_schema, None)
        if processing:
            # rows come in the clock's order: each batch's rows go through as they come (the
            # processor fires with the clock), and WITHIN times out on processing-time timers
            self.timed, self.clock = False, "processing"
        self.keys, self.n_fields, self.order_pos = tuple(keys), n_fields, order_pos
        self.then_by, self.types = tuple(then_by), tuple(types)
        self.spec = spec
        self.terms = spec.terms

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("_compiled", None)  # functions: built again where it runs
        d.pop("_types", None)
        d.pop("_then_key_fn", None)
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)

    # -- the pattern's pieces, compiled once per process ---------------------------------------

    def _conditions(self) -> tuple[list[Callable[[Sequence[Taken]], Any] | None], list[Evaluator], list[bool], list[bool]]:
        got = getattr(self, "_compiled", None)
        if got is None:
            names = [t.var for t in self.terms]
            defined = dict(self.spec.defines)
            conds: list[Callable[[Sequence[Taken]], Any] | None] = [
                Evaluator(defined[v], names) if v in defined else None for v in names
            ]
            measures = [Evaluator(m, names) for _, m in self.spec.measures]
            # whether a partial match may end right after term i took a row (with c >= min):
            # the terms after it all optional and none a greedy loop (which waits for a row)
            ends = []
            for i in range(len(self.terms)):
                rest = self.terms[i + 1 :]
                ends.append(all(t.min == 0 and not t.greedy_loop for t in rest))
            got = self._compiled = (conds, measures, ends, [t.greedy_loop for t in self.terms])
        return got

    # -- the operator ----------------------------------------------------------------------------

    def new_state(self) -> Any:
        return {"parts": {}, "waiting": {}, "watermark": None}

    def entries(self, state: Any) -> int:
        return len(state["parts"])

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        parts: dict[Any, dict[str, Any]] = state["parts"]
        cols = columns(batch, 1)
        times, fields = cols[0], cols[1 : 1 + self.n_fields]
        late = state["watermark"]
        for ts, row in zip(times, zip(*fields, strict=True), strict=True):
            if ts is None or (late is not None and ts <= late):
                continue  # no place in the order, or behind the watermark
            key = tuple(row[i] for i in self.keys)
            part = parts.get(key)
            if part is None:
                part = parts[key] = {"pending": {}, "partials": [], "done": [], "seq": 0}
            part["pending"].setdefault(ts, []).append(row)
            state["waiting"][key] = None
        return Changes()

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        out = Changes()
        parts: dict[Any, dict[str, Any]] = state["parts"]
        waiting: dict[Any, None] = state["waiting"]
        within = self.spec.within_ms
        state["watermark"] = watermark_ms
        with decimal.localcontext(DECIMAL_CONTEXT):
            for key in list(waiting):
                part = parts[key]
                pending: dict[int, list[Row]] = part["pending"]
                for ts in sorted(t for t in pending if t <= watermark_ms):
                    rows = pending.pop(ts)
                    if self.then_by:  # a stable sort: arrival order where the keys are equal too
                        rows.sort(key=self._then_key())
                    for row in rows:
                        part["seq"] += 1
                        self._step(part, key, (part["seq"], ts, row), out)
                if not pending:
                    del waiting[key]
            if within is not None:  # partial matches the watermark has timed out
                for key, part in parts.items():
                    kept = [p for p in part["partials"] if watermark_ms - p.start_ms < within]
                    if len(kept) < len(part["partials"]):
                        sample = part["partials"][0].rows[0][3][self.order_pos]
                        part["partials"] = kept
                        # a match held back for them may go; it comes out at the watermark's time
                        self._release(part, key, out, _as_time(watermark_ms, sample))
            for key in [k for k, p in parts.items() if not p["pending"] and not p["partials"] and not p["done"]]:
                del parts[key]
        return out

    def next_time(self, state: Any) -> int | None:
        """The bucket's timer: its earliest waiting row, or with WITHIN the time its oldest partial
        match times out (Flink's timer at start + WITHIN): a match held back for it goes out then,
        with no more input, and the partition's state is released."""
        parts = state["parts"]
        times = [min(parts[k]["pending"]) for k in state["waiting"]]
        within = self.spec.within_ms
        if within is not None:
            times += [min(p.start_ms for p in part["partials"]) + within for part in parts.values() if part["partials"]]
        return min(times) if times else None

    # -- the automaton -------------------------------------------------------------------------

    def _step(self, part: dict[str, Any], key: Row, row: tuple[int, int, Row], out: Changes) -> None:
        seq, ts, values = row
        within = self.spec.within_ms
        live = [p for p in part["partials"] if within is None or ts - p.start_ms < within]
        live.append(Partial((), 0, 0))  # every row may start a match
        partials: list[Partial] = []
        done: list[Partial] = part["done"]
        for p in live:
            for q in self._extend(p, (0, seq, ts, values)):
                (done if q.i < 0 else partials).append(q)
        part["partials"] = partials
        self._release(part, key, out, values[self.order_pos])

    def _release(self, part: dict[str, Any], key: Row, out: Changes, time: Any) -> None:
        """Emit the complete matches no partial match started before (Flink holds a match back
        while one that started earlier may still complete: matches come out in the order of their
        first rows); after each, the AFTER MATCH strategy discards partial matches and held
        matches that start where the next match may not."""
        if not part["done"]:
            return
        done: list[Partial] = sorted(part["done"], key=lambda m: m.start)
        partials: list[Partial] = part["partials"]
        while done and (not partials or done[0].start <= min(p.start for p in partials)):
            m = done.pop(0)
            self._emit(key, m, out, time)
            # what survives starts after the bound (at it too, when ``inclusive`` is False)
            bound, inclusive = self._skip_bound(m)
            first = bound + 1 if inclusive else bound
            done = [x for x in done if x.start >= first]
            partials = [x for x in partials if x.start >= first]
        part["done"], part["partials"] = done, partials

    def _extend(self, p: Partial, taken: Taken) -> list[Partial]:
        """The partial matches ``p`` becomes by taking the row, in order of preference; a complete
        match has ``i`` -1."""
        conds, _, ends, greedy = self._conditions()
        terms = self.terms
        out: list[Partial] = []

        def go(i: int, c: int) -> None:
            term = terms[i]
            room = term.max is None or c < term.max
            holds = False
            if room or greedy[i]:
                rows = (*p.rows, (i, *taken[1:]))
                cond = conds[i]
                holds = cond is None or cond(rows) is True
            if room and holds:
                out.append(self._maybe_done(Partial(rows, i, c + 1), ends))
            # a row a greedy loop's condition holds for is never the next variable's, even when
            # the loop is full (Flink adds NOT(its condition) to the next variable's edges)
            if c >= term.min and i + 1 < len(terms) and not (greedy[i] and holds):
                go(i + 1, 0)

        go(p.i, p.c)
        return out

    def _maybe_done(self, p: Partial, ends: list[bool]) -> Partial:
        term = self.terms[p.i]
        full = term.max is not None and p.c >= term.max
        if p.c >= term.min and ends[p.i] and (full or not term.greedy_loop):
            return Partial(p.rows, -1, 0)
        return p

    def _skip_bound(self, m: Partial) -> tuple[int, bool]:
        """The row sequence number partial matches may not start at or before (``inclusive``)
        or before (not ``inclusive``)."""
        skip = self.spec.skip
        if skip == Skip.PAST_LAST_ROW:
            return m.rows[-1][1], True
        if skip == Skip.TO_NEXT_ROW:
            return m.rows[0][1], True
        var = [t.var for t in self.terms].index(self.spec.skip_var or "")
        mine = [r[1] for r in m.rows if r[0] == var]
        # Flink fails the job in these two cases (its planner asks the skip to throw on a miss)
        if not mine:
            raise MatchError(f"Could not skip to {self.spec.skip_var}. No such element in the found match")
        target = mine[0] if skip == Skip.TO_FIRST else mine[-1]
        if target == m.rows[0][1]:
            raise MatchError("Could not skip to first element of a match.")
        return target, False

    def _emit(self, key: Row, m: Partial, out: Changes, time: Any) -> None:
        """``time``: MATCH_ROWTIME(), the time of the row (or watermark) that lets the match out,
        as in Flink: its own last row's, unless it was held back for an earlier partial match."""
        measures = self._conditions()[1]
        typings = self._typings()
        values = thawed(tuple(f(m.rows, time) for f in measures))
        out.emit(INSERT, (*thawed(key), *(t.cast(v) for t, v in zip(typings, values, strict=True))))

    def _then_key(self) -> Callable[[Row], Any]:
        got = getattr(self, "_then_key_fn", None)
        if got is None:
            got = self._then_key_fn = order_key(self.then_by, self.types)
        return got

    def _typings(self) -> list[Typing]:
        # each measure made its column's type (a decimal at its scale, a long that wraps)
        got = getattr(self, "_types", None)
        if got is None:
            got = self._types = [Typing.of(f.type) for f in list(self.out_schema)[1 + len(self.keys) :]]
        return got
