"""The event-time temporal join (``JOIN r FOR SYSTEM_TIME AS OF l.rowtime``, Flink's
TemporalRowTimeJoinOperator), INNER or LEFT, as a changelog operator: each left (probe) row waits
until the watermark passes its time, then joins the version of its key that was valid at that
time.

Inputs: the left rows (kind, then the row's time in epoch milliseconds, then the left fields;
always +I: the planner refuses an updating probe side) and the right rows, the versions (kind,
the version's time in epoch milliseconds, the right fields). A right +I or +U is a new version
of its key at its time, a -D a deletion at its time (a key deleted at a time matches nothing
from then on), a -U is ignored (the +U that follows is the new version). A row whose time is
NULL has no place in time and is dropped; a NULL key matches nothing.

State layout, per bucket (``planner.analysis.state``: left rows until the watermark passes them,
the latest version per key): ``pending`` (time -> the left rows at that time, in arrival order,
each with its join key), ``versions`` (join key -> {version time: right row, or None for a
deletion}), ``releasable`` (the keys holding more than one version or a deletion: only they can
release something),
and, with a state TTL, when each key was last written to by either side.

Emission, as Flink's: when the watermark moves, the waiting left rows at or before it are taken
in time order; each joins the latest version of its key at or before its time, if that version
is no deletion and the rest of the condition (``residual``) holds for the pair; INNER emits only
matches, LEFT pads the others with NULLs. Output is insert-only. Then the versions the watermark
has passed are released except the latest of each key (a left row still to come may need it);
a key whose latest passed version is a deletion is released whole. A left row is released once
emitted. The state TTL (``table.exec.state.ttl``) releases a key idle on both sides for that
long, unless left rows of it still wait.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_BEFORE
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import Row, columns, thawed

INNER, LEFT = "INNER", "LEFT"
Predicate = Callable[[Row], Any]


class TemporalJoin(Operator):
    name = "temporal join"
    inputs = 2
    timed = True

    def __init__(
        self,
        kind: str,
        left_keys: Sequence[int],
        right_keys: Sequence[int],
        left_width: int,
        right_width: int,
        out_schema: pa.Schema,
        *,
        residual: Predicate | None = None,
        ttl_ms: int | None = None,
    ) -> None:
        """``left_keys``/``right_keys``: the equi-join keys' positions in each side's fields."""
        super().__init__(out_schema, ttl_ms)
        if kind not in (INNER, LEFT):
            raise ValueError(f"a temporal join is INNER or LEFT, not {kind}")
        self.kind = kind
        self.keys = (tuple(left_keys), tuple(right_keys))
        self.widths = (left_width, right_width)
        self.residual = residual

    def new_state(self) -> Any:
        return {"pending": {}, "versions": {}, "releasable": {}, "waiting": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None}

    def entries(self, state: Any) -> int:
        # rows held, as Spark counts a join's state: the waiting left rows and the versions
        waiting = sum(len(rows) for rows in state["pending"].values())
        return waiting + sum(len(v) for v in state["versions"].values())

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        """Hold the left rows until the watermark passes them; store the versions."""
        expiry: Expiry | None = state["ttl"]
        left, right = inputs
        if right is not None:
            cols = columns(right, 0)
            versions: dict[Any, dict[int, Row | None]] = state["versions"]
            for kind, ts, row in zip(cols[0], cols[1], zip(*cols[2:], strict=True), strict=True):
                if ts is None or kind == UPDATE_BEFORE:
                    continue
                jk = tuple(row[i] for i in self.keys[1])
                if None in jk:
                    continue  # matches nothing: not kept
                self._expire_if_idle(state, jk, now_ms)
                held = versions.setdefault(jk, {})
                held[ts] = None if kind == DELETE else row  # one version per time: the last written
                if len(held) > 1 or kind == DELETE:
                    state["releasable"][jk] = None
                if expiry is not None:
                    expiry.touch(jk, now_ms)
        if left is not None:
            cols = columns(left, 0)
            pending: dict[int, list[tuple[Any, Row]]] = state["pending"]
            for ts, row in zip(cols[1], zip(*cols[2:], strict=True), strict=True):
                if ts is None:
                    continue
                jk = tuple(row[i] for i in self.keys[0])
                if expiry is not None and None not in jk:
                    self._expire_if_idle(state, jk, now_ms)
                    expiry.touch(jk, now_ms)
                pending.setdefault(ts, []).append((jk, row))
                state["waiting"][jk] = state["waiting"].get(jk, 0) + 1
        return Changes()

    def _expire_if_idle(self, state: Any, jk: Any, now_ms: int) -> None:
        """A key idle on both sides longer than the TTL starts from nothing (its versions gone)."""
        expiry: Expiry | None = state["ttl"]
        if expiry is not None and jk in state["versions"] and not expiry.alive(jk, now_ms) and not state["waiting"].get(jk):
            self._drop_key(state, jk)

    def _drop_key(self, state: Any, jk: Any) -> None:
        state["versions"].pop(jk, None)
        state["releasable"].pop(jk, None)
        if state["ttl"] is not None:
            state["ttl"].forget(jk)

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Join every waiting left row the watermark has passed, in time order; then release
        the versions no left row can need any more."""
        out = Changes()
        pending: dict[int, list[tuple[Any, Row]]] = state["pending"]
        versions: dict[Any, dict[int, Row | None]] = state["versions"]
        waiting: dict[Any, int] = state["waiting"]
        for ts in sorted(t for t in pending if t <= watermark_ms):
            for jk, row in pending.pop(ts):
                version = self._version_at(versions.get(jk) if None not in jk else None, ts)
                if version is not None and self._matches(row, version):
                    out.emit(INSERT, thawed((*row, *version)))
                elif self.kind == LEFT:
                    out.emit(INSERT, thawed((*row, *((None,) * self.widths[1]))))
                left = waiting[jk] - 1
                if left:
                    waiting[jk] = left
                else:
                    del waiting[jk]
        self._release(state, watermark_ms)
        if state["ttl"] is not None:
            for jk in state["ttl"].expire(now_ms):
                if waiting.get(jk):
                    state["ttl"].touch(jk, now_ms)  # left rows still wait for the watermark: kept
                else:
                    versions.pop(jk, None)
                    state["releasable"].pop(jk, None)
        return out

    @staticmethod
    def _version_at(held: dict[int, Row | None] | None, ts: int) -> Row | None:
        """The latest version at or before ``ts`` (None: none, or a deletion)."""
        if not held:
            return None
        times = [t for t in held if t <= ts]
        return held[max(times)] if times else None

    def _matches(self, row: Row, version: Row) -> bool:
        return self.residual is None or self.residual((*row, *version)) is True

    def _release(self, state: Any, watermark_ms: int) -> None:
        """Per key, drop the versions older than its latest one at or before the watermark (no
        left row still to be emitted is older than the watermark); a key whose latest passed
        version is a deletion, with none newer, goes whole (it matches nothing, as no key does)."""
        versions: dict[Any, dict[int, Row | None]] = state["versions"]
        releasable: dict[Any, None] = state["releasable"]
        for jk in list(releasable):
            held = versions[jk]
            passed = [t for t in held if t <= watermark_ms]
            if len(passed) > 1:
                latest = max(passed)
                for t in passed:
                    if t != latest:
                        del held[t]
            if len(held) == 1:
                ((t, row),) = held.items()
                if row is None and t <= watermark_ms:
                    self._drop_key(state, jk)
                elif row is not None:
                    del releasable[jk]

    def next_time(self, state: Any) -> int | None:
        """The earliest time a waiting left row waits for or a version can be released at (so
        that versions go even when no left row comes)."""
        times = [min(state["pending"])] if state["pending"] else []
        for jk in state["releasable"]:
            held = sorted(state["versions"][jk])
            times.append(held[1] if len(held) > 1 else held[0])
        return min(times) if times else None
