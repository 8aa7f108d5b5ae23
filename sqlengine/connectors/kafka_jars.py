"""Spark's Kafka connector (and its Avro module, for the 'avro' format), added to a running
session the first time a Kafka table (an Avro key or value) is used.

pyspark ships without it. The four jars (Spark's connector, its token provider, the Kafka client
and commons-pool2; pyspark has everything else) are resolved by Spark's own Ivy through
``ADD JAR 'ivy://...'``: from Maven Central the first time, from the Ivy cache (~/.ivy2.5.2)
afterwards, offline too. The session is started with an Ivy settings file that names Maven
Central only (``spark.jars.ivySettings``): Ivy's default chain also reads ~/.m2, where a pom
without its jar fails the resolution.

Maven Central has the connector up to 4.2.0 and no 4.3.0; the 4.2.0 connector runs on pyspark
4.3 (the Kafka tests of this repository run it). A session that already has a Kafka connector
(``spark.jars.packages`` or ``spark.jars`` given by the user) is left as it is.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlengine.connectors.errors import ConnectorError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("sqlengine.kafka")

SPARK_KAFKA_VERSION = "4.2.0"
ARTIFACTS = (
    f"org.apache.spark:spark-sql-kafka-0-10_2.13:{SPARK_KAFKA_VERSION}",
    f"org.apache.spark:spark-token-provider-kafka-0-10_2.13:{SPARK_KAFKA_VERSION}",
    "org.apache.kafka:kafka-clients:3.9.2",
    "org.apache.commons:commons-pool2:2.13.1",
)
AVRO_ARTIFACTS = (f"org.apache.spark:spark-avro_2.13:{SPARK_KAFKA_VERSION}",)
IVY_SETTINGS = """<ivysettings>
  <!-- written by sqlengine: Maven Central only (Ivy's default chain also reads ~/.m2, where a
       pom without its jar fails the resolution) -->
  <settings defaultResolver="central"/>
  <resolvers>
    <ibiblio name="central" m2compatible="true" root="https://repo1.maven.org/maven2/"/>
  </resolvers>
</ivysettings>
"""
DEFAULT_IVY_HOME = Path.home() / ".ivy2.5.2"

_lock = threading.Lock()
_loaded: set[tuple[int, str]] = set()  # (JVM gateway id, what): what each JVM has


def ivy_settings(home: Path) -> Path:
    """The Ivy settings file under ``home`` (written if missing or different)."""
    path = home / "ivysettings.xml"
    if not path.exists() or path.read_text() != IVY_SETTINGS:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(IVY_SETTINGS)
    return path


def jvm_of(spark: SparkSession) -> Any:
    """The driver's JVM view (Py4J); classic Spark only."""
    jvm = getattr(spark, "_jvm", None)  # a Spark Connect session has none
    if jvm is None:
        raise ConnectorError(
            "this needs a classic Spark session (a JVM in the driver), not Spark Connect: Kafka offsets by "
            "timestamp or committed group offsets are looked up there."
        )
    return jvm


def jar_loader(spark: SparkSession) -> Any:
    """The class loader ADD JAR adds to."""
    return spark._jsparkSession.sharedState().jarClassLoader()


def has_kafka(spark: SparkSession) -> bool:
    """Whether the session can find Spark's 'kafka' data source."""
    try:
        lookup = jvm_of(spark).org.apache.spark.sql.execution.datasources.DataSource.lookupDataSource
        lookup("kafka", spark._jsparkSession.sessionState().conf())
        return True
    except Exception:
        return False


def ensure_kafka(spark: SparkSession) -> None:
    """Add the Kafka connector to the session's JVM unless it is there; a ConnectorError in one
    line saying what to fetch when it cannot be resolved."""
    _ensure(spark, "Kafka connector", ARTIFACTS, has_kafka, "connector")


def has_avro(spark: SparkSession) -> bool:
    """Whether the session has Spark's Avro functions (from_avro, to_avro)."""
    try:
        jar_loader(spark).loadClass("org.apache.spark.sql.avro.AvroDataToCatalyst")
        return True
    except Exception:
        return False


def ensure_avro(spark: SparkSession) -> None:
    """Add Spark's Avro module (the 'avro' format of Kafka keys and values): the Avro library
    itself ships with pyspark."""
    _ensure(spark, "Avro module", AVRO_ARTIFACTS, has_avro, "format")


def _ensure(spark: SparkSession, what: str, artifacts: tuple[str, ...], present: Callable[[SparkSession], bool], option: str) -> None:
    from sqlengine.spark_connect import is_connect

    if is_connect(spark):  # the server has the jars it was started with (docs/deploying.md)
        return
    key = (id(spark.sparkContext._gateway), what)
    with _lock:
        _use_jar_loader(spark)
        if key in _loaded or present(spark):
            _loaded.add(key)
            return
        for artifact in artifacts:
            try:
                spark.sql(f"ADD JAR 'ivy://{artifact}?transitive=false'")
            except Exception:
                log.exception("resolving %s", artifact)
                ivy = spark.sparkContext.getConf().get("spark.jars.ivy") or str(DEFAULT_IVY_HOME)
                raise ConnectorError(
                    f"Spark's {what} could not be resolved ({artifact}): it is not in "
                    f"the Ivy cache ({ivy}) and Maven Central could not be reached. Run once with "
                    "access to Maven Central, or give the jars with --conf spark.jars=... "
                    f"({', '.join(a.split(':')[1] for a in artifacts)}).",
                    option=option,
                ) from None
        _loaded.add(key)
        log.info("added Spark's %s %s", what, SPARK_KAFKA_VERSION)


def _use_jar_loader(spark: SparkSession) -> None:
    """Let this thread's JVM side find added jars: Spark looks data sources up through the
    thread's context class loader, and ADD JAR sets it only on the thread that ran it (each
    Python thread has its own JVM thread). A streaming query's threads inherit it from the
    thread that starts the query."""
    jvm_of(spark).java.lang.Thread.currentThread().setContextClassLoader(jar_loader(spark))
