"""What lint keeps between statements (the catalog's reads, bound views, table shapes) never
outlives a change: a view or table redefined, dropped or altered later in the same file is seen
by every statement after it, and a setting SET later changes the findings after it."""

from __future__ import annotations

from planner.lint import LintConfig, Linter

TABLE = """CREATE TABLE t (a BIGINT, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'datagen');
"""


def lint(sql: str) -> list[tuple[int, str, str]]:
    found, _ = Linter(LintConfig(rewrites=False)).lint_text(TABLE + sql, "q.sql")
    return [(d.line, d.code, d.message) for d in found]


def codes(sql: str) -> list[tuple[int, str]]:
    return [(line, code) for line, code, _ in lint(sql)]


def test_create_or_replace_view_is_seen_by_the_next_statement():
    sql = """CREATE VIEW v AS SELECT a FROM t;
SELECT b FROM v;
CREATE OR REPLACE VIEW v AS SELECT a, b FROM t;
SELECT b FROM v;
CREATE OR REPLACE VIEW v AS SELECT a FROM t;
SELECT b FROM v;
"""
    assert codes(sql) == [(4, "E002"), (8, "E002")]


def test_a_dropped_view_or_table_is_gone():
    sql = """CREATE VIEW v AS SELECT a FROM t;
SELECT a FROM v;
DROP VIEW v;
SELECT a FROM v;
DROP TABLE t;
SELECT a FROM t;
"""
    assert codes(sql) == [(6, "E002"), (8, "E002")]


def test_altering_a_table_reaches_the_views_read_from_it():
    sql = """CREATE VIEW v AS SELECT a, b FROM t;
SELECT a FROM v;
ALTER TABLE t RENAME a TO z;
SELECT a FROM v;
ALTER TABLE t ADD c INT;
SELECT c FROM t;
"""
    found = lint(sql)
    assert [(line, code) for line, code, _ in found] == [(6, "E002")]
    assert "View `v` is invalid" in found[0][2]


def test_a_table_replaced_changes_what_a_view_over_it_reads():
    # the same view text over a table that lost its watermark: the window is refused after it
    sql = """CREATE VIEW v AS SELECT a, ts FROM t;
SELECT a, COUNT(*) FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY a, window_start, window_end;
CREATE OR REPLACE TABLE t (a BIGINT, b STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
SELECT a, COUNT(*) FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY a, window_start, window_end;
"""
    assert codes(sql) == [(6, "E002")]


def test_a_temporary_view_shadows_and_its_drop_uncovers():
    sql = """CREATE VIEW v AS SELECT a FROM t;
CREATE TEMPORARY VIEW v AS SELECT b FROM t;
SELECT a FROM v;
DROP TEMPORARY VIEW v;
SELECT a FROM v;
"""
    assert codes(sql) == [(5, "E002")]


def test_a_user_function_created_later_is_known_after_it():
    sql = """SELECT f(a) FROM t;
CREATE FUNCTION f AS 'com.example.F';
SELECT f(a) FROM t;
DROP FUNCTION f;
SELECT f(a) FROM t;
"""
    found = codes(sql)
    assert found == [(3, "E002"), (5, "SE301"), (7, "E002")]


def test_a_setting_applies_to_the_statements_after_it():
    query = "SELECT a, COUNT(*) FROM t GROUP BY a;\n"
    sql = query + "SET 'table.exec.state.ttl' = '1 h';\n" + query + "RESET 'table.exec.state.ttl';\n" + query
    found = codes(sql)
    assert (3, "SE101") in found and (7, "SE101") in found
    assert (5, "SE101") not in found and (5, "SE108") in found


def test_what_one_file_changes_is_not_seen_by_the_next(tmp_path):
    init = tmp_path / "ddl.sql"
    init.write_text(TABLE + "CREATE VIEW v AS SELECT a, b FROM t;\n")
    first, second = tmp_path / "a.sql", tmp_path / "b.sql"
    first.write_text("SELECT b FROM v;\nCREATE OR REPLACE VIEW v AS SELECT a FROM t;\nSELECT b FROM v;\nALTER TABLE t RENAME b TO c;\n")
    second.write_text("SELECT b FROM v;\nSELECT b FROM t;\n")
    result = Linter(LintConfig(rewrites=False, init=(init,))).lint_files([first, second, first], 1)
    found = sorted({(d.path.rsplit("/", 1)[-1], d.line, d.code) for d in result.diagnostics})
    assert found == [("a.sql", 3, "E002")]
