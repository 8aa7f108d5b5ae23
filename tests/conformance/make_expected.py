"""Writes the conformance suite's expected results by running each query on Apache Flink 2.3,
the reference implementation (a local mini-cluster, loopback only). Not run in CI: its output,
expected/<query>.json, is committed and test_conformance.py compares sqlengine with it.

    python -m venv /tmp/flink && /tmp/flink/bin/pip install apache-flink==2.3.0
    /tmp/flink/bin/python tests/conformance/make_expected.py [QUERY ...]

Each query runs in Flink's streaming mode, its changelog collected with each row's kind and
applied (a -U/-D takes back one equal row), and in batch mode; the two final tables must agree
(else the script stops: the query or its data is not deterministic); a query whose comment says
"-- flink batch mode cannot run this: <why>" runs in streaming mode only. Flink reads each table as
one file, the parts concatenated in order (its file source promises no order across files, and
reading them out of order would make rows late). Parallelism 1, so watermarks follow that order.
Written per query: the final rows (sorted), the column names and types, and how many rows of
each kind Flink's changelog had, so a reader sees which queries update and retract.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from pyflink.table import TableEnvironment

sys.path.insert(0, str(Path(__file__).resolve().parent))
from on_flink import apply_changelog, environment, kind_of, statements, upsert_key
from values import plain, row_key, zone_of

HERE = Path(__file__).resolve().parent
STREAMING_ONLY = "-- flink batch mode cannot run this:"


def one_file_per_table(target: Path) -> Path:
    for table in sorted(p for p in (HERE / "data").iterdir() if p.is_dir()):
        (target / table.name).mkdir(parents=True)
        with open(target / table.name / "all.json", "w") as out:
            for part in sorted(table.glob("part-*.json")):
                out.write(part.read_text())
    return target


def tables(streaming: bool, data: Path) -> TableEnvironment:
    env = environment(parallelism=1, streaming=streaming)
    ddl = (HERE / "tables.sql").read_text().replace("${DATA}", str(data)).replace("${SOURCE_OPTIONS}", "").replace("${IN_ORDER_OPTIONS}", "")
    for stmt in statements(ddl):
        env.execute_sql(stmt)
    # the Python aggregate functions (functions.sql gives sqlengine the same classes)
    udfs = HERE / "udfs"
    sys.path.insert(0, str(udfs))
    import flink_aggs

    env.get_config().set("python.files", f"{udfs / 'conformance_aggs.py'},{udfs / 'flink_aggs.py'}")
    env.get_config().set("python.executable", sys.executable)
    for name, fn in flink_aggs.FUNCTIONS.items():
        env.create_temporary_function(name, fn)
    return env


def final_table(env: TableEnvironment, sql: str) -> tuple[list[list], list[dict], Counter]:
    """The query's final rows (its changelog applied, on_flink.apply_changelog), its columns, and
    how many changes of each kind it had."""
    query = env.sql_query(sql)
    result = query.execute()
    columns = [{"name": c.get_name(), "type": c._j_column.getDataType().toString()}
               for c in result.get_resolved_schema().get_columns()]
    with result.collect() as rows:
        changes = [(kind_of(row), tuple(json.dumps(v) for v in plain(list(row)))) for row in rows]
    kinds = Counter(kind for kind, _ in changes)
    key = upsert_key(query) if kinds["+U"] and not kinds["-U"] else []  # only an upsert stream needs it
    try:
        final = apply_changelog(changes, key)
    except ValueError as err:
        raise SystemExit(str(err)) from None
    return sorted(([json.loads(v) for v in row] for row in final), key=row_key), columns, kinds


def main(names: list[str]) -> None:
    queries = sorted((HERE / "queries").glob("*.sql"))
    if names:
        queries = [q for q in queries if q.stem in names]
    (HERE / "expected").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = one_file_per_table(Path(tmp))
        streaming, batch = tables(True, data), tables(False, data)
        for q in queries:
            for env in (streaming, batch):  # the query's '-- zone:' line, else UTC
                env.get_config().set("table.local-time-zone", zone_of(q.read_text()))
            sql = statements(q.read_text())[0]
            rows, columns, kinds = final_table(streaming, sql)
            # a query Flink's batch planner cannot run (its note says why) is checked in streaming only
            batch_rows = rows if STREAMING_ONLY in q.read_text() else final_table(batch, sql)[0]
            if rows != batch_rows:
                raise SystemExit(f"{q.stem}: Flink's streaming and batch results differ; not deterministic")
            expected = {"query": q.name, "flink": "2.3.0", "columns": columns,
                        "changelog": dict(sorted(kinds.items())), "rows": rows}
            with open(HERE / "expected" / f"{q.stem}.json", "w") as fh:
                json.dump(expected, fh, indent=1)
                fh.write("\n")
            print(f"{q.stem}: {len(rows)} rows, changelog {dict(sorted(kinds.items()))}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
