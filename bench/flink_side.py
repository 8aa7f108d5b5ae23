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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "conformance"))
from values import plain

INSERT_SELECT = re.compile(r"^\s*INSERT\s+INTO\s+\S+\s+(.*)$", re.IGNORECASE | re.DOTALL)


def statements(text: str) -> list[str]:
    """The script's statements: comment lines dropped, split at ';' (the Nexmark queries and our
    table DDL have no ';' inside a literal)."""
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in code.split(";") if s.strip()]


def environment(jar: str | None):
    from pyflink.common import Configuration
    from pyflink.table import EnvironmentSettings, TableEnvironment

    conf = Configuration()
    conf.set_string("parallelism.default", "2")
    conf.set_string("rest.bind-address", "127.0.0.1")
    conf.set_string("taskmanager.host", "127.0.0.1")
    conf.set_string("jobmanager.rpc.address", "127.0.0.1")
    if jar:  # one or more jars, separated by ';'
        conf.set_string("pipeline.jars", ";".join(Path(j).resolve().as_uri() for j in jar.split(";")))
    settings = EnvironmentSettings.new_instance().in_streaming_mode().with_configuration(conf).build()
    return TableEnvironment.create(settings)


def run(script: str, jar: str | None) -> None:
    env = environment(jar)
    for stmt in statements(script):
        result = env.execute_sql(stmt)
        if stmt.upper().startswith(("INSERT", "EXECUTE")):
            result.wait()


def rows(script: str, out: str, jar: str | None) -> None:
    env = environment(jar)
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
    # to_pandas collects through Arrow batches, the changelog applied (collect() takes 5 ms a row)
    frame = table.to_pandas()
    result = [[value(v, whole) for v, whole in zip(row, integral, strict=True)] for row in frame.itertuples(index=False)]
    Path(out).write_text(json.dumps(result))


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
