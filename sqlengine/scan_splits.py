"""How many tasks read a job's bounded text file: a whole number per core.

Spark cuts a file read into splits of its size over the cores, but of at most
'spark.sql.files.maxPartitionBytes' (128 MB): a 345 MB file on 2 cores is read as 128 + 128 + 89 MB,
and the third split runs alone once the first two are done. Nexmark's q0 over 2,000,000 events
(bench/flink_compare.py's files) took 5.70 s so, against 5.44 s in two equal splits and 5.49 s in
four (medians of 5, `sqlengine run`, local[2]). So a job whose largest such read is more than the
cores can take in one wave asks Spark ('spark.sql.files.minPartitionNum') for a multiple of the
cores: splits of equal size, at most the maximum, each wave keeping every core busy. Only a read of
one file is sized (connectors give SourceResult.split_bytes): Spark packs several files' pieces
with a cost per file ('spark.sql.files.openCostInBytes'), which no minimum makes equal. The setting
is the job's session's, so its other file scans take the same minimum (a small file then comes in
a few more pieces of at least that cost, 4 MB). A job that sets 'spark.sql.files.minPartitionNum'
itself keeps Spark's own sizing.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sqlengine.spark_connect import is_connect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from sqlengine.translate.core import SourceInfo

log = logging.getLogger(__name__)

MIN_PARTITIONS = "spark.sql.files.minPartitionNum"


def min_partitions(largest: int, cores: int, max_split: int) -> int | None:
    """The splits to ask for so that a read of ``largest`` bytes comes in equal waves of
    ``cores`` tasks; None where Spark's own split is that already (one wave)."""
    waves = math.ceil(largest / (cores * max_split))
    return cores * waves if waves > 1 else None


def split_conf(spark: SparkSession, sources: Iterable[SourceInfo], settings: Mapping[str, str]) -> dict[str, str]:
    """The setting a job's session takes so its largest sized read (SourceInfo.split_bytes)
    comes in equal waves; ``settings``: the job's own Spark settings."""
    sized = [s.split_bytes for s in sources if s.split_bytes is not None]
    if not sized or MIN_PARTITIONS in settings or is_connect(spark):
        return {}
    try:
        largest = max((b for b in (size() for size in sized) if b is not None), default=0)
    except OSError:  # a file gone meanwhile: the read reports it
        log.debug("sizing the job's file reads", exc_info=True)
        return {}
    jvm = spark._jsparkSession  # what Spark's split sizing reads: its parsed byte size, its cores
    cores = int(jvm.leafNodeDefaultParallelism())
    wanted = min_partitions(largest, max(1, cores), int(jvm.sessionState().conf().filesMaxPartitionBytes()))
    return {MIN_PARTITIONS: str(wanted)} if wanted else {}
