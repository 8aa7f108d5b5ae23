"""What the tests of the JVM operators share (tests/sqlengine/test_jvm_*.py): a table of bids
written as one file per micro-batch, and a query run as a streaming job with the JVM operators on
or off, returning every change it emitted and its final table."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from planner.analysis import physical
from planner.analysis.jvm_operators import jvm_operator
from planner.analysis.physical import JVM_SETTING, Physical
from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.jobs import Job
from tests.sqlengine.helpers import Sql, multiset, ts, write_batches

COLUMNS = ("item", "bidder", "price", "amount", "placed")
BIDS = "(item BIGINT, bidder STRING, price DOUBLE, amount DECIMAL(10, 2), placed TIMESTAMP(3){})"
ONE_FILE_PER_BATCH = "'source.max-files-per-trigger' = '1'"


def bids(spark: Any, root: Path, batches: list[list[tuple[Any, ...]]]) -> Sql:
    """An engine with `bids` (one micro-batch per batch), `timed_bids` (the same, with a watermark)
    and `endless_bids` (the same files, monitored: an unbounded job)."""
    directory = write_batches(root / "bids", [
        [{"item": i, "bidder": b, "price": p, "amount": a, "placed": ts(t)} for i, b, p, a, t in batch] for batch in batches
    ])
    runner = Sql(Engine(home=root / "home", spark=spark))
    source = f"'connector' = 'filesystem', 'path' = '{directory}', 'format' = 'json'"
    runner.ddl(f"CREATE TABLE bids {BIDS.format('')} WITH ({source}, {ONE_FILE_PER_BATCH})")
    watermark = ", WATERMARK FOR placed AS placed - INTERVAL '1' SECOND"
    runner.ddl(f"CREATE TABLE timed_bids {BIDS.format(watermark)} WITH ({source}, {ONE_FILE_PER_BATCH})")
    runner.ddl(f"CREATE TABLE endless_bids {BIDS.format('')} WITH ({source}, 'source.monitor-interval' = '1 s')")
    return runner


@contextmanager
def only_on_jvm(which: Callable[[Any], bool]) -> Iterator[None]:
    """The planner runs on the JVM only the operators ``which`` accepts (of those it would)."""
    physical.jvm_operator = lambda node, strategy, ttl=False, zone="UTC", *, bounded=False: (
        which(node) and jvm_operator(node, strategy, ttl, zone, bounded=bounded))
    try:
        yield
    finally:
        physical.jvm_operator = jvm_operator


# the runs so far, by engine (its home, a directory of the test module's own), query, JVM on or
# off and TTL: a run's changes are the same each time (one file per micro-batch), and several
# tests compare against the same run
_runs: dict[tuple[str, str, bool, str | None], tuple[list[tuple[Any, ...]], Any]] = {}


def run(sql: Sql, query: str, jvm: bool, ttl: str | None = None,
        planned: Callable[[list[Physical]], None] | None = None) -> tuple[list[tuple[Any, ...]], Any]:
    """The job's changes ((kind, *row), in order) and its final table (a multiset); ``planned``
    checks the plan's changelog operators first. A run made before is not made again."""
    settings = sql.engine.planner.settings
    settings[JVM_SETTING] = "true" if jvm else "false"
    if ttl:
        settings["table.exec.state.ttl"] = ttl
    key = (str(sql.engine.home), query, jvm, ttl)
    try:
        if planned is not None:
            planned([p for p in sql.outcome(query).analysis.physical.values() if p.changelog])
        if key not in _runs:
            job = sql.job(query, "streaming")
            assert job.result is not None
            changes, total, dropped = job.result.changes_since(0)
            assert dropped == 0 and total == len(changes)
            _runs[key] = [(str(c.kind), *c.row) for c in changes], multiset(job.result.rows())
    finally:
        settings.pop(JVM_SETTING, None)
        settings.pop("table.exec.state.ttl", None)
    changes, final = _runs[key]
    return list(changes), final.copy()


def assert_same(on_jvm: tuple[Any, Any], in_python: tuple[Any, Any]) -> None:
    """Both runs' changes (multisets) and final tables are equal."""
    assert on_jvm[0] == in_python[0], f"changes differ:\njvm {sorted(on_jvm[0].items(), key=repr)}\npy  {sorted(in_python[0].items(), key=repr)}"
    assert on_jvm[1] == in_python[1]


@contextmanager
def continuous(sql: Sql, query: str, jvm: bool, until: Callable[[Job], bool], *, ttl: str | None = None,
               settle: float = 0.0, planned: Callable[[list[Physical]], None] | None = None) -> Iterator[Job]:
    """``query`` as an unbounded job (its sources watched), the JVM operators on or off, under the
    state TTL ``ttl``: the job once ``until(job)`` holds (within 90 s) and ``settle`` seconds more
    have passed, without an error; stopped after. ``planned`` checks its changelog operators."""
    engine = sql.engine
    settings = engine.planner.settings
    settings[JVM_SETTING] = "true" if jvm else "false"
    if ttl:
        settings["table.exec.state.ttl"] = ttl
    try:
        (stmt,) = parse_script(query + ";").statements
        outcome = engine.plan(stmt)
        if planned is not None:
            planned([p for p in outcome.analysis.physical.values() if p.changelog])
        job = engine.start(outcome)
    finally:
        settings.pop(JVM_SETTING, None)
        settings.pop("table.exec.state.ttl", None)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and job.error_detail is None and not until(job):
            time.sleep(0.2)
        time.sleep(settle)
        assert job.error_detail is None and job.result is not None, job.error
        yield job
    finally:
        engine.stop_all()
