"""Spark and Java failures as one line a user can act on. The full trace goes to the log; this
text never contains a Java stack trace. Matching is on Spark's error condition, not its text."""

from __future__ import annotations

import re

# condition prefix -> what to tell the user (the condition's own first line follows)
ADVICE = {
    "STREAMING_OUTPUT_MODE": "Spark cannot emit this query's results in the output mode it needs",
    "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING": "windows on streams must be assigned on a time attribute",
    "MALFORMED_RECORD_IN_PARSING": "a malformed input record; set 'errors.mode' = 'null-fields', 'skip' or 'dead-letter' on the table to keep going",
    "FAILED_READ_FILE": "an input file could not be read",
    "PATH_NOT_FOUND": "an input path does not exist",
    "CAST_INVALID_INPUT": "a value could not be cast to the column's type",
    "DIVIDE_BY_ZERO": "division by zero",
    "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE": "the watermark column must be a TIMESTAMP",
    "STATE_STORE": "the job's state store failed (a changed query over an old checkpoint?)",
    "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA": (
        "the query's stateful operators changed since its checkpoint was written; "
        "remove the checkpoint (or set 'pipeline.name' to a new name) to start over"
    ),
}

# a record a FAILFAST read could not parse: somewhere in the chain, whatever the deepest cause
MALFORMED = ("MALFORMED_RECORD_IN_PARSING", "Malformed records are detected")

_JAVA_LINE = re.compile(r"^\s*(at |\.\.\. \d+ more|Caused by:|JVM stacktrace:)")


def condition_of(err: BaseException) -> str | None:
    fn = getattr(err, "getCondition", None)  # pyspark >= 4.0 (getErrorClass is deprecated)
    if callable(fn):
        try:
            value = fn()
        except Exception:
            value = None
        if value:
            return str(value)
    m = re.search(r"\[([A-Z][A-Z0-9_.]+)\]", str(err))
    return m.group(1) if m else None


def first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line and not _JAVA_LINE.match(line) and not line.startswith(("py4j", "Traceback", "File ")):
            return line[:400]
    return text.strip()[:400]


_CONDITION_AT = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")


def deepest_condition(text: str) -> tuple[str, str] | None:
    """The innermost error condition in a (wrapped) error text, and its line from the condition on.

    A failure inside a streaming query arrives wrapped (a StreamingQueryException around the Python
    proxy's report around Java's "Caused by:" chain); the last condition named is the root cause:
    ``[MALFORMED_RECORD_IN_PARSING...]`` rather than the ``[FAILED_READ_FILE...]`` around it."""
    found = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("at "):
            continue
        m = _CONDITION_AT.search(line)
        if m:
            found = (m.group(1), line[m.start() :][:400])
    return found


def java_causes(err: BaseException, links: int = 8) -> list[str]:
    """The texts of the Java throwable behind ``err`` and its causes (a few links, never the
    stack trace): a streaming query reports a failed read as STREAM_FAILED, and the reason
    (MALFORMED_RECORD_IN_PARSING) is further down the Java cause chain."""
    cause = getattr(err, "_origin", None) or getattr(err, "java_exception", None)
    out: list[str] = []
    for _ in range(links):
        if cause is None:
            break
        try:
            out.append(str(cause.toString()))
            cause = cause.getCause()
        except Exception:  # not a Java throwable, or the JVM is gone
            break
    return out


_INTERRUPTIONS = ("java.lang.InterruptedException", "java.io.InterruptedIOException", "java.nio.channels.ClosedByInterruptException")
# HDFS's DFSOutputStream.closeThreads turns the InterruptedException of its join into this,
# without the interrupt as its cause; one with a cause is another failure
_HDFS_INTERRUPTED = "java.io.IOException: Failed to shutdown streamer"


def _captured_causes(err: BaseException, links: int = 8) -> list[str]:
    """The texts of the causes pyspark captured with ``err``: StreamingQuery.exception() keeps no
    Java throwable of its own, and a cause of a class pyspark does not know only as its text."""
    out: list[str] = []
    cause = getattr(err, "_cause", None)
    for _ in range(links):
        if cause is None:
            break
        if getattr(cause, "_origin", None) is not None:
            return out + java_causes(cause)
        out.append(str(getattr(cause, "_desc", "") or cause))
        cause = getattr(cause, "_cause", None)
    return out


def interrupted(err: BaseException) -> bool:
    """Whether a query failed because its thread was interrupted: stopping a query interrupts
    its batch, and Spark takes most such failures for the stop they are, but not one from deeper
    in a file system's client (HDFS's "Failed to shutdown streamer", which drops the interrupt)."""
    causes = java_causes(err) or _captured_causes(err)
    return any(c.startswith(_INTERRUPTIONS) for c in causes) or (bool(causes) and causes[-1] == _HDFS_INTERRUPTED)


