"""Spark's own logging goes to a file, never to the user's terminal.

A log4j2 properties file routes every logger to ``<log_dir>/spark.log``; the driver JVM gets it
through ``-Dlog4j.configurationFile``. Because a configuration is given, Spark does not print its
"Using Spark's default log4j profile" banner either. What the JVM itself writes to stdout/stderr
(e.g. "WARNING: Using incubator modules") is caught separately: the gateway process is started
with its stdout/stderr on ``<log_dir>/jvm.out`` (see ``sqlengine.session``).
"""

from __future__ import annotations

from pathlib import Path

from catalog.home import private_dir

SPARK_LOG = "spark.log"
JVM_OUT = "jvm.out"
LOG4J_FILE = "log4j2.properties"

_TEMPLATE = """\
# written by sqlengine: Spark's logs go to a file, nothing to the terminal
status = error
name = sqlengine
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yyyy-MM-dd HH:mm:ss.SSS}} %p %c{{1}}: %m%n%ex
rootLogger.level = {level}
rootLogger.appenderRef.file.ref = file
# chatty even at WARN and never actionable for a user of a local engine
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = warn
logger.parquet.name = org.apache.parquet
logger.parquet.level = error
"""


def write_log4j_config(log_dir: Path, level: str = "WARN") -> Path:
    """Write the log4j2 properties file into ``log_dir`` and return its path."""
    private_dir(log_dir)  # owner-only, as the home's logs
    path = log_dir / LOG4J_FILE
    # log4j2 properties treat backslashes as escapes; forward slashes work on every platform
    log_file = (log_dir / SPARK_LOG).resolve().as_posix()
    path.write_text(_TEMPLATE.format(log_file=log_file, level=level.upper()))
    return path


def java_option(config_file: Path) -> str:
    return f"-Dlog4j.configurationFile={config_file.resolve().as_uri()}"


PYTHON_LOG = "python.log"
# PySpark 4 logs every analysis error with a DataFrame/SQL context as JSON to stderr from these
# loggers (before the exception is even raised); py4j logs callback-server hiccups.
_PYTHON_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger", "py4j")


def quiet_python_loggers(log_dir: Path) -> None:
    """Send PySpark's and Py4J's Python-side logging to ``<log_dir>/python.log``."""
    import logging

    private_dir(log_dir)  # owner-only, as the home's logs
    target = str((log_dir / PYTHON_LOG).resolve())
    for name in _PYTHON_LOGGERS:
        if name == "py4j":
            logger = logging.getLogger(name)
        else:
            from pyspark.logger import PySparkLogger

            logger = PySparkLogger.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.FileHandler) and handler.baseFilename == target:
                continue
            logger.removeHandler(handler)
            handler.close()
        if not logger.handlers:
            logger.addHandler(logging.FileHandler(target, encoding="utf-8", delay=True))
        logger.propagate = False
