"""The Apache Flink side of bench/flink_compare.py: runs one SQL script on Flink 2.3's local
mini-cluster (PyFlink, parallelism 2, loopback only). Runs under a virtualenv with PyFlink, never
under sqlengine's own environment (Flink is not a dependency of sqlengine):

    python -m venv /tmp/flink && /tmp/flink/bin/pip install apache-flink==2.3.0
    /tmp/flink/bin/python bench/flink_side.py run SCRIPT [--jar JAR]
    /tmp/flink/bin/python bench/flink_side.py rows SCRIPT OUT.json [--jar JAR]

``run`` executes every statement, waiting for each INSERT to finish (the timed run). ``rows``
executes the DDL and then the script's query (a SELECT, or the SELECT of an INSERT) and writes its final table (the
changelog applied) to OUT.json, each value in the form of sqlengine's JSON output, so the two
engines' rows compare as multisets. Standard library and PyFlink only.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))
from values import plain

INSERT_SELECT = re.compile(r"^\s*INSERT\s+INTO\s+\S+\s+(.*)$", re.IGNORECASE | re.DOTALL)


def statements(text: str) -> list[str]:
    """The script's statements: comment lines dropped, split at ';' (the Nexmark queries and our
    table DDL have no ';' inside a literal)."""
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in code.split(";") if s.strip()]


def environment(jar: str | None, streams: bool = False):
    """A streaming TableEnvironment; with ``streams``, one over a StreamExecutionEnvironment (for
    ``to_changelog_stream``)."""
    from pyflink.common import Configuration
    from pyflink.table import EnvironmentSettings, StreamTableEnvironment, TableEnvironment

    conf = Configuration()
    conf.set_string("parallelism.default", "2")
    conf.set_string("rest.bind-address", "127.0.0.1")
    conf.set_string("taskmanager.host", "127.0.0.1")
    conf.set_string("jobmanager.rpc.address", "127.0.0.1")
    if jar:  # one or more jars, separated by ';'
        conf.set_string("pipeline.jars", ";".join(Path(j).resolve().as_uri() for j in jar.split(";")))
    if streams:
        from pyflink.datastream import StreamExecutionEnvironment

        return StreamTableEnvironment.create(StreamExecutionEnvironment.get_execution_environment(conf))
    settings = EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(conf).build()
    return TableEnvironment.create(settings)


def run(script: str, jar: str | None) -> None:
    env = environment(jar)
    for stmt in statements(script):
        result = env.execute_sql(stmt)
        if stmt.upper().startswith(("INSERT", "EXECUTE")):
            result.wait()


def rows(script: str, out: str, jar: str | None) -> None:
    env = environment(jar, streams=True)
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
        found = final_table(env, timestamps_as_text(env, table), upsert_key(plan[0], table.get_schema().get_field_names()))
    result = [[value(v, whole) for v, whole in zip(row, integral, strict=True)] for row in found]
    Path(out).write_text(json.dumps(result))


def timestamps_as_text(env, table):
    """The result with its TIMESTAMP columns as text (Flink's CAST gives them to the millisecond,
    as sqlengine prints them): a changelog stream hands Python a timestamp as raw bytes."""
    env.create_temporary_view("flink_side_result", table)
    names = table.get_schema().get_field_names()
    types = [str(t) for t in table.get_schema().get_field_data_types()]
    cols = [f"CAST(`{n}` AS STRING) AS `{n}`" if t.startswith(("TIMESTAMP", "LOCAL_ZONED")) else f"`{n}`"
            for n, t in zip(names, types, strict=True)]
    return env.sql_query(f"SELECT {', '.join(cols)} FROM flink_side_result")


def physical_plan(table) -> list[str]:
    """The optimized physical plan's lines, each node with its changelog mode; the root first."""
    from pyflink.table.explain_detail import ExplainDetail

    plan = table.explain(ExplainDetail.CHANGELOG_MODE)
    section = plan.split("== Optimized Physical Plan ==", 1)[1].split("==", 1)[0]
    return [line for line in section.strip().splitlines() if line.strip()]


def upsert_key(root: str, names: list[str]) -> list[int]:
    """The output positions of the root's partition or group keys (a Top-N's PARTITION BY)."""
    m = re.search(r"(?:partitionBy|groupBy)=\[([^\]]*)\]", root)
    keys = [k.strip() for k in m.group(1).split(",")] if m else []
    return [names.index(k) for k in keys if k in names]


def final_table(env, table, key: list[int]) -> list[list]:
    """An updating result's final rows, its changes applied in order. Flink 2.3 plans Nexmark
    q9's Top-1 as insert-only (changelogMode=[I]) yet sends a +U, with no -U before it, each time
    an auction's top bid changes (to_pandas keeps every one as a row): a stream with +U and no -U
    is applied as upserts on the root's keys, one row per key; any other as retractions."""
    from pyflink.common import RowKind

    changes = []
    with env.to_changelog_stream(table).execute_and_collect() as stream:
        for row in stream:
            changes.append((row.get_row_kind(), tuple(row)))
    kinds = {kind for kind, _ in changes}
    if RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds and key:
        latest: dict = {}
        for kind, row in changes:
            k = tuple(row[i] for i in key)
            if kind == RowKind.DELETE:
                latest.pop(k, None)
            else:
                latest[k] = row
        return list(latest.values())
    table_rows: Counter = Counter()
    for kind, row in changes:
        table_rows[row] += 1 if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER) else -1
    assert all(n >= 0 for n in table_rows.values()), "a retraction of a row that was not there"
    return list(table_rows.elements())


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
    verb, script = argv[0], Path(argv[1]).read_text()
    if verb == "run":
        run(script, jar)
    elif verb == "rows":
        rows(script, argv[2], jar)
    else:
        raise SystemExit(f"unknown verb {verb!r}: run or rows")


if __name__ == "__main__":
    main(sys.argv[1:])
