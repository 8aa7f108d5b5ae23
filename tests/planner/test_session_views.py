"""CREATE VIEW at the planner level: errors placed in the statement's own text, the view's
column list honoured by DESCRIBE, and a column list of the wrong length refused."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DDL = "CREATE TABLE t (page STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');\n\n\n"


def run(sql: str):
    session = PlannerSession(Catalog.in_memory())
    return [session.execute(stmt) for stmt in parse_script(DDL + sql, "v.sql").statements]


def test_an_error_in_a_view_query_is_placed_in_the_create_view_statement():
    with pytest.raises(SqlError) as caught:
        run("CREATE VIEW v AS SELECT b FROM t;")
    assert (caught.value.line, caught.value.column) == (4, 25)
    assert "Unknown column `b`" in caught.value.message


def test_describe_a_view_uses_its_column_list():
    *_, described = run("CREATE VIEW busy (page, n) AS SELECT page, COUNT(*) FROM t GROUP BY page;\nDESCRIBE busy;")
    assert [r[0] for r in described.rows] == ["page", "n"]
    assert described.rows[1][1].startswith("BIGINT")


def test_a_column_list_of_the_wrong_length_is_refused():
    with pytest.raises(SqlError) as caught:
        run("CREATE VIEW bad (page) AS SELECT page, COUNT(*) FROM t GROUP BY page;")
    assert "names 1 column but its query has 2" in caught.value.message
    assert caught.value.line == 4
