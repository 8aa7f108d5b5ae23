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
    job: the two on the same cores would slow the user's; or the shell quits)."""

    def __init__(self, spark: SparkSession, home: Path) -> None:
        self.spark = spark
        self.home = home / "tmp" / f"warm-up-{uuid.uuid4().hex[:8]}"
        self.job: Job | None = None
        self.seconds: float | None = None  # how long it took, once done
        self._stopped = False

    def run(self) -> None:
        """Never raises: a warm-up that fails only leaves the first query as slow as before."""
        from sqlengine.engine import Engine

        start = time.perf_counter()
        try:
            engine = Engine(self.home, catalog=Catalog.in_memory(), spark=self.spark)
            for stmt in parse_script(SQL, "<warm-up>").statements:
                outcome = engine.plan(stmt)
                if outcome.analysis is None or self._stopped:
                    continue
                self.job = engine.start(outcome)
                if self._stopped:  # stop() came while it was starting
                    self.job.stop()
                self.job.wait()
            self.seconds = time.perf_counter() - start
            log.info("warm-up done in %.1f s", self.seconds)
        except Exception:
            log.warning("warm-up failed", exc_info=True)
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def stop(self) -> None:
        self._stopped = True
        if self.job is not None and not self.job.done:
            self.job.stop()
            self.job.wait(10)
