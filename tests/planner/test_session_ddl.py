"""DROP and ALTER at the planner level: what IF EXISTS answers when there is nothing to do, and
ALTER as one read-modify-write."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DDL = """CREATE TABLE t (a BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT a FROM t;
"""


def messages(sql: str, catalog: Catalog | None = None) -> list[str]:
    session = PlannerSession(catalog or Catalog.in_memory())
    return [session.execute(s).message for s in parse_script(DDL + sql).statements][2:]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DROP TABLE IF EXISTS nothing;", "Table `nothing` does not exist; nothing to drop."),
        ("DROP VIEW IF EXISTS nothing;", "View `nothing` does not exist; nothing to drop."),
        ("DROP TEMPORARY TABLE IF EXISTS t;", "Temporary table `t` does not exist; nothing to drop."),
        ("DROP FUNCTION IF EXISTS f;", "Function `f` does not exist; nothing to drop."),
        ("DROP TABLE IF EXISTS v;", "`v` is a view, not a table; nothing to drop."),
        ("DROP TABLE IF EXISTS t;", "Table has been removed."),
        ("DROP TABLE IF EXISTS nothing, t;", "Table `t` has been removed; table `nothing` does not exist."),
    ],
)
def test_drop_if_exists_says_what_it_did(sql, message):
    assert messages(sql) == [message]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("ALTER TABLE IF EXISTS nope RENAME TO x;", "Table `nope` does not exist; nothing to rename."),
        ("ALTER TABLE IF EXISTS nope SET ('k' = 'v');", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope RESET ('k');", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope ADD (b INT);", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope MODIFY (a INT);", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope DROP a;", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope DROP WATERMARK;", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope RENAME a TO b;", "Table `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS nope COMMENT 'c';", "Table `nope` does not exist; nothing to alter."),
        ("ALTER VIEW IF EXISTS nope RENAME TO x;", "View `nope` does not exist; nothing to rename."),
        ("ALTER VIEW IF EXISTS nope AS SELECT a FROM t;", "View `nope` does not exist; nothing to alter."),
        ("ALTER VIEW IF EXISTS nope COMMENT 'c';", "View `nope` does not exist; nothing to alter."),
        ("ALTER TABLE IF EXISTS t RENAME TO u;", "Table has been renamed."),
        ("ALTER TABLE IF EXISTS t SET ('k' = 'v');", "Table has been altered."),
    ],
)
def test_alter_if_exists_of_a_missing_object_is_a_no_op(sql, message):
    catalog = Catalog.in_memory()
    assert messages(sql, catalog) == [message]
    assert catalog.get_table("x") is None and catalog.get_relation("nope") is None


@pytest.mark.parametrize("sql", ["ALTER TABLE nope RENAME TO x;", "ALTER TABLE nope SET ('k' = 'v');", "ALTER VIEW nope AS SELECT 1;"])
def test_alter_without_if_exists_of_a_missing_object_is_an_error_at_its_name(sql):
    with pytest.raises(SqlError) as caught:
        messages(sql)
    assert caught.value.message.endswith("`nope` does not exist") and caught.value.column == sql.index("nope") + 1


def test_alter_table_of_a_view_is_an_error_even_with_if_exists():
    for sql in ("ALTER TABLE IF EXISTS v SET ('k' = 'v');", "ALTER TABLE IF EXISTS v RENAME TO w;"):
        with pytest.raises(SqlError, match="`v` is a view, not a table; use ALTER VIEW"):
            messages(sql)


def test_a_refused_alter_changes_nothing(tmp_path):
    catalog = Catalog.open(tmp_path)
    with pytest.raises(SqlError, match="carries the watermark"):
        messages("ALTER TABLE t ADD WATERMARK FOR ts AS ts; ALTER TABLE t SET ('k' = 'v'); ALTER TABLE t DROP ts;", catalog)
    table = Catalog.open(tmp_path).get_table("t")
    assert table.options["k"] == "v" and table.column("ts") is not None and table.watermark is not None


ALTERER = """
import sys
sys.path.insert(0, {root!r})
from catalog import Catalog
from planner.statements.script import parse_one
from planner.statements.session import PlannerSession
session = PlannerSession(Catalog.open({home!r}))
prefix, count = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()  # both processes start altering at the same moment
for i in range(count):
    session.execute(parse_one(f"ALTER TABLE t SET ('{{prefix}}{{i}}' = 'x')"))
"""


@pytest.mark.timeout(180)
def test_two_processes_altering_one_table_lose_no_change(tmp_path):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    messages("", Catalog.open(tmp_path))  # creates t and v
    script = ALTERER.format(root=root, home=str(tmp_path))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, prefix, "200"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for prefix in ("a", "b")
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        assert p.wait(150) == 0
    options = Catalog.open(tmp_path).get_table("t").options
    assert {k for k in options if k != "connector"} == {f"{p}{i}" for p in "ab" for i in range(200)}


def test_a_not_null_column_is_not_nullable_and_its_type_stays_plain():
    """sqlglot folds `id BIGINT NOT NULL` into the type; the column keeps it (found binding a
    query over such a table, which failed on the type text 'BIGINT NOT NULL')."""
    session = PlannerSession(Catalog.in_memory())
    script = """CREATE TABLE n (id BIGINT NOT NULL, v ROW<a INT NOT NULL>) WITH ('connector' = 'datagen');
    DESCRIBE n; SHOW CREATE TABLE n; SELECT id FROM n;"""
    outcomes = [session.execute(s) for s in parse_script(script).statements]
    assert [r[:3] for r in outcomes[1].rows] == [("id", "BIGINT", "FALSE"), ("v", "ROW<a INT NOT NULL>", "TRUE")]
    assert "id BIGINT NOT NULL," in outcomes[2].text
    assert [f.nullable for f in outcomes[3].plans[0].fields] == [False]
