"""Where a job keeps its state: Flink's ``state.backend.type`` (``hashmap`` or ``rocksdb``) as
Spark's state store provider (HDFS-backed, in memory with files in the checkpoint; or RocksDB,
on local disk with files in the checkpoint). RocksDB runs with changelog checkpointing: each
micro-batch uploads what changed instead of a snapshot of the whole store.

Spark keeps the provider in a checkpoint's offset log and uses that one on every resume,
whatever the session says: a checkpoint's backend is fixed when it is created. ``in_checkpoint``
reads it back, so that a changed setting is reported instead of silently ignored.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROVIDER_KEY = "spark.sql.streaming.stateStore.providerClass"
CHANGELOG_KEY = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
HDFS = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
# Flink's names -> Spark's providers ('memory': Flink 1's heap backend, kept as hashmap)
BACKENDS = {"rocksdb": ROCKSDB, "hashmap": HDFS, "memory": HDFS}
KEYS = ("state.backend.type", "state.backend")
NAMES = {HDFS: "hashmap", ROCKSDB: "rocksdb"}


class UnknownBackend(ValueError):
    pass


def provider_conf(value: str) -> dict[str, str]:
    """The Spark settings of a backend name."""
    provider = BACKENDS.get(value.strip().lower())
    if provider is None:
        raise UnknownBackend(f"'{value}': use one of {', '.join(sorted(BACKENDS))}")
    out = {PROVIDER_KEY: provider}
    if provider == ROCKSDB:
        out[CHANGELOG_KEY] = "true"
    return out


def name_of(provider: str | None) -> str:
    """A provider class as Flink's backend name (the class itself when it is neither)."""
    return NAMES.get(provider or HDFS, provider or "hashmap")


def in_force(spark: SparkSession) -> str:
    """The provider a new checkpoint of this session is created with (Spark's default: HDFS)."""
    return spark.conf.get(PROVIDER_KEY) or HDFS


def in_checkpoint(query_checkpoint: Location) -> str | None:
    """The provider a streaming query's checkpoint was created with (from its latest offset log
    entry), or None when it has none yet (a new query, or one that never ran a batch)."""
    offsets = query_checkpoint / "offsets"
    try:
        batches = sorted((int(p.name) for p in offsets.iterdir() if p.name.isdigit()), reverse=True)
    except OSError:
        return None
    for batch in batches:
        try:
            lines = (offsets / str(batch)).read_text().splitlines()
            meta = json.loads(lines[1])  # line 1: version; line 2: the batch's metadata
        except (OSError, IndexError, ValueError):
            continue
        return (meta.get("conf") or {}).get(PROVIDER_KEY)
    return None
