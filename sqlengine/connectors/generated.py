"""Building blocks of the generator sources (datagen, nexmark): row numbers from Spark's rate
sources, and deterministic pseudo-random values as Spark expressions of a row number.

Every value is a pure function of (seed, row number, what is drawn), computed inside the JVM
with ``xxhash64``; no row is ever produced in Python. So a bounded generator gives the same rows
in streaming and batch mode and on every run.

Bounded streams use the ``rate-micro-batch`` source with all N rows in its first micro-batch
(``rowsPerBatch`` = N, and ``value < N`` in case more batches run): under Trigger.AvailableNow the
query runs that one batch and terminates.
"""

from __future__ import annotations

import random
import string
import time
import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

ROW = "__sqlengine_row"  # the row-number column: 0, 1, 2, ...
NOW = "__sqlengine_now"  # when the row was generated (wall clock, TimestampType)
_MASK64 = (1 << 64) - 1
_TWO_POW_MINUS_53 = 1.0 / (1 << 53)


def row_numbers(
    spark: SparkSession,
    *,
    streaming: bool,
    total: int | None,
    partitions: int,
    rows_per_second: int | None = None,
    rows_per_batch: int = 1_000_000,
    end_of_input: bool = True,
) -> DataFrame:
    """A DataFrame of (ROW, NOW).

    ``total`` set and ``end_of_input``: bounded (all rows in the first micro-batch). ``total``
    set without ``end_of_input``: the stream stays open after the last row. ``rows_per_second``
    paces an unbounded stream by the wall clock; otherwise it runs at full speed,
    ``rows_per_batch`` rows per micro-batch.
    """
    from pyspark.sql import functions as F

    if not streaming:
        if total is None:
            raise ValueError("batch mode needs a bounded generator")
        df = spark.range(0, total, numPartitions=partitions)
        return df.select(F.col("id").alias(ROW), F.current_timestamp().alias(NOW))
    if rows_per_second is not None and not (total is not None and end_of_input):
        df = (
            spark.readStream.format("rate")
            .option("rowsPerSecond", max(1, rows_per_second))
            .option("numPartitions", partitions)
            .load()
        )
    else:
        per_batch = total if (total is not None and end_of_input) else rows_per_batch
        df = (
            spark.readStream.format("rate-micro-batch")
            .option("rowsPerBatch", max(1, per_batch))
            .option("numPartitions", partitions)
            .option("startTimestamp", int(time.time() * 1000))
            .load()
        )
    df = df.select(F.col("value").alias(ROW), F.col("timestamp").alias(NOW))
    return df.where(F.col(ROW) < total) if total is not None else df


def salt(seed: int, name: str) -> int:
    """A signed 64-bit constant for (seed, name), stable across processes (unlike hash())."""
    mixed = (seed * 0x9E3779B97F4A7C15 + zlib.crc32(name.encode()) * 0xBF58476D1CE4E5B9) & _MASK64
    return mixed - (1 << 64) if mixed >= 1 << 63 else mixed


class Draws:
    """Pseudo-random draws keyed by a long column (a row number, or a derived key)."""

    def __init__(self, key: Column, seed: int):
        self.key, self.seed = key, seed

    def child(self, *parts: Column) -> Draws:
        """Draws for a sub-key, e.g. the i-th element of an array in this row."""
        from pyspark.sql import functions as F

        return Draws(F.xxhash64(self.key, *parts), self.seed)

    def bits(self, what: str) -> Column:
        """64 random bits."""
        from pyspark.sql import functions as F

        return F.xxhash64(self.key, F.lit(salt(self.seed, what)))

    def below(self, what: str, bound: int | Column) -> Column:
        """A long in [0, bound)."""
        from pyspark.sql import functions as F

        return F.pmod(self.bits(what), bound if not isinstance(bound, int) else F.lit(bound))

    def unit(self, what: str) -> Column:
        """A double in [0, 1)."""
        from pyspark.sql import functions as F

        return F.shiftrightunsigned(self.bits(what), 11) * F.lit(_TWO_POW_MINUS_53)

    def choice(self, what: str, values: list[str]) -> Column:
        from pyspark.sql import functions as F

        index = (self.below(what, len(values)) + 1).cast("int")
        return F.element_at(F.array(*[F.lit(v) for v in values]), index)


def letter_pool(seed: int, size: int, alphabet: str, space_every: int = 0) -> str:
    """A constant string of random characters, drawn once per source (not per row)."""
    rng = random.Random(seed)
    chars = []
    for _ in range(size):
        if space_every and rng.randrange(space_every) == 0:
            chars.append(" ")
        else:
            chars.append(rng.choice(alphabet))
    return "".join(chars)


ALNUM = string.ascii_lowercase + string.digits


def pool_slice(draws: Draws, what: str, pool: str, length: int | Column) -> Column:
    """A substring of the constant ``pool`` (ASCII) of ``length`` characters at a random offset.

    The pool is sliced as bytes: a substring of a string literal walks its UTF-8 characters from
    the start on every row, a slice of a binary literal is a plain copy (about 10x faster).
    """
    from pyspark.sql import functions as F

    length_col = F.lit(length) if isinstance(length, int) else length
    start = draws.below(what, F.lit(len(pool)) - length_col + 1) + 1
    raw = F.lit(bytearray(pool.encode("ascii")))
    return F.substr(raw, start.cast("int"), length_col.cast("int")).cast("string")
