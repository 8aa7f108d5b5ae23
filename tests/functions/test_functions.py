"""Flink's built-in functions on sqlengine against Flink 2.3's own values: each case of cases/
(a function, an expression over table.sql's four rows) must give the value Flink gave
(expected/, written by make_expected.py with PyFlink; CI needs no Flink), or be refused when the
statement is planned, or be listed in known_differences.json, which may only shrink: a listed
case that now agrees fails until its entry is removed.

All cases of a group are one SELECT (one Spark job per group and mode, not one per case)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from planner import time_zone
from planner.analysis.check.functions import REFUSED
from sqlengine.engine import Engine
from tests.conformance.values import plain
from tests.functions.cases import HERE, Case, groups, query, zone
from tests.functions.suite import Expected, expected, known_differences, same
from tests.sqlengine.helpers import Sql

pytestmark = pytest.mark.spark

EXPECTED = expected()
KNOWN = known_differences()
# groups that also run as a streaming job: the time functions, as representative (a streaming
# job costs several seconds more than a batch one; all groups would double the module's time)
STREAMED = ("time", "zone")


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    engine = Engine(home=tmp_path_factory.mktemp("functions"), spark=spark)
    runner = Sql(engine)
    data = tmp_path_factory.mktemp("functions-data") / "t"
    data.mkdir()
    shutil.copyfile(HERE / "input.json", data / "input.json")
    runner.ddl((HERE / "table.sql").read_text().replace("${DATA}", str(data)))
    return runner


def refusal(sql: Sql, cases: list[Expected]) -> str | None:
    """The planner's refusal of the cases' query, if it refuses it (no job runs)."""
    try:
        outcome = sql.outcome(query([Case(e.group, e.function, e.rendered) for e in cases]))
    except Exception as err:
        return str(err).splitlines()[0]
    problems = outcome.analysis.problems
    return problems[0].message if problems else None


def _columns(rows: list[tuple]) -> list[list[Any]]:
    """Per case, its values over the input rows (ordered by id)."""
    rows = sorted(rows, key=lambda r: r[0])
    return [[plain(r[i]) for r in rows] for i in range(1, len(rows[0]))] if rows else []


def _evaluate(sql: Sql, cases: list[Expected], mode: str) -> dict[str, Any]:
    """Each case's values, from one job for all of them; if that job fails, each case alone
    (its own error then reported against it)."""
    if not cases:
        return {}
    as_cases = [Case(e.group, e.function, e.rendered) for e in cases]
    try:
        return {e.key: col for e, col in zip(cases, _columns(sql.rows(query(as_cases), mode)), strict=True)}
    except Exception:
        out: dict[str, Any] = {}
        for e, c in zip(cases, as_cases, strict=True):
            try:
                out[e.key] = _columns(sql.rows(query([c]), mode))[0]
            except Exception as err:
                out[e.key] = err
        return out


@pytest.fixture(scope="module")
def results(sql: Sql) -> dict[str, dict[str, Any]]:
    """mode -> case key -> values, or the exception its job raised, or the checker's refusal."""
    out: dict[str, dict[str, Any]] = {"batch": {}, "streaming": {}}
    for g in groups():
        sql.engine.planner.settings[time_zone.SETTING] = zone(g)
        try:
            _run_group(sql, g, out)
        finally:
            del sql.engine.planner.settings[time_zone.SETTING]
    return out


