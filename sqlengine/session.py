"""The Spark session factory: local by default, a cluster with ``master``, Spark Connect with
``remote``.

Local mode is made safe and quiet: everything binds to 127.0.0.1, the web UI is off unless asked
for, Spark's logs and the JVM's own chatter go to files under ``log_dir``, the session time zone is
UTC. Any ``spark.*`` key in ``conf`` overrides our defaults. ``state.backend.type = rocksdb``
(Flink's option name) selects Spark's RocksDB state store.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from planner.analysis.row_bytes import default_partitions
from sqlengine.java import check_java
from sqlengine.python_workers import worker_env
from sqlengine.spark_logging import (
    JVM_OUT,
    java_option,
    quiet_python_loggers,
    write_log4j_config,
)

if TYPE_CHECKING:
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

LOOPBACK = "127.0.0.1"

_lock = threading.Lock()
_jvm_log = None  # the open file the gateway JVM writes its stdout/stderr to


class SessionError(Exception):
    """The session could not be created; ``str(err)`` is one line fit to show a user."""


def default_log_dir() -> Path:
    from catalog.home import resolve_home

    return resolve_home() / "logs"


# The SQL settings our semantics rest on, for any session: one we start, or one on a Spark Connect
# server (set there when the client connects)
SESSION_SQL: dict[str, str] = {
    "spark.sql.session.timeZone": "UTC",
    # HotSpot does not JIT-compile methods over 8000 bytes of bytecode; a whole-stage
    # method above that runs interpreted, 3-5x slower than Spark's split, non-fused code
    # (measured on the nexmark source). Spark's docs suggest 8000 on HotSpot.
    "spark.sql.codegen.hugeMethodLimit": "8000",
    # Flink's TIME maps to Spark's TimeType, which is off by default in Spark 4.x
    "spark.sql.timeType.enabled": "true",
    # arrow makes foreachBatch collects of small batches cheap when pyarrow is present
    "spark.sql.execution.arrow.pyspark.fallback.enabled": "true",
    # integer columns reach the changelog operators as integers, NULLs included (not floats)
    "spark.sql.execution.pythonUDF.pandas.preferIntExtensionDtype": "true",
    # an integer literal in DECIMAL arithmetic is typed as its type's DECIMAL (INT: DECIMAL(10,
    # 0)), as Flink types it, not with the fewest digits it needs: m / 3 of a DECIMAL(10, 3)
    # is then Flink's DECIMAL(21, 14), not DECIMAL(15, 6)
    "spark.sql.legacy.literal.pickMinimumPrecision": "false",
    # a map built with a key twice (STR_TO_MAP('a=1,a=2'), MAP_FROM_ARRAYS) keeps the last value,
    # as Flink's hash map does; Spark's default fails the job
    "spark.sql.mapKeyDedupPolicy": "LAST_WIN",
}


def _on_loopback(master: str) -> bool:
    """A cluster on this machine (spark://127.0.0.1:7077): the driver listens on loopback too,
    where the workers reach it."""
    return "://127.0.0.1:" in master or "://localhost:" in master


def local_conf(
    master: str, conf: Mapping[str, str], app_name: str, log_config: Path
) -> dict[str, str]:
    """The Spark configuration of a JVM we start ourselves; ``conf`` wins over each default."""
    out: dict[str, str] = {
        "spark.master": master,
        "spark.app.name": app_name,
        "spark.sql.shuffle.partitions": str(default_partitions()),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        # compiled generated code kept for reuse (Spark's default: 100 classes). A session runs
        # query after query, each several stages and per-batch projections, and 100 are soon
        # evicted: the conformance suite spent 6% less CPU with 2,000 (838 -> 786 s), and a warm
        # re-run of 8 queries 15% less JVM CPU; a class is some KB of metaspace
        "spark.sql.codegen.cache.maxEntries": "2000",
        # pyspark's DataFrame debugging (on by default) makes each DataFrame call three more py4j
        # round trips and a walk of the Python stack, to name the Python line of a failed
        # expression in its error: lines of the translator, of no use to a user of SQL (our errors
        # are positioned in the statement), and its first call imports IPython where installed
        # (0.5 s). Off, the translation of a one-table query took 0.71 s instead of 1.09 s (it is
        # static: read when the JVM starts)
        "spark.python.sql.dataFrameDebugging.enabled": "false",
        **SESSION_SQL,
        # Python workers import the changelog operators (sqlengine.changelog) by name: they find
        # this copy of sqlengine even when it is not installed where the workers look
        "spark.executorEnv.PYTHONPATH": source_root(),
    }
    if master.startswith("local") or _on_loopback(master):
        out.update({"spark.driver.host": LOOPBACK, "spark.driver.bindAddress": LOOPBACK})
    if master.startswith("local"):
        # in local mode the driver is the whole cluster: Spark's 1g default runs out with a few
        # stateful jobs at once (and an OutOfMemoryError ends the JVM)
        out["spark.driver.memory"] = local_driver_memory()
    # Spark's Ivy (ADD JAR 'ivy://...', spark.jars.packages) resolves from Maven Central only
    from sqlengine.connectors.kafka_jars import DEFAULT_IVY_HOME, ivy_settings

    out["spark.jars.ivySettings"] = str(ivy_settings(log_config.parent))
    out["spark.jars.ivy"] = str(DEFAULT_IVY_HOME)
    out.update(session_overrides(conf))
    ours = java_option(log_config)
    user_opts = out.get("spark.driver.extraJavaOptions", "")
    out["spark.driver.extraJavaOptions"] = f"{ours} {user_opts}".strip()
    return out


def source_root() -> str:
    """The directory holding this sqlengine's packages."""
    return str(Path(__file__).resolve().parent.parent)


def local_driver_memory() -> str:
    """A quarter of the machine's memory, between 1 and 4 GiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return "1g"
    mib = min(4096, max(1024, total // 4 // 2**20))
    return f"{mib}m"


def session_overrides(conf: Mapping[str, str]) -> dict[str, str]:
    """``conf`` as Spark keys: Flink's ``state.backend.type`` becomes the state store provider
    (``sqlengine.state_backend``)."""
    from sqlengine import state_backend

    out = {}
    for key, value in conf.items():
        if key in state_backend.KEYS:
            try:
                out.update(state_backend.provider_conf(str(value)))
            except state_backend.UnknownBackend as err:
                raise SessionError(f"Unknown {key} {err}.") from None
        else:
            out[key] = str(value)
    return out


@contextmanager
def _env(**values: str) -> Iterator[None]:
    """Set environment variables for the JVM we launch (it copies os.environ), then restore."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def create_session(
    master: str | None = None,
    remote: str | None = None,
    conf: Mapping[str, str] | None = None,
    app_name: str = "sqlengine",
    log_dir: Path | None = None,
    log_level: str = "WARN",
) -> SparkSession:
    """A SparkSession; reuses the running one (with ``conf`` applied where Spark allows)."""
    conf = dict(conf or {})
    log_dir = Path(log_dir) if log_dir is not None else default_log_dir()
    quiet_python_loggers(log_dir)
    if remote:
        return _remote_session(remote, conf, app_name)
    with _lock:
        from pyspark import SparkConf, SparkContext
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is None and SparkContext._active_spark_context is not None:
            active = SparkSession.builder.getOrCreate()  # started from another thread
        if active is not None:
            for key, value in session_overrides(conf).items():
                if key.startswith("spark.sql."):
                    active.conf.set(key, value)
            return active
        java = check_java()
        log_config = write_log4j_config(log_dir, log_level)
        cores = os.cpu_count() or 2
        master = master or conf.get("spark.master")  # SET 'spark.master' in an init file
        settings = local_conf(master or f"local[{cores}]", conf, app_name, log_config)
        launching = SparkContext._gateway is None and SUBMITTED not in os.environ
        if launching:
            _share_classes(settings, java.path, java.version)
        spark_conf = SparkConf(loadDefaults=False).setAll(list(settings.items()))
        if SparkContext._gateway is None:
            _import_meanwhile("pyspark.testing")
            try:
                _launch_gateway(spark_conf, log_dir)
            except SessionError:
                from sqlengine import class_cache

                class_cache.adopt(None)  # no JVM writes an archive
                raise
        if SUBMITTED in os.environ and master is None:
            spark_conf = _submitted_conf(settings)
        try:
            here = settings["spark.master"].startswith("local") or _on_loopback(settings["spark.master"])
            with _env(**worker_env(here, log_dir)):
                SparkContext(conf=spark_conf)
        except Exception as err:  # a Py4J error carries a Java trace: one line is enough
            raise SessionError(f"Spark did not start: {_first_line(err)}") from None
        return SparkSession.builder.getOrCreate()


