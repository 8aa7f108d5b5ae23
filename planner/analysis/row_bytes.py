"""What a row costs in Spark's UnsafeRow layout: a null bit per field, an 8-byte slot per field,
variable-length values after the slots in 8-byte words. The state estimates size entries with it."""

from __future__ import annotations

from sqlglot import exp

from planner.logical import typing as T

DEFAULT_STRING = 32  # characters assumed for a string without 'stats.avg-length.<column>'
# bytes a state store spends per entry besides the entry's key and value rows (bench/state_bytes.py):
# the HDFS-backed store ('hashmap') holds each entry as JVM objects in a map, in the last two
# versions; RocksDB ('rocksdb') reports its memory (memtables, block cache), not its entries
STORE_OVERHEAD = {"hashmap": 200, "rocksdb": 0}
PROVIDERS = tuple(STORE_OVERHEAD)
# bytes one store instance costs before its first entry (bench/state_bytes.py, empty stores: 464 B
# a group's, 488 B a join's); there is one per shuffle partition, and a stream-stream join keeps
# two per side. RocksDB's figure is its own memory, counted in none of these estimates
STORE_FIXED = {"hashmap": 480, "rocksdb": 0}
JOIN_SIDE_STORES = 2  # a join side's rows and its count of rows per key


def default_partitions() -> int:
    """The shuffle partitions sqlengine gives Spark unless 'spark.sql.shuffle.partitions' is set:
    one per core, at least two."""
    import os

    return max(2, os.cpu_count() or 2)


# a session window's store is keyed by (key, session start) and scanned by the key: the HDFS-backed
# store keeps a second map from each key to its sessions, about 580 B more per entry (839 B an
# entry measured by bench/state_bytes.py against 256 B of rows and overhead)
SESSION_INDEX_OVERHEAD = {"hashmap": 580, "rocksdb": 0}
# a changelog operator stores each bucket's keys as one pickled value: about 108 B a bucket besides
# its entries (bench/state_bytes.py: 39,912 B for 1,000 keys at 33 B each over 64 buckets)
BUCKET_OVERHEAD = 108


# sqlengine/jvm/GroupAgg.java keeps one state row per group (``jvm_aggregate_value``); in the
# HDFS-backed store an entry cost 482 B for COUNT(*) over 112 B of key and state rows, and 656 B for
# COUNT(*), SUM, MAX over 200 B (bench/state_bytes.py): 1.98 B per byte of rows (the store's maps
# hold two versions of a row updated in every batch) and 260 B of objects
JVM_ROW_COPIES = 1.98
JVM_ENTRY_OVERHEAD = 260


def jvm_aggregate_value(emitted: list[int], accumulators: list[int], written: bool = False) -> int:
    """GroupAgg.java's state row, as Spark's state encoder lays it out: the state struct and its
    timeout, the struct holding the rows counted, the row last emitted (``emitted``: its fields'
    bytes), one struct per call (``accumulators``: their rows' bytes) and, under a state TTL
    (``written``), when the group was last written."""
    emitted_row = 8 + null_bits(len(emitted)) + sum(emitted)
    fields = 2 + len(accumulators) + written
    state = null_bits(fields) + 8 + emitted_row + sum(8 + a for a in accumulators) + 8 * written
    return null_bits(2) + 8 + state + 8


def jvm_ranked_value(rows: list[int]) -> int:
    """TopN.java's state row for a partition keeping ``rows`` (each kept row's struct: its null
    bits and fields' bytes), as Spark's state encoder lays it out: the state struct and its
    timeout; in the struct, the array of kept rows (its length, null bits, one offset each, the
    rows) and when the partition was last written. With the entry's cost above, a Top-3 per
    BIGINT key over (k, v) comes to 608 B a key, where bench/state_bytes.py measured 426 B
    (hashmap; Spark's figure samples the store's maps): an upper bound by 43 %, as the generic
    entry per row (720 B) was by 69 %."""
    array = 8 + null_bits(len(rows)) + 8 * len(rows) + sum(rows)
    state = null_bits(2) + 8 + array + 8
    return null_bits(2) + 8 + state + 8


def jvm_window_value(accumulators: list[int]) -> int:
    """WindowAgg.java's state row for a key with one open window, as Spark's state encoder lays it
    out: the state struct and its timeout, the struct holding the array of open windows (its
    length, null bits and one offset), and the window's struct: its end, start and one struct per
    call (``accumulators``: their rows' bytes). With the entry's cost above: 608 B a key for
    COUNT(*) and SUM over a BIGINT key, and 608 B measured (bench/state_bytes.py, hashmap)."""
    window = null_bits(2 + len(accumulators)) + 16 + sum(8 + a for a in accumulators)
    state = null_bits(1) + 8 + 8 + 8 + 8 + window
    return null_bits(2) + 8 + state + 8


def type_bytes(t: exp.DataType, avg_len: int = DEFAULT_STRING) -> int:
    """The bytes a value of ``t`` takes in an UnsafeRow: its 8-byte slot and, for variable-length
    values, the data after the slots in 8-byte words."""
    D = exp.DType
    if T.is_type(t, D.DECIMAL):
        precision, _ = T.decimal_ps(t)
        return 8 if precision <= 18 else 8 + 16  # above 18 digits: 16 bytes after the slots
    if T.is_type(t, D.STRUCT):
        return 8 + unsafe_row_bytes([m.args.get("kind") or T.UNKNOWN for m in t.expressions])
    if T.is_type(t, D.ARRAY, D.MAP, D.LIST):
        return 8 + 64
    if T.is_type(t, D.BOOLEAN, D.TINYINT, D.SMALLINT, D.INT, D.FLOAT, D.DATE, D.BIGINT, D.DOUBLE, *T.TIMESTAMPS):
        return 8
    return 8 + _words(avg_len)  # strings, bytes, unknown: the slot holds offset and length


def unsafe_row_bytes(types: list[exp.DataType], avg_lengths: list[int] | None = None) -> int:
    """An UnsafeRow of these field types: the null bits, then the fields."""
    lengths = avg_lengths or [DEFAULT_STRING] * len(types)
    return null_bits(len(types)) + sum(type_bytes(t, n) for t, n in zip(types, lengths, strict=True))


def null_bits(fields: int) -> int:
    """An UnsafeRow's null bits: 8 bytes per 64 fields."""
    return 8 * -(-fields // 64)


def _words(n: int) -> int:
    return -(-n // 8) * 8
