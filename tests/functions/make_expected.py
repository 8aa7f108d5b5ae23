"""Writes the function suite's expected values by evaluating each case on Apache Flink 2.3 (a
local mini-cluster, loopback only, batch mode, 'table.local-time-zone' = 'UTC' as sqlengine's
session, or the zone of the group's ``@zone`` line). Not run in CI: expected/<group>.json is committed and test_functions.py compares
sqlengine with it.

    /tmp/flink/bin/python tests/functions/make_expected.py [GROUP ...]

A group's cases run as one query. A case Flink refuses (validation) or that fails the job is
found by running it alone, and recorded with the error's first line and where it happened
("plan" or "run"); the group then runs without it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from pyflink.table import TableEnvironment

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "conformance"))
from cases import LTZ_RENDER, TEXT_RENDER, Case, groups, query, read, zone  # noqa: E402
from on_flink import environment, statements  # noqa: E402
from values import plain  # noqa: E402


def table(data: Path) -> TableEnvironment:
    env = environment(parallelism=1, streaming=False, conf={"table.local-time-zone": "UTC"})
    for stmt in statements((HERE / "table.sql").read_text().replace("${DATA}", str(data))):
        env.execute_sql(stmt)
    return env


def first_line(err: Exception) -> str:
    """The innermost Java cause's first line (a Py4J error's own first line names only the call)."""
    java = getattr(err, "java_exception", None)
    if java is None:
        return str(err).strip().splitlines()[0][:300]
    while java.getCause() is not None and java.getCause() != java:
        java = java.getCause()
    return str(java.toString()).splitlines()[0][:300]


def run(env: TableEnvironment, sql: str) -> tuple[list[str], list[list]]:
    result = env.execute_sql(sql)
    types = [str(c._j_column.getDataType().toString()) for c in result.get_resolved_schema().get_columns()]
    with result.collect() as rows:
        out = sorted((list(r) for r in rows), key=lambda r: r[0])
    return types, out


def failing(env: TableEnvironment, cases: list[Case], idx: list[int]) -> dict[int, dict]:
    """The cases among ``idx`` that fail the job, found by halving (a few jobs, not one each)."""
    try:
        run(env, query([cases[i] for i in idx]))
        return {}
    except Exception as err:
        if len(idx) == 1:
            return {idx[0]: {"error": first_line(err), "stage": "run"}}
    half = len(idx) // 2
    return failing(env, cases, idx[:half]) | failing(env, cases, idx[half:])


def values(env: TableEnvironment, cases: list[Case], idx: list[int]) -> tuple[dict[int, str], dict[int, list]]:
    """Each case's type and values (by row id), from one query of them all; in halves when Flink
    cannot plan them together though each runs alone (2.3 fails with a ClassCastException when
    some PARSE_JSON cases share a query)."""
    try:
        types, rows = run(env, query([cases[i] for i in idx]))
    except Exception:
        if len(idx) == 1:
            raise
        half = len(idx) // 2
        (t1, v1), (t2, v2) = values(env, cases, idx[:half]), values(env, cases, idx[half:])
        return t1 | t2, v1 | v2
    return ({i: types[n + 1] for n, i in enumerate(idx)}, {i: [r[n + 1] for r in rows] for n, i in enumerate(idx)})


def evaluate(env: TableEnvironment, group: str) -> list[dict]:
    cases = read(group)
    failed: dict[int, dict] = {}
    for i, c in enumerate(cases):  # validation alone is cheap: no job
        try:
            kind = str(env.sql_query(query([c])).get_resolved_schema().get_columns()[1]._j_column.getDataType())
        except Exception as err:
            failed[i] = {"error": first_line(err), "stage": "plan"}
            continue
        if kind.startswith("TIMESTAMP_LTZ"):  # PyFlink cannot collect an Instant: read its UTC wall time
            cases[i] = Case(c.group, c.function, LTZ_RENDER.format(c.expr))
    ok = [i for i in range(len(cases)) if i not in failed]
    failed |= failing(env, cases, ok)
    for i, f in list(failed.items()):
        if f["stage"] == "run" and "java" not in f["error"].split(":")[0]:
            # PyFlink failed to collect the value (a DOUBLE's Infinity), not Flink: read its text
            c = cases[i]
            cases[i] = Case(c.group, c.function, TEXT_RENDER.format(c.expr))
            if failing(env, cases, [i]):
                cases[i] = c  # Flink's own failure after all
            else:
                del failed[i]
    ok = [i for i in range(len(cases)) if i not in failed]
    types, columns = values(env, cases, ok)
    out = []
    for i, c in enumerate(cases):
        entry: dict = {"function": c.function, "expr": read(group)[i].expr}
        if c.expr != entry["expr"]:
            entry["rendered"] = c.expr
        if i in failed:
            entry.update(failed[i])
        else:
            entry["type"] = types[i]
            entry["values"] = [plain(v) for v in columns[i]]
        out.append(entry)
    return out


def main(names: list[str]) -> None:
    (HERE / "expected").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "t"
        data.mkdir()
        (data / "input.json").write_text((HERE / "input.json").read_text())
        env = table(data)
        for group in names or groups():
            env.get_config().set("table.local-time-zone", zone(group))
            cases = evaluate(env, group)
            with open(HERE / "expected" / f"{group}.json", "w") as fh:
                json.dump({"flink": "2.3.0", "group": group, "cases": cases}, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
            errors = sum("error" in c for c in cases)
            print(f"{group}: {len(cases)} cases, {errors} errors in Flink", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