def _import_meanwhile(module: str) -> None:
    """Import ``module`` on a thread of its own while this one waits for the JVM to launch.
    pyspark's SparkContext hands its conf to the JVM through py4j's converters, one of which
    (pyspark.sql.types.NumpyArrayConverter) imports pyspark.testing, and pandas with it: 0.3 s of
    this thread once the JVM is up (0.9 s with a cold file cache). Imported during the launch it
    costs this thread nothing: create_session took 2.95 s instead of 3.28 s (medians of 4, the
    code before and after alternating). Python's per-module import lock makes a later import of
    the same module wait for this one to finish."""

    def run() -> None:
        try:
            importlib.import_module(module)
        except Exception:  # pyspark imports it again where it needs it, and reports what fails
            pass

    threading.Thread(target=run, name=f"import {module}", daemon=True).start()


# set when spark-submit started the driver JVM and runs us in it (`sqlengine submit`)
SUBMITTED = "PYSPARK_GATEWAY_PORT"
_SET_AT_LAUNCH = ("spark.master", "spark.app.name", "spark.driver.memory", "spark.driver.extraJavaOptions")


def _share_classes(settings: dict[str, str], java_path: str, java_version: str) -> None:
    """The driver JVM maps Spark's classes from the class cache (``sqlengine.class_cache``)."""
    from sqlengine import class_cache

    options = settings.get("spark.driver.extraJavaOptions", "")
    archive = class_cache.choose(java_path, java_version, f"{options} {os.environ.get('SPARK_SUBMIT_OPTS', '')}")
    if archive is not None:
        settings["spark.driver.extraJavaOptions"] = f"{options} {archive.flag()}".strip()


