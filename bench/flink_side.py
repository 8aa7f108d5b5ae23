"""The Apache Flink side of bench/flink_compare.py: runs one SQL script on Flink 2.3's local
mini-cluster (PyFlink, parallelism 2, loopback only). Runs under a virtualenv with PyFlink, never
under sqlengine's own environment (Flink is not a dependency of sqlengine):

    python -m venv /tmp/flink && /tmp/flink/bin/pip install apache-flink==2.3.0
    /tmp/flink/bin/python bench/flink_side.py run SCRIPT [--jar JAR] [--batch]
    /tmp/flink/bin/python bench/flink_side.py rows SCRIPT OUT.json [--jar JAR]
    /tmp/flink/bin/python bench/flink_side.py latency RUNS DDL QUERY

``run`` executes every statement, waiting for each INSERT to finish (the timed run; with
``--batch`` in Flink's batch runtime mode, which a Flink user asks for on bounded input). ``rows``
executes the DDL and then the script's query (a SELECT, or the SELECT of an INSERT) and writes its
final table (the changelog applied) to OUT.json, each value in the form of sqlengine's JSON output,
so the two engines' rows compare as multisets. ``latency`` is bench/interactive_latency.py's side. The environment, the statement splitting and the
changelog are tests/conformance/on_flink.py's, shared with the suites' expected-result scripts.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))
from on_flink import apply_changelog, environment, kind_of, physical_plan, statements, upsert_key
from values import plain

INSERT_SELECT = re.compile(r"^\s*INSERT\s+INTO\s+\S+\s+(.*)$", re.IGNORECASE | re.DOTALL)


def run(script: str, jars: str | None, batch: bool = False) -> None:
    env = environment(parallelism=2, jars=jars, streaming=not batch)
    for stmt in statements(script):
        result = env.execute_sql(stmt)
        if stmt.upper().startswith(("INSERT", "EXECUTE")):
            result.wait()


def rows(script: str, out: str, jars: str | None) -> None:
    env = environment(parallelism=2, jars=jars, streams=True)
    query = None
    for stmt in statements(script):
        m = INSERT_SELECT.match(stmt)
        if m or stmt.upper().startswith(("SELECT", "WITH")):
            query = m.group(1) if m else stmt
        else:
            env.execute_sql(stmt)
    if query is None:
        raise SystemExit("the script has no query (SELECT, or INSERT INTO ... SELECT)")
    table = env.sql_query(query)
    integral = [str(t).startswith(("BIGINT", "INT", "SMALLINT", "TINYINT")) for t in table.get_schema().get_field_data_types()]
    plan = physical_plan(table)
    if "changelogMode=[I]" in plan[0] and not any("Rank(" in line for line in plan):
        # through Arrow batches: a row at a time through py4j takes 3 to 5 ms
        found = list(table.to_pandas().itertuples(index=False))
    else:
        with env.to_changelog_stream(timestamps_as_text(env, table)).execute_and_collect() as stream:
            changes = [(kind_of(row), tuple(row)) for row in stream]
        found = apply_changelog(changes, upsert_key(table))
    result = [[value(v, whole) for v, whole in zip(row, integral, strict=True)] for row in found]
    Path(out).write_text(json.dumps(result))


def latency(runs: int, ddl: str, query: str) -> None:
    """bench/interactive_latency.py's Flink side: ``query`` run ``runs`` times in one
    TableEnvironment (the first starts the mini-cluster); per run, one JSON line: seconds from
    the statement to its first row, and how long after its window_end (the row's second column)
    plus the 1-second watermark delay the row came."""
    import time

    env = environment(parallelism=2, conf={"table.local-time-zone": "UTC"})
    env.execute_sql(ddl)
    for i in range(runs):
        sent = time.perf_counter()
        result = env.execute_sql(query)
        with result.collect() as rows:
            row = next(iter(rows))
            seen, wall = time.perf_counter(), time.time()
        due = row[1].replace(tzinfo=dt.UTC) + dt.timedelta(seconds=1)
        print(json.dumps({"engine": "flink", "run": i + 1, "first_row": seen - sent, "over": wall - due.timestamp()}), flush=True)
        time.sleep(1)


def timestamps_as_text(env, table):
    """The result with its TIMESTAMP columns as text (Flink's CAST gives them to the millisecond,
    as sqlengine prints them): a changelog stream hands Python a timestamp as raw bytes."""
    env.create_temporary_view("flink_side_result", table)
    names = table.get_schema().get_field_names()
    types = [str(t) for t in table.get_schema().get_field_data_types()]
    cols = [f"CAST(`{n}` AS STRING) AS `{n}`" if t.startswith(("TIMESTAMP", "LOCAL_ZONED")) else f"`{n}`"
            for n, t in zip(names, types, strict=True)]
    return env.sql_query(f"SELECT {', '.join(cols)} FROM flink_side_result")


def value(v, integral: bool):
    """One result value in the form sqlengine's JSON output has it: timestamps as text to the
    millisecond, decimals as their text with their scale, floats to 9 significant digits; a NULL
    that pandas made NaN is None again, and an integer column pandas made float is integer."""
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if hasattr(v, "to_pydatetime"):
        v = v.to_pydatetime()
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()  # numpy scalar
    if isinstance(v, float) and integral:
        return int(v)
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ", timespec="milliseconds")
    return plain(v)


def main(argv: list[str]) -> None:
    jar = None
    if "--jar" in argv:
        i = argv.index("--jar")
        jar = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    batch = "--batch" in argv
    argv = [a for a in argv if a != "--batch"]
    verb = argv[0]
    script = Path(argv[1]).read_text() if verb in ("run", "rows") else ""
    if verb == "run":
        run(script, jar, batch)
    elif verb == "rows":
        rows(script, argv[2], jar)
    elif verb == "latency":
        latency(int(argv[1]), argv[2], argv[3])
    else:
        raise SystemExit(f"unknown verb {verb!r}: run or rows")


if __name__ == "__main__":
    main(sys.argv[1:])
