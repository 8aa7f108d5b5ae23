"""What every script that asks Apache Flink 2.3 for expected results shares: reading a SQL script
into statements, a loopback-only local mini-cluster, and applying a changelog to get the final
table. Used by tests/conformance/make_expected.py, tests/functions/make_expected.py and
bench/flink_side.py, which run in a virtualenv of their own with PyFlink (never in sqlengine's);
PyFlink is imported only inside the functions that need it, so the rest is standard library.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

INSERT = "+I"
UPDATE_BEFORE = "-U"
UPDATE_AFTER = "+U"
DELETE = "-D"


def statements(text: str) -> list[str]:
    """The script's statements: comment lines dropped, split at ';' (our table DDL and queries
    have no ';' inside a literal)."""
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("--"))
    return [s.strip() for s in code.split(";") if s.strip()]


def environment(*, parallelism: int, streaming: bool = True, jars: str | None = None,
                streams: bool = False, conf: dict[str, str] | None = None):
    """A TableEnvironment on a local mini-cluster bound to 127.0.0.1. ``jars``: one or more jar
    paths separated by ';'. ``streams``: a StreamTableEnvironment (for ``to_changelog_stream``)."""
    from pyflink.common import Configuration
    from pyflink.table import EnvironmentSettings, StreamTableEnvironment, TableEnvironment

    c = Configuration()
    settings = {"parallelism.default": str(parallelism), "rest.bind-address": "127.0.0.1",
                "taskmanager.host": "127.0.0.1", "jobmanager.rpc.address": "127.0.0.1", **(conf or {})}
    if jars:
        settings["pipeline.jars"] = ";".join(Path(j).resolve().as_uri() for j in jars.split(";"))
    for k, v in settings.items():
        c.set_string(k, v)
    if streams:
        from pyflink.datastream import StreamExecutionEnvironment

        return StreamTableEnvironment.create(StreamExecutionEnvironment.get_execution_environment(c))
    mode = EnvironmentSettings.new_instance()
    mode = mode.in_streaming_mode() if streaming else mode.in_batch_mode()
    return TableEnvironment.create(mode.with_configuration(c).build())


def kind_of(row) -> str:
    """A collected PyFlink row's change kind as Flink prints it (+I, -U, +U, -D)."""
    return str(row.get_row_kind())


def physical_plan(table) -> list[str]:
    """The optimized physical plan's lines, each node with its changelog mode; the root first."""
    from pyflink.table.explain_detail import ExplainDetail

    plan = table.explain(ExplainDetail.CHANGELOG_MODE)
    section = plan.split("== Optimized Physical Plan ==", 1)[1].split("==", 1)[0]
    return [line for line in section.strip().splitlines() if line.strip()]


def upsert_key(table) -> list[int]:
    """The output positions of the plan root's partition or group keys (a Top-N's PARTITION BY)."""
    names = table.get_schema().get_field_names()
    m = re.search(r"(?:partitionBy|groupBy)=\[([^\]]*)\]", physical_plan(table)[0])
    keys = [k.strip() for k in m.group(1).split(",")] if m else []
    return [names.index(k) for k in keys if k in names]


def apply_changelog(changes: list[tuple[str, tuple]], key: list[int]) -> list[tuple]:
    """An updating result's final rows, its changes (kind, row) applied in order. Flink 2.3 plans
    Nexmark q9's Top-1 as insert-only (changelogMode=[I]) yet sends a +U, with no -U before it, each
    time an auction's top bid changes: a stream with +U and no -U is applied as upserts on the
    root's keys, one row per key; any other as retractions (each -U/-D takes back one equal row)."""
    kinds = {kind for kind, _ in changes}
    if UPDATE_AFTER in kinds and UPDATE_BEFORE not in kinds and key:
        latest: dict = {}
        for kind, row in changes:
            k = tuple(row[i] for i in key)
            if kind == DELETE:
                latest.pop(k, None)
            else:
                latest[k] = row
        return list(latest.values())
    table: Counter = Counter()
    for kind, row in changes:
        if kind in (INSERT, UPDATE_AFTER):
            table[row] += 1
        elif table[row] <= 0:
            raise ValueError(f"{kind} of a row not in the table: {row}")
        else:
            table[row] -= 1
    return list(table.elements())
