"""SHOW TABLES | VIEWS | FUNCTIONS | USER FUNCTIONS [NOT] LIKE | ILIKE: one pattern, applied the same
way to tables, views, user functions and built-in functions."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from planner.statements.show import BUILTIN_FUNCTIONS

DDL = """CREATE TABLE my_orders (a BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE `my*x` (a BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE other (a BIGINT) WITH ('connector' = 'datagen');
CREATE VIEW my_view AS SELECT a FROM other;
CREATE FUNCTION my_upper AS 'com.example.MyUpper';
CREATE FUNCTION MyLower AS 'com.example.MyLower';
"""


def names(show: str) -> list[str]:
    session = PlannerSession(Catalog.in_memory())
    *_, outcome = [session.execute(s) for s in parse_script(DDL + show).statements]
    return [r[0] for r in outcome.rows]


@pytest.mark.parametrize(
    ("show", "expected"),
    [
        ("SHOW FUNCTIONS LIKE 'my%';", ["my_upper"]),
        ("SHOW USER FUNCTIONS LIKE 'my%';", ["my_upper"]),
        ("SHOW USER FUNCTIONS;", ["MyLower", "my_upper"]),
        ("SHOW USER FUNCTIONS ILIKE 'my%';", ["MyLower", "my_upper"]),
        ("SHOW FUNCTIONS LIKE 'UPP%';", ["UPPER"]),
        ("SHOW FUNCTIONS ILIKE 'upp%';", ["UPPER"]),
        ("SHOW FUNCTIONS LIKE 'TUMBLE_%';", ["TUMBLE_END", "TUMBLE_PROCTIME", "TUMBLE_ROWTIME", "TUMBLE_START"]),
        ("SHOW TABLES LIKE 'my%';", ["my*x", "my_orders", "my_view"]),
        ("SHOW TABLES LIKE 'my*%';", ["my*x"]),  # only % and _ are wildcards
        ("SHOW TABLES NOT LIKE 'my%';", ["other"]),
        ("SHOW VIEWS LIKE 'my_v%';", ["my_view"]),
        ("SHOW TABLES LIKE 'MY%';", []),  # LIKE is case-sensitive, as in Flink
    ],
)
def test_like_filters_every_list(show, expected):
    assert names(show) == expected


def test_show_functions_lists_the_built_in_and_the_user_functions():
    listed = names("SHOW FUNCTIONS;")
    assert listed == sorted(listed) and {"my_upper", "MyLower", "UPPER", "COUNT", "ROW_NUMBER"} <= set(listed)
    assert len(listed) == len(BUILTIN_FUNCTIONS) + 2
    not_my = names("SHOW FUNCTIONS NOT LIKE 'my%';")
    assert "my_upper" not in not_my and "MyLower" in not_my and "UPPER" in not_my
