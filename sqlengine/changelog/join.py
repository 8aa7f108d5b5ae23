"""A regular join over changelogs (Flink's StreamingJoinOperator and StreamingSemiAntiJoinOperator):
INNER, LEFT, RIGHT and FULL OUTER without a time bound, and the semi and anti joins of ``IN`` and
``NOT IN`` subqueries; either input may update.

Inputs: the left rows and the right rows, each the row kind then the side's fields. The equality
of keys (``equi``) finds the candidates; the rest of the condition (``residual``, evaluated by
``planner.logical.evaluate``) decides which of them match. A NULL key matches nothing: its row is
emitted alone (an outer side's padded, an anti join's left) and not kept.

State layout, per side and join key (``planner.analysis.state``: "every row of <side>", with the number
of matches on an outer, semi or anti side): ``{row: held}``: each distinct row with how many
times the side holds it and, where it matters, how many rows of the other side it matches, one
int (``matches << 32 | count``: a state of ints pickles 3x faster than one of [count, matches]
lists, and the whole bucket is pickled each micro-batch). Nothing releases a row but its
retraction, or the state TTL (from when it was stored).

Output, as Flink's: +I and -D only. An outer side's row without a match is emitted padded with
NULLs; its first match retracts the padded row, and retracting its last match emits it again.
A semi join emits a left row at its first match and retracts it at its last; an anti join the
other way round. The changes of one micro-batch are netted (a padded row emitted and retracted
within the batch is not emitted at all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import DELETE, INSERT, SIGN
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import Row, columns, thawed

INNER, LEFT, RIGHT, FULL, SEMI, ANTI = "INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI"
Predicate = Callable[[Row], Any]
COUNT = (1 << 32) - 1  # a held row's count: the low 32 bits; its matches: the bits above
MATCH = 1 << 32


class Join(Operator):
    name = "join"
    inputs = 2

    def __init__(
        self,
        kind: str,
        left_keys: Sequence[int],
        right_keys: Sequence[int],
        left_width: int,
        right_width: int,
        out_schema: pa.Schema,
        *,
        counted: tuple[bool, bool],
        residual: Predicate | None = None,
        ttl_ms: tuple[int | None, int | None] = (None, None),
    ) -> None:
        super().__init__(out_schema, None)
        self.kind = kind
        self.keys = (tuple(left_keys), tuple(right_keys))
        self.widths = (left_width, right_width)
        self.residual = residual
        self.ttls = ttl_ms
        # which sides count their matches, as the planner decided (planner.analysis.physical.counted_sides)
        self.counted = counted

    def new_state(self) -> Any:
        return {
            "sides": ({}, {}),
            "ttl": tuple(Expiry(t) if t else None for t in self.ttls),
        }

    def entries(self, state: Any) -> int:
        # the distinct rows held on both sides: a join without an equi key holds all of them
        # under one key, so keys would not show its growth
        return sum(len(rows) for side in state["sides"] for rows in side.values())

    # -- rows ----------------------------------------------------------------------------------

    def _joined(self, side: int, row: Row, other: Row | None) -> Row:
        """The output row of ``row`` (of ``side``) with ``other`` (None: NULLs)."""
        if self.kind in (SEMI, ANTI):
            return row
        pad = (None,) * self.widths[1 - side] if other is None else other
        return (*row, *pad) if side == 0 else (*pad, *row)

    def _matches(self, side: int, row: Row, other: Row) -> bool:
        if self.residual is None:
            return True
        left, right = (row, other) if side == 0 else (other, row)
        return self.residual((*left, *right)) is True

    def _emits_padded(self, side: int) -> bool:
        """Whether a row of ``side`` without a match is in the output: an outer side (padded),
        or the left of an anti join."""
        return (side == 0 and self.kind in (LEFT, FULL, ANTI)) or (side == 1 and self.kind in (RIGHT, FULL))

    def _emits_matched(self) -> bool:
        return self.kind not in (ANTI,)

    # -- one micro-batch -----------------------------------------------------------------------

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        sides: tuple[dict[Any, dict[Row, int]], ...] = state["sides"]
        expiries: tuple[Expiry | None, ...] = state["ttl"]
        net: Counter[tuple[Row, ...]] = Counter()  # output row -> net count of this batch
        order: dict[Row, None] = {}

        def emit(row: Row, n: int) -> None:
            net[row] += n
            order.setdefault(row, None)

        for side, batch in enumerate(inputs):
            if batch is None:
                continue
            cols = columns(batch, 0)
            kinds = cols[0]
            rows: list[Row] = list(zip(*cols[1:], strict=True))
            for kind, row in zip(kinds, rows, strict=True):
                self._one(side, SIGN[kind], row, sides, expiries, now_ms, emit)
        for side, expiry in enumerate(expiries):
            if expiry is not None:
                for entry in expiry.expire(now_ms):
                    jk, row = entry  # (join key, row) entries
                    bucket = sides[side].get(jk)
                    if bucket is not None:
                        bucket.pop(row, None)
                        if not bucket:
                            del sides[side][jk]
        out = Changes()
        for row in order:  # retractions first, then insertions (the table never holds a negative count)
            for _ in range(-net[row]):
                out.emit(DELETE, thawed(row))
        for row in order:
            for _ in range(net[row]):
                out.emit(INSERT, thawed(row))
        return out

    def _one(
        self,
        side: int,
        sign: int,
        row: Row,
        sides: tuple[dict[Any, dict[Row, int]], ...],
        expiries: tuple[Expiry | None, ...],
        now_ms: int,
        emit: Callable[[Row, int], None],
    ) -> None:
        jk = tuple(row[i] for i in self.keys[side])
        if None in jk:  # no match ever: alone, padded, on a side that emits it so; not kept
            if self._emits_padded(side):
                emit(self._joined(side, row, None), sign)
            return
        own, other = sides[side], sides[1 - side]
        expiry = expiries[side]
        entries = own.get(jk)
        held = entries.get(row) if entries is not None else None
        if entries is not None and held is not None and expiry is not None and not expiry.alive((jk, row), now_ms):
            del entries[row]  # idle longer than the TTL: gone, nothing retracted
            held = None
        if sign < 0 and held is None:
            return  # the retraction of a row this side does not hold
        # the rows of the other side this row matches (a NULL key matches nothing)
        matches: list[tuple[Row, int]] = []
        other_entries = other.get(jk)
        if other_entries:
            other_expiry = expiries[1 - side]
            for o, o_held in other_entries.items():
                if other_expiry is not None and not other_expiry.alive((jk, o), now_ms):
                    continue
                if self._matches(side, row, o):
                    matches.append((o, o_held & COUNT))
        n_matches = sum(n for _, n in matches)
        semi_anti = self.kind in (SEMI, ANTI)
        if side == 0 or not semi_anti:
            # this row's own output: joined with each match, or alone (padded) when it has none
            if n_matches:
                if self._emits_matched():
                    if semi_anti:
                        emit(self._joined(side, row, None), sign)
                    else:
                        for o, n in matches:
                            emit(self._joined(side, row, o), sign * n)
            elif self._emits_padded(side):
                emit(self._joined(side, row, None), sign)
        # the other side's rows it matches: a padded row loses (or regains) its last match
        if self.counted[1 - side] and other_entries:
            o_side = 1 - side
            for o, n in matches:
                before = other_entries[o]
                after = other_entries[o] = before + sign * MATCH
                if (before < MATCH) == (after < MATCH):
                    continue  # still matched, or still unmatched
                now_matched = after >= MATCH
                if self._emits_padded(o_side):  # outer side or anti-join left: its padded row goes or comes back
                    emit(self._joined(o_side, o, None), -n if now_matched else n)
                if self.kind == SEMI:  # a semi join's left row appears with its first match
                    emit(self._joined(o_side, o, None), n if now_matched else -n)
        # store or release the row
        if entries is None:
            entries = own.setdefault(jk, {})
        if held is None:
            held = n_matches * MATCH
        held += sign
        if held & COUNT == 0:  # no copy left (a held row has a count of 1 or more)
            entries.pop(row, None)
            if not entries:
                del own[jk]
            if expiry is not None:
                expiry.forget((jk, row))
        else:
            entries[row] = held
            if expiry is not None and sign > 0:
                expiry.touch((jk, row), now_ms)
