"""How rows travel into and out of a changelog operator on Spark, as Arrow.

Spark's ``transformWithStateInPandas`` calls its processor once per grouping key and turns every
input row into a pandas row on the way (``itertuples``): the cost is per row, before our code
runs. So rows go in packed: a stateless ``mapInArrow`` step (``pack``) cuts each Arrow batch into
one Arrow IPC blob per bucket (the operator's keys hashed into a fixed number of buckets), and the
processor gets a few blobs per bucket instead of thousands of rows. Its output goes back the same
way: one blob per bucket and batch, opened by ``unpack`` into the operator's rows. Arrow carries
every Spark type exactly (a BIGINT with NULLs stays an integer; pandas would make it a float).

Within a bucket, the order of rows matters (a -U before its +U): each blob carries the Spark
partition it was made in and its sequence there, and the processor reads blobs in that order.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

BUCKET = "b"  # the bucket column of the packed input
PACKED = "b INT, part INT, seq INT, blob BINARY"  # + "side" (which input) once the inputs are unioned
# the changes, and how many keys and bytes of state the bucket gained (or lost)
OUT = "blob BINARY, keys LONG, bytes LONG"


def to_blob(table: pa.Table | pa.RecordBatch) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write(table)
    return bytes(sink.getvalue().to_pybytes())


def from_blob(blob: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


def pack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: each batch's rows grouped by bucket, one output row per bucket."""
    import numpy as np
    from pyspark import TaskContext

    ctx = TaskContext.get()
    part = ctx.partitionId() if ctx is not None else 0
    seq = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        buckets = batch.column(BUCKET).to_numpy(zero_copy_only=False)
        order = np.argsort(buckets, kind="stable")  # stable: rows keep their order within a bucket
        data = batch.drop_columns([BUCKET]).take(pa.array(order))
        sorted_buckets = buckets[order]
        cuts = np.flatnonzero(np.diff(sorted_buckets)) + 1
        starts = [0, *cuts.tolist()]
        ends = [*cuts.tolist(), len(sorted_buckets)]
        out_b, out_seq, out_blob = [], [], []
        for s, e in zip(starts, ends, strict=True):
            out_b.append(int(sorted_buckets[s]))
            out_seq.append(seq)
            out_blob.append(to_blob(data.slice(s, e - s)))
        seq += 1
        yield pa.RecordBatch.from_arrays(
            [pa.array(out_b, pa.int32()), pa.array([part] * len(out_b), pa.int32()), pa.array(out_seq, pa.int32()), pa.array(out_blob, pa.binary())],
            names=["b", "part", "seq", "blob"],
        )


def unpack(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``: the operator's output blobs opened into its rows."""
    for batch in batches:
        for blob in batch.column(0).to_pylist():
            if blob:
                yield from from_blob(blob).to_batches()
