"""What differs when the session is a Spark Connect client (``--remote sc://host:port``).

The client has no JVM of its own: nothing of ``sparkContext`` (Py4J) is there, and a foreachBatch
function runs in a Python process of the server, where it cannot reach the client's objects. A
query's result rows are therefore written by the server, one Parquet directory per micro-batch
beside the query's checkpoint, and the client reads, through the server, each batch the query
has finished (``ResultBatches``) each time the job looks at its queries. The server reads and
writes the checkpoints under the engine's home, and its Python workers import sqlengine: with a
server on another machine both must be shared (docs/deploying.md).
"""

from __future__ import annotations

import atexit
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamWriter

DEFAULT_PORT = 15002  # Spark Connect's
PROBE_SECONDS = 3.0


class ConnectError(Exception):
    """One line fit to show."""


def is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect client session (no JVM in this process)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def address(url: str) -> tuple[str, int]:
    """host and port of an ``sc://host:port/;param=...`` URL."""
    parts = urlsplit(url.split(";", 1)[0])
    if parts.scheme != "sc" or not parts.hostname:
        raise ConnectError(f"'{url}' is not a Spark Connect URL (sc://host:port)")
    try:
        return parts.hostname, parts.port or DEFAULT_PORT
    except ValueError:  # a port that is not a number
        raise ConnectError(f"'{url}' is not a Spark Connect URL (sc://host:port)") from None


def connect(url: str, app_name: str, settings: Mapping[str, str]) -> SparkSession:
    """A client session on the server at ``url``, ``settings`` set on it. A server that is not
    there is said at once: PySpark's client would retry for minutes."""
    host, port = address(url)
    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            pass
    except OSError as err:
        raise ConnectError(f"no Spark Connect server at {host}:{port} ({err.strerror or err})") from None
    from pyspark.sql import SparkSession

    try:
        spark = SparkSession.builder.remote(url).appName(app_name).getOrCreate()
        for key, value in settings.items():
            spark.conf.set(key, value)
    except Exception as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise ConnectError(f"Spark Connect at {host}:{port}: {first}") from None
    if not _made:
        atexit.register(close_all)
    _made[id(spark)] = (spark, url, app_name, dict(settings))
    return spark


# how each session of ours was made (the session, url, app name, settings), for a job's session of
# its own; held here so that no session of ours is garbage-collected: a client session closes its
# gRPC channel in __del__, which can hang when the collector runs it
_made: dict[int, tuple[SparkSession, str, str, dict[str, str]]] = {}
_per_job: set[int] = set()


def new_session(base: SparkSession) -> SparkSession:
    """A session of its own on the server of ``base`` (Spark Connect has no newSession on a
    connection: a new client session), with the settings ``base`` was made with."""
    from pyspark.sql import SparkSession

    made = _made.get(id(base))
    if made is None:  # a session given to us, not made here: the job shares it
        return base
    _, url, app_name, settings = made
    session = SparkSession.builder.remote(url).appName(app_name).create()
    for key, value in settings.items():
        session.conf.set(key, value)
    _made[id(session)] = (session, url, app_name, settings)
    _per_job.add(id(session))
    return session


def close_all() -> None:
    """Close every session of ours, the jobs' first (at exit: not left to the collector)."""
    for key in sorted(_made, key=lambda k: k not in _per_job):
        session = _made.pop(key)[0]
        try:
            session.stop()
        except Exception:  # the server may be gone
            pass
    _per_job.clear()


def default_parallelism(spark: SparkSession) -> int:
    """Spark's default parallelism: the SparkContext's in a classic session; over Spark Connect
    (no SparkContext here) 'spark.default.parallelism' if the server sets it, else its shuffle
    partitions."""
    if not is_connect(spark):
        return int(spark.sparkContext.defaultParallelism)
    for key in ("spark.default.parallelism", "spark.sql.shuffle.partitions"):
        value = spark.conf.get(key, None)
        if value and value.isdigit():
            return max(1, int(value))
    return 2


def add_py_file(spark: SparkSession, path: Path) -> None:
    """Ship a Python module to the Python workers (a UDF's)."""
    if is_connect(spark):
        spark.addArtifacts(str(path), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(path))


ORDINAL = "__sqlengine_ordinal"  # a row's place in its micro-batch


class BatchWriter:
    """The foreachBatch function of a result read by the client; it runs on the server and writes
    each micro-batch's rows, with their order, as Parquet under ``directory`` (a batch run again
    after a failure overwrites its own)."""

    def __init__(self, directory: str):
        self.directory = directory

    def __call__(self, batch: Any, batch_id: int) -> None:
        from pyspark.sql import functions as F

        ordered = batch.select("*", F.monotonically_increasing_id().alias(ORDINAL))  # partition, then row
        ordered.write.mode("overwrite").parquet(f"{self.directory}/{batch_id:012d}")


class ResultBatches:
    """A streaming result read by the client over Spark Connect: ``BatchWriter`` writes each
    micro-batch on the server, and ``drain`` reads, through the server, the batches the query has
    finished since the last call and hands their rows to ``on_rows(batch_id, rows)``, in order.
    A batch is read only once its progress is posted, after its commit: never in part."""

    def __init__(self, on_rows: Callable[[int, Sequence[Any]], object]):
        self.on_rows = on_rows
        self.query: Any = None  # the query now running (a bounded job restarts it for its end of input)
        self.directory = ""
        self._next = 0
        self._lock = threading.Lock()

    def start(self, df: DataFrame, mode: str, checkpoint: Location) -> DataStreamWriter:
        """The query's writer, its rows to ``checkpoint``/results on the server."""
        self.directory = str(checkpoint / "results")
        from pyspark.sql.types import LongType, StructField, StructType

        self.spark = df.sparkSession
        self.schema = StructType([*df.schema.fields, StructField(ORDINAL, LongType(), nullable=False)])
        return df.writeStream.outputMode(mode).foreachBatch(BatchWriter(self.directory))

    def drain(self) -> None:
        if self.query is None:
            return
        with self._lock:
            last = self.query.lastProgress  # the latest batch: every batch before it is done too
            done = last.batchId if last is not None else -1
            while self._next <= done:
                batch_id = self._next
                rows = self._read(batch_id)
                if rows:
                    self.on_rows(batch_id, rows)
                self._next += 1

    def _read(self, batch_id: int) -> list[Any]:
        from pyspark.errors import AnalysisException

        try:
            df = self.spark.read.schema(self.schema).parquet(f"{self.directory}/{batch_id:012d}")
            return [row[:-1] for row in df.orderBy(ORDINAL).collect()]
        except AnalysisException as err:  # a batch with nothing to write wrote no directory
            if "PATH_NOT_FOUND" in str(err):
                return []
            raise