def _submitted_conf(settings: Mapping[str, str]) -> SparkConf:
    """spark-submit's settings (its --master, --conf, spark-defaults.conf) as the JVM it started
    holds them, ours added where it set nothing; what only a JVM's launch can set is its."""
    from pyspark import SparkConf

    conf = SparkConf()
    for key, value in settings.items():
        if key not in _SET_AT_LAUNCH and not conf.contains(key):
            conf.set(key, value)
    return conf


def _launch_gateway(spark_conf: SparkConf, log_dir: Path) -> None:
    """Start the driver JVM with its stdout/stderr on a file rather than the terminal."""
    global _jvm_log
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    if _jvm_log is not None:
        _jvm_log.close()
    _jvm_log = open(log_dir / JVM_OUT, "ab")  # noqa: SIM115 - lives as long as the JVM
    # SPARK_LOCAL_IP also binds the web UI (when enabled) to loopback instead of 0.0.0.0
    local = spark_conf.get("spark.master", "").startswith("local")
    env = {"SPARK_LOCAL_IP": LOOPBACK} if local else {}
    with _env(**env):
        try:
            gateway = launch_gateway(  # type: ignore[no-untyped-call]  # pyspark leaves it unannotated
                spark_conf, popen_kwargs={"stdout": _jvm_log, "stderr": _jvm_log}
            )
        except Exception as err:
            raise SessionError(
                f"Spark did not start: {_first_line(err)} (see {log_dir / JVM_OUT})"
            ) from None
    SparkContext._gateway = gateway
    SparkContext._jvm = gateway.jvm


def _remote_session(remote: str, conf: Mapping[str, str], app_name: str) -> SparkSession:
    try:
        from pyspark.sql.connect.utils import check_dependencies

        check_dependencies()
    except Exception as err:
        raise SessionError(
            f"Spark Connect needs pyspark's connect extras ({_first_line(err)}); "
            "install them with: pip install 'pyspark[connect]==4.3.*'"
        ) from None
    from sqlengine.spark_connect import ConnectError, connect

    # the server's Spark is already running: only SQL settings reach it, set on our session
    settings = {**SESSION_SQL, **{k: v for k, v in session_overrides(conf).items() if k.startswith("spark.sql.")}}
    try:
        return connect(remote, app_name, settings)
    except ConnectError as err:
        raise SessionError(str(err)) from None


def job_session(base: SparkSession, sql_conf: Mapping[str, str]) -> SparkSession:
    """A Spark session of one job's own: the same SparkContext (and JVM) as ``base``, its own SQL
    settings, ``sql_conf`` applied. What a job sets for its runs (the end-of-input run's optimizer
    rules) then reaches no other query. Over Spark Connect: a new session on the same server,
    with the settings ``base`` was given."""
    from sqlengine.spark_connect import is_connect, new_session

    session = new_session(base) if is_connect(base) else base.newSession()
    for key, value in sql_conf.items():
        session.conf.set(key, value)
    return session


def stop_session(keep_class_cache: bool = True) -> None:
    """Stop the session and its JVM, so a later ``create_session`` starts afresh. A JVM writing
    the class cache is waited for, or with ``keep_class_cache=False`` (after Ctrl-C) killed and
    its archive dropped."""
    global _jvm_log
    with _lock:
        from pyspark import SparkContext
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
        gateway = SparkContext._gateway
        if gateway is None:
            return
        proc = getattr(gateway, "proc", None)
        try:
            gateway.shutdown()
        except Exception:  # the JVM may already be gone
            pass
        from sqlengine import class_cache

        exit_code = None
        if proc is not None:
            if proc.stdin:
                proc.stdin.close()  # the JVM exits when its stdin closes
            try:
                if class_cache.writing() and not keep_class_cache:
                    proc.kill()
                # a JVM writing the class cache takes a while to exit (once per pyspark and Java)
                exit_code = proc.wait(timeout=300 if class_cache.writing() and keep_class_cache else 30)
            except Exception:
                proc.kill()
        class_cache.adopt(exit_code)
        SparkContext._gateway = None
        SparkContext._jvm = None
        if _jvm_log is not None:
            _jvm_log.close()
            _jvm_log = None


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