def _run_group(sql: Sql, g: str, out: dict[str, dict[str, Any]]) -> None:
    cases, runnable = [e for e in EXPECTED if e.group == g], []
    if refusal(sql, cases) is None:  # one plan for the group; a case at a time if it is refused
        runnable = cases
    for e in cases if not runnable else ():
        why = refusal(sql, [e])
        if why is not None:
            out["batch"][e.key] = out["streaming"][e.key] = Refused(why)
        else:
            runnable.append(e)
    # the known differences in a job of their own (one that fails must not fail the
    # others), in batch mode only: streaming adds no news about a difference on record; the
    # cases Flink fails when it runs them in another (that job fails, and each runs alone)
    known = [e for e in runnable if e.key in KNOWN]
    failing = [e for e in runnable if e.key not in KNOWN and e.stage == "run"]
    others = [e for e in runnable if e.key not in KNOWN and e.stage != "run"]
    for part in (others, known, failing):
        out["batch"] |= _evaluate(sql, part, "batch")
    if g in STREAMED:
        for part in (others, failing):
            out["streaming"] |= _evaluate(sql, part, "streaming")


class Refused(str):
    """The checker's message: the case does not start a job."""


def test_the_suite_is_whole() -> None:
    """Every group has Flink's values, every case of the case files is in them, and every known
    difference names a case."""
    assert sorted(p.stem for p in (HERE / "expected").glob("*.json")) == groups()
    keys = {e.key for e in EXPECTED}
    from tests.functions.cases import read

    assert keys == {f"{c.group}: {c.expr}" for g in groups() for c in read(g)}, "run make_expected.py"
    assert set(KNOWN) <= keys, f"known differences of no case: {sorted(set(KNOWN) - keys)}"


def _verdict(e: Expected, got: Any) -> str | None:
    """None when sqlengine agrees with Flink on the case, else how it differs."""
    if isinstance(got, Refused):  # before any job: right when the function is refused, or Flink fails too
        if e.function.upper() in REFUSED or e.error is not None:
            return None
        return f"sqlengine refuses it when planning: {got}"
    if e.error is not None:  # Flink fails the query; so must we, before the job where Flink does
        if isinstance(got, BaseException) and e.stage == "run":
            return None
        if isinstance(got, BaseException):
            return f"Flink refuses it when planning ({e.error}); sqlengine fails the job"
        return f"Flink fails ({e.stage}: {e.error}); sqlengine gives {got}"
    if isinstance(got, BaseException):
        return f"sqlengine fails: {str(got).splitlines()[0][:300]}"
    if not same(e.values, got):
        return f"Flink gives {e.values}, sqlengine {got}"
    return None


RUNS = [(e, "batch") for e in EXPECTED] + [(e, "streaming") for e in EXPECTED if e.group in STREAMED and e.key not in KNOWN]


@pytest.mark.parametrize(("case", "mode"), RUNS, ids=[f"{m}-{e.key}" for e, m in RUNS])
def test_sqlengine_gives_flinks_value(case: Expected, mode: str, results: dict) -> None:
    verdict = _verdict(case, results[mode][case.key])
    if case.key in KNOWN:
        assert verdict is not None, f"{case.key} now agrees with Flink: remove it from known_differences.json"
    else:
        assert verdict is None, f"{case.key} ({mode}): {verdict}"


ISSUE_TABLE = """CREATE TABLE events (
    id INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), lt AS LOCALTIMESTAMP,
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}', 'format' = 'json')"""


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_the_issues_computed_time_columns_run_with_flinks_rows(sql: Sql, mode: str) -> None:
    """Issue 15's two failures: an event-time column computed with TO_TIMESTAMP_LTZ(v, 3) and a
    LOCALTIMESTAMP column (its value is the time of the query: only that it is one is checked)."""
    data = Path(sql.engine.home) / "events"
    if not data.exists():
        data.mkdir()
        shutil.copyfile(HERE / "input.json", data / "input.json")
        sql.ddl(ISSUE_TABLE.replace("${DATA}", str(data)))
    flink = next(e for e in EXPECTED if e.expr == "TO_TIMESTAMP_LTZ(ms, 3)").values
    rows = sorted(sql.rows("SELECT id, CAST(ts AS TIMESTAMP(3)), lt IS NOT NULL FROM events WHERE ms IS NOT NULL", mode))
    with_ms = [v for v in flink if v is not None]
    assert [plain(r[1]) for r in rows] == with_ms and all(r[2] for r in rows)
