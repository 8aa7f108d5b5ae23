"""Warming the shell's JVM up while the user types the first statement.

The first continuous query of a new JVM is slow for reasons that have nothing to do with it: Spark
loads and JIT-compiles the classes of the analyzer, streaming execution, state store, shuffle and
foreachBatch, and generates code for the first time. Measured here (bench/interactive_latency.py,
the first query sent 10 s after Spark was ready): a TUMBLE window over datagen showed its first
row 8.6 s after the statement without a warm-up, 5.6 s with one, 4.6 s as a later query of the
session. So once Spark is up, the shell runs a
small bounded query of the same kind in the background, through the engine's own path (plan,
translate, job, result collection), on a throwaway engine: its own in-memory catalog and a home
under the session's ``tmp`` directory (removed afterwards), so nothing of it shows in SHOW JOBS,
the catalog or the history.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from catalog.store import Catalog
from planner.statements.script import parse_script

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from sqlengine.jobs import Job

log = logging.getLogger("sqlengine.warm_up")

# a windowed aggregation (scan, computed time column, watermark, shuffle, state store, end of
# input) and a keyed one: the two kinds of stateful operator most first queries use
SQL = """
CREATE TABLE warm_up (k INT, v BIGINT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '20');
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS s
FROM TABLE(TUMBLE(TABLE warm_up, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE v > 0 GROUP BY k, window_start, window_end;
"""


class WarmUp:
    """One background warm-up of a session's Spark; ``stop`` ends it early (the user starts a
    job: the two on the same cores would slow the user's; or the shell quits). Made before Spark
    is up, so that a job the user starts first is seen: a stopped warm-up never starts."""

    def __init__(self, home: Path) -> None:
        self.home = home / "tmp" / f"warm-up-{uuid.uuid4().hex[:8]}"
        self.job: Job | None = None
        self.seconds: float | None = None  # how long it took, once it ran to its end
        # held while a job is being started: stop() then waits for it and stops it, so the
        # warm-up never runs on beside a job started after stop() returned
        self._lock = threading.Lock()
        self._stopped = False
        self._running = False
        self._ended = threading.Event()  # run() has returned and removed its home

    def run(self, spark: SparkSession) -> None:
        """Never raises: a warm-up that fails only leaves the first query as slow as before."""
        from sqlengine.engine import Engine
        from sqlengine.jobs import Status

        start = time.perf_counter()
        with self._lock:  # a stop() before this: nothing is made; after it: stop() waits for the end
            if self._stopped:
                return
            self._running = True
        try:
            engine = Engine(self.home, catalog=Catalog.in_memory(), spark=spark)
            for stmt in parse_script(SQL, "<warm-up>").statements:
                if self._stopped:
                    break
                outcome = engine.plan(stmt)
                if outcome.analysis is None:
                    continue
                with self._lock:
                    if self._stopped:
                        break
                    self.job = engine.start(outcome)
                self.job.wait()
            status = self.job.status if self.job is not None else None
            if status == Status.FINISHED:
                self.seconds = time.perf_counter() - start
                log.info("warm-up done in %.1f s", self.seconds)
            elif status == Status.FAILED:
                log.warning("warm-up failed: %s", self.job.error if self.job is not None else "")
            else:
                log.info("warm-up stopped")
        except Exception:
            log.warning("warm-up failed", exc_info=True)
        finally:
            shutil.rmtree(self.home, ignore_errors=True)
            self._ended.set()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            job = self.job
        if job is not None and not job.done:
            job.stop()
            job.wait(10)
        if self._running:  # a shell quitting must not leave run() to write under its home after
            self._ended.wait(10)
