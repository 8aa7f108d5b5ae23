"""Tables declared with Flink's legacy options ('connector.type' = 'filesystem', 'format.type' =
'csv'): sqlengine reads the rows Flink 2.3 reads from the same files (expected.json, written by
tests/fixtures/legacy_csv/make_expected.py), in both runtime modes. The legacy CSV format quotes
nothing unless a quote character is given, and Nexmark's q13 joins its side table so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, multiset

pytestmark = pytest.mark.spark

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_csv"
EXPECTED = json.loads((HERE / "expected.json").read_text())


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    engine = Engine(home=tmp_path_factory.mktemp("legacy") / "home", spark=spark, variables={"DATA": str(HERE)})
    out = Sql(engine)
    out.ddl((HERE / "tables.sql").read_text())
    return out


def test_the_queries_are_flinks():
    queries = [s.text.strip().rstrip(";") for s in parse_script((HERE / "queries.sql").read_text()).statements]
    assert queries == [case["query"] for case in EXPECTED]


@pytest.mark.parametrize("case", EXPECTED, ids=lambda c: c["query"].split(" FROM ")[1].split()[0])
@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_rows_equal_flinks(sql, case, mode):
    assert multiset(sql.rows(case["query"], mode)) == multiset(case["rows"])