def describe(err: BaseException) -> str:
    """One line: what went wrong, in Spark's words and ours."""
    cause = err
    seen = 0
    while cause.__cause__ is not None and seen < 5:
        cause = cause.__cause__
        seen += 1
    condition = condition_of(err) or condition_of(cause)
    message = first_line(str(err) or str(cause))
    chain = "\n".join([str(err), *java_causes(err)])
    failed = _user_function_failure(chain)
    if failed is not None:
        return failed
    refused = _OPERATOR_FAILURE.search(chain)
    if refused is not None:  # a changelog operator failed the job on purpose, as Flink's would
        return refused.group(1).strip()
    deepest = deepest_condition(chain) or deepest_condition(str(cause))
    if deepest is not None and (condition is None or "Traceback" in message or "Python Proxy" in message or deepest[0] != condition
                             or f"[{condition}" not in message):
        condition, message = deepest
    if condition == "USER_RAISED_EXCEPTION":  # a raise_error of ours, in Flink's words: the words alone
        return re.sub(r"\s*SQLSTATE: \w+\.?$", "", message.removeprefix("[USER_RAISED_EXCEPTION]").strip())
    if any(mark in chain for mark in MALFORMED):  # the root cause is the field that did not parse
        return f"{ADVICE['MALFORMED_RECORD_IN_PARSING']}: {message}"
    if condition:
        for prefix, advice in ADVICE.items():
            if condition.startswith(prefix):
                return f"{advice}: {message}"
        return message
    if _is(err, "py4j.protocol", "Py4JError") or isinstance(err, ConnectionRefusedError):
        return "Spark stopped unexpectedly; the details are in the log"  # Py4JNetworkError is a Py4JError
    if _is(err, "pyspark.errors", "StreamingQueryException"):
        return f"the streaming query failed: {message}"
    return message


# an exception a changelog operator raises to fail its job with a message of its own (its class
# lives in sqlengine.changelog; an unforeseen error there is a builtin one and keeps its trace)
_OPERATOR_FAILURE = re.compile(r"^sqlengine\.changelog\.[\w.]+Error: (.+)$", re.M)
# a user function that failed on a row raises with this marker before its one line
USER_FAILURE_MARKER = "USER_FUNCTION_FAILED"
_USER_FAILURE = re.compile(r"\[USER_FUNCTION_FAILED\] (.*)")
_JVM_FAILURE = re.compile(r"User defined function \(`(sqlengine_udf_\w+).*?\) failed due to: (.*?)(?:\. SQLSTATE|$)", re.M)

# a user function's name in a job's Spark session -> where it is called and its SQL name
# (sqlengine.translate.udfs registers them), for the error of a JVM function that throws
USER_FUNCTIONS: dict[str, tuple[str, str]] = {}


def _user_function_failure(text: str) -> str | None:
    """A Python user function that raised on a row (``sqlengine.translate.udfs``): its own line,
    which names the call's position, the function and the row's arguments. A JVM function that
    threw: its position, its name and the exception."""
    m = _USER_FAILURE.search(text)
    if m:
        line = m.group(1).strip()
        # an aggregate function's line starts with its name in the job (its position is known here)
        label, _, rest = line.partition(": ")
        if label in USER_FUNCTIONS:
            line = f"{USER_FUNCTIONS[label][0]}: {rest}"
        return line[:400]
    m = _JVM_FAILURE.search(text)
    if m:
        where, name = USER_FUNCTIONS.get(m.group(1), ("", m.group(1)))
        return f"{where + ': ' if where else ''}{name}(...) threw {m.group(2).strip()}"[:400]
    return None


def _is(err: BaseException, module: str, name: str) -> bool:
    """``isinstance(err, module.name)``, without importing the module when it is not loaded
    (nothing of it can then have been raised)."""
    import sys

    loaded = sys.modules.get(module)
    cls = getattr(loaded, name, None) if loaded is not None else None
    return isinstance(cls, type) and isinstance(err, cls)


def from_spark(err: BaseException) -> bool:
    """Was ``err`` raised by Spark (PySpark's errors, or a Java exception through py4j)?"""
    return type(err).__module__.startswith(("pyspark", "py4j"))


# what a Spark error names of the query: `name` (an unresolved column or function), a call
# `fn(` inside a quoted expression, or "expr" of a type mismatch
_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`|([A-Za-z_][A-Za-z0-9_]*)\(|\"([^\"]{1,80})\"")


def named_in(message: str, text: str) -> tuple[int, int] | None:
    """Where in ``text`` (a statement) the first thing a Spark error names appears, as a
    half-open range, or None when nothing it names is found there (Spark's generated names,
    a computed column defined in another statement)."""
    for m in _NAMED.finditer(message):
        name = next(g for g in m.groups() if g)
        if name.upper() in {"SQLSTATE", "CAST"}:
            continue
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text, re.IGNORECASE)
        if found:
            return found.start(), found.end()
    return None
