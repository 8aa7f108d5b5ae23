"""Flink constructs parse into the nodes the binder reads, and print back as Flink SQL."""

from __future__ import annotations

import pytest
from sqlglot import exp

from planner.dialect import Flink, nodes, parse_type
from planner.errors import SqlError
from planner.statements.script import parse_one, parse_script


def tree(sql: str) -> exp.Expr:
    return parse_one(sql).tree


def again(sql: str) -> str:
    return tree(sql).sql(dialect=Flink)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("ROW<a INT, b STRING>", "ROW<a INT, b STRING>"),
        ("ROW(a INT, b STRING)", "ROW<a INT, b STRING>"),
        ("MAP<STRING, ARRAY<INT NOT NULL>>", "MAP<STRING, ARRAY<INT NOT NULL>>"),
        ("MULTISET<STRING>", "MULTISET<STRING>"),
        ("INT ARRAY", "ARRAY<INT>"),
        ("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"),
        ("TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"),
        ("BYTES", "BYTES"),
        ("DECIMAL(23, 3)", "DECIMAL(23, 3)"),
    ],
)
def test_types(text, expected):
    assert parse_type(text).sql(dialect=Flink) == expected


# Every type of Flink's type list, and the text Flink's parser reads back for it.
FLINK_TYPES = [
    ("CHAR", "CHAR"),
    ("CHAR(5)", "CHAR(5)"),
    ("VARCHAR", "VARCHAR"),
    ("VARCHAR(7)", "VARCHAR(7)"),
    ("STRING", "STRING"),
    ("BINARY", "BINARY"),
    ("BINARY(3)", "BINARY(3)"),
    ("VARBINARY(10)", "VARBINARY(10)"),  # not BYTES(10): Flink's BYTES takes no length
    ("VARBINARY", "VARBINARY(1)"),  # Flink's default length; BYTES would be the maximum
    ("BYTES", "BYTES"),
    ("DECIMAL", "DECIMAL"),
    ("DECIMAL(10)", "DECIMAL(10)"),
    ("DECIMAL(10, 2)", "DECIMAL(10, 2)"),
    ("NUMERIC(5, 2)", "DECIMAL(5, 2)"),
    ("DEC(4, 1)", "DECIMAL(4, 1)"),
    ("TINYINT", "TINYINT"),
    ("SMALLINT", "SMALLINT"),
    ("INTEGER", "INT"),
    ("BIGINT", "BIGINT"),
    ("FLOAT", "FLOAT"),
    ("DOUBLE PRECISION", "DOUBLE"),
    ("BOOLEAN", "BOOLEAN"),
    ("DATE", "DATE"),
    ("TIME(3)", "TIME(3)"),
    ("TIMESTAMP", "TIMESTAMP"),
    ("TIMESTAMP(6) WITHOUT TIME ZONE", "TIMESTAMP(6)"),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"),
    ("TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ"),
    ("TIMESTAMP_LTZ", "TIMESTAMP_LTZ"),
    ("TIMESTAMP_LTZ(9)", "TIMESTAMP_LTZ(9)"),
    ("TIMESTAMP(3) WITH TIME ZONE", "TIMESTAMP_LTZ(3)"),  # Flink has no WITH TIME ZONE
    ("INTERVAL YEAR", "INTERVAL YEAR"),
    ("INTERVAL YEAR(4)", "INTERVAL YEAR(4)"),
    ("INTERVAL YEAR(2) TO MONTH", "INTERVAL YEAR(2) TO MONTH"),
    ("INTERVAL MONTH", "INTERVAL MONTH"),
    ("INTERVAL DAY(2)", "INTERVAL DAY(2)"),
    ("INTERVAL DAY TO HOUR", "INTERVAL DAY TO HOUR"),
    ("INTERVAL DAY(2) TO MINUTE", "INTERVAL DAY(2) TO MINUTE"),
    ("INTERVAL DAY(2) TO SECOND(3)", "INTERVAL DAY(2) TO SECOND(3)"),
    ("INTERVAL HOUR TO SECOND(3)", "INTERVAL HOUR TO SECOND(3)"),
    ("INTERVAL MINUTE TO SECOND", "INTERVAL MINUTE TO SECOND"),
    ("INTERVAL SECOND(3)", "INTERVAL SECOND(3)"),
    ("ARRAY<INT NOT NULL>", "ARRAY<INT NOT NULL>"),
    ("INT ARRAY", "ARRAY<INT>"),
    ("MAP<STRING NOT NULL, BIGINT>", "MAP<STRING NOT NULL, BIGINT>"),
    ("MULTISET<STRING>", "MULTISET<STRING>"),
    ("STRING MULTISET", "MULTISET<STRING>"),
    ("ROW<a INT, b STRING>", "ROW<a INT, b STRING>"),
    ("ROW(a INT, b STRING)", "ROW<a INT, b STRING>"),
    ("ROW<a INT NOT NULL 'the key', b STRING 'it''s'>", "ROW<a INT NOT NULL 'the key', b STRING 'it''s'>"),
    ("RAW('java.lang.Object', 'AEZvcmc=')", "RAW('java.lang.Object', 'AEZvcmc=')"),
    ("ARRAY<ROW<v VARBINARY(16), d INTERVAL DAY TO SECOND(3)>>", "ARRAY<ROW<v VARBINARY(16), d INTERVAL DAY TO SECOND(3)>>"),
]


@pytest.mark.parametrize("text,expected", FLINK_TYPES, ids=[t for t, _ in FLINK_TYPES])
def test_flink_types_print_as_flink_reads_them(text, expected):
    assert parse_type(text).sql(dialect=Flink) == expected
    for sql in (
        f"CREATE TABLE t (c {text}, d {text} NOT NULL) WITH ('connector' = 'datagen')",
        f"SELECT CAST(a AS {text}), TRY_CAST(b AS {text}) FROM t",
    ):
        stmt = tree(sql)
        out = stmt.sql(dialect=Flink)
        assert out.count(expected) == 2, out
        assert tree(out) == stmt and tree(out).sql(dialect=Flink) == out
        pretty = stmt.sql(dialect=Flink, pretty=True)
        assert tree(pretty) == stmt


def test_insert_overwrite_has_no_table_keyword():
    for sql in (
        "INSERT OVERWRITE s2 SELECT * FROM s1",
        "INSERT OVERWRITE s2 PARTITION (dt = '2024-01-01') SELECT a FROM s1",
        "INSERT INTO s2 SELECT * FROM s1",
    ):
        out = again(sql)
        assert "TABLE" not in out and out.replace("PARTITION (", "PARTITION(") == sql.replace("PARTITION (", "PARTITION(")
        assert tree(out) == tree(sql)


def test_create_table_parts():
    t = tree(
        "CREATE TEMPORARY TABLE IF NOT EXISTS t (a INT NOT NULL, b AS a + 1, "
        "m STRING METADATA FROM 'k' VIRTUAL, ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) "
        "COMMENT 'c' PARTITIONED BY (a) WITH ('connector' = 'kafka') LIKE src (EXCLUDING OPTIONS)"
    )
    assert isinstance(t, exp.Create) and t.args["exists"]
    items = t.this.expressions
    assert isinstance(items[1].args["constraints"][0].args["kind"], exp.ComputedColumnConstraint)
    meta = items[2].args["constraints"][0].args["kind"]
    assert isinstance(meta, nodes.MetadataColumnConstraint) and meta.args["virtual"] and meta.this.this == "k"
    assert isinstance(items[4], exp.WatermarkColumnConstraint)
    assert isinstance(items[5], exp.PrimaryKey) and items[5].args["options"] == ["NOT ENFORCED"]
    kinds = [type(p).__name__ for p in t.args["properties"].expressions]
    assert kinds == ["TemporaryProperty", "SchemaCommentProperty", "PartitionedByProperty", "WithOptions", "LikeClause"]


def test_window_table_function_positional_and_named():
    pos = tree("SELECT * FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))")
    fn = pos.args["from_"].this.this
    assert isinstance(fn, nodes.TableFunction)
    args = fn.this.expressions
    assert isinstance(args[0], nodes.TableArgument) and isinstance(args[1], nodes.Descriptor)
    named = tree("SELECT * FROM TABLE(TUMBLE(DATA => TABLE bid, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' MINUTES))")
    kw = named.args["from_"].this.this.this.expressions
    assert [k.this.name for k in kw] == ["DATA", "TIMECOL", "SIZE"] and isinstance(kw[0].expression, nodes.TableArgument)
    session = tree("SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY item, DESCRIPTOR(ts), INTERVAL '5' MINUTES))")
    arg = session.args["from_"].this.this.this.expressions[0]
    assert [p.name for p in arg.args["partition_by"]] == ["item"]


def test_hints_for_system_time_and_variables():
    sql = "SELECT /*+ STATE_TTL('o' = '1d') */ * FROM orders /*+ OPTIONS('k' = 'v') */ AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.c = r.c"
    t = tree(sql)
    assert t.args["hint"].expressions[0].name.upper() == "STATE_TTL"
    assert t.args["from_"].this.args["hints"][0].expressions[0].name.upper() == "OPTIONS"
    assert isinstance(t.args["joins"][0].this.args["version"], exp.Version)
    assert again(sql) == sql
    v = tree("SELECT * FROM ${NEXMARK_TABLE}")
    assert isinstance(v.args["from_"].this.this, exp.Parameter)


@pytest.mark.parametrize(
    "sql,node",
    [
        ("SET 'execution.runtime-mode' = 'batch'", nodes.SetOption),
        ("SET", nodes.SetOption),
        ("RESET 'table.exec.state.ttl'", nodes.ResetOption),
        ("SHOW TABLES", nodes.ShowStatement),
        ("SHOW JOBS", nodes.ShowStatement),
        ("SHOW STATE 'abc'", nodes.ShowStatement),
        ("SHOW CREATE TABLE t", nodes.ShowStatement),
        ("DESCRIBE t", nodes.DescribeStatement),
        ("DESC t", nodes.DescribeStatement),
        ("EXPLAIN PLAN_ADVICE SELECT 1", nodes.Explain),
        ("EXPLAIN ESTIMATED_COST, CHANGELOG_MODE SELECT 1", nodes.Explain),
        ("STOP JOB 'abc' WITH SAVEPOINT WITH DRAIN", nodes.StopJob),
        ("USE default_catalog", nodes.UseStatement),
        ("HELP", nodes.ClientCommand),
        ("QUIT", nodes.ClientCommand),
        ("CREATE FUNCTION f AS 'com.x.F' LANGUAGE JAVA", nodes.CreateFunction),
        ("ALTER TABLE t SET ('k' = 'v')", nodes.AlterTable),
        ("ALTER TABLE t ADD (c INT AFTER a, WATERMARK FOR ts AS ts)", nodes.AlterTable),
        ("DROP TEMPORARY FUNCTION IF EXISTS f", nodes.DropFunction),
    ],
)
def test_client_and_ddl_statements(sql, node):
    t = tree(sql)
    assert isinstance(t, node)
    assert tree(t.sql(dialect=Flink)) == t


def test_statement_sets_both_forms():
    text = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;"
    (stmt,) = parse_script(text).statements
    assert isinstance(stmt.tree, nodes.StatementSet) and len(stmt.tree.expressions) == 2
    client = parse_script("BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\nEND;").statements
    assert len(client) == 1 and client[0].tree.args.get("client_form")


def test_legacy_windows_over_and_match_recognize():
    t = tree(
        "SELECT TUMBLE_START(ts, INTERVAL '1' HOUR), COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' HOUR), a"
    )
    assert t.args["group"].expressions[0].name.upper() == "TUMBLE"
    over = tree("SELECT SUM(a) OVER (PARTITION BY b ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t")
    assert isinstance(over.expressions[0], exp.Window)
    mr = tree(
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY a ORDER BY ts MEASURES A.x AS y ONE ROW PER MATCH "
        "AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+) WITHIN INTERVAL '5' SECOND DEFINE A AS A.x > 1)"
    )
    assert "WITHIN INTERVAL '5' SECOND" in mr.sql(dialect=Flink)


def test_strings_and_identifiers_follow_flink():
    t = tree("SELECT 'it''s \\d', `user`, `a``b` FROM t")
    assert t.expressions[0].this == "it's \\d"  # '' escapes a quote; a backslash is a character
    assert t.expressions[1].this.quoted and t.expressions[2].name == "a`b"
    assert again("SELECT `user` FROM t") == "SELECT `user` FROM t"


# -- function names ---------------------------------------------------------------------------


def test_user_function_names_print_as_written_and_builtins_in_upper_case():
    sql = (
        "SELECT my_udf(a), MyFunc(b), upper(c), Char_Length(c), default_catalog.default_database.My_Udf(a), "
        "`my udf`(a), proctime() FROM t"
    )
    assert again(sql) == (
        "SELECT my_udf(a), MyFunc(b), UPPER(c), CHAR_LENGTH(c), default_catalog.default_database.My_Udf(a), "
        "`my udf`(a), PROCTIME() FROM t"
    )
    calls = tree(sql).expressions
    assert [c.name for c in calls[:2]] == ["my_udf", "MyFunc"] and all(isinstance(c, exp.Anonymous) for c in calls[:2])


# names that sqlglot reads as its own nodes (exp.Split, exp.Length, exp.Coalesce, ...) or as
# special syntax, called the way a user function is
COLLIDING_CALLS = [
    "split(s)",
    "Split(s)",
    "`split`(s, ',')",
    "length(s)",
    "len(s)",
    "nvl(a, b)",
    "date_trunc('day', ts)",
    "date_add(d, 1)",
    "string_agg(s, ',')",
    "convert(s)",
    "normalize(s)",
    "apply(s)",
    "array_size(arr)",
    "str_to_time(s, 'x')",
    "explode(arr)",
    "generate_series(1, n)",
    "regexp_like(s, 'a')",
    "to_char(ts)",
    "struct(a, b)",
]


@pytest.mark.parametrize("call", COLLIDING_CALLS)
def test_user_functions_named_like_sqlglot_nodes_stay_calls_as_written(call):
    select = f"SELECT {call} AS r FROM t"
    node = tree(select).expressions[0].this
    assert isinstance(node, exp.Anonymous), repr(node)
    assert again(select) == select
    lateral = f"SELECT * FROM t, LATERAL TABLE({call}) AS x(w)"
    assert again(lateral) == lateral and tree(again(lateral)) == tree(lateral)
    outer = f"SELECT * FROM t LEFT JOIN LATERAL TABLE({call}) AS x(w) ON TRUE"
    assert again(outer) == outer


def test_lateral_table_accepts_any_function_name():
    t = tree("SELECT * FROM t, LATERAL TABLE(split(s)) AS x(w)")
    fn = t.find(nodes.TableFunction).this
    assert isinstance(fn, exp.Anonymous) and fn.name == "split" and fn.expressions[0].name == "s"
    # window table functions stay built-ins: upper case
    assert again("SELECT * FROM TABLE(tumble(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))") == (
        "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
    )


@pytest.mark.parametrize(
    "written,printed",
    [
        ("dayofmonth(d)", "DAYOFMONTH(d)"),
        ("dayofweek(d)", "DAYOFWEEK(d)"),
        ("startswith(s, 'a')", "STARTSWITH(s, 'a')"),
        ("endswith(s, 'a')", "ENDSWITH(s, 'a')"),
        ("sha1(s)", "SHA1(s)"),
        ("truncate(x, 2)", "TRUNCATE(x, 2)"),
        ("log10(x)", "LOG10(x)"),
        ("instr(s, 'a')", "INSTR(s, 'a')"),
        ("array_join(arr, ',')", "ARRAY_JOIN(arr, ',')"),
        ("array_sort(arr, TRUE, FALSE)", "ARRAY_SORT(arr, TRUE, FALSE)"),
        ("ifnull(a, 0)", "IFNULL(a, 0)"),
        ("if(a > 1, 'x', 'y')", "IF(a > 1, 'x', 'y')"),
        ("timestampdiff(DAY, a, b)", "TIMESTAMPDIFF(DAY, a, b)"),
        ("var_pop(x)", "VAR_POP(x)"),
        ("var_samp(x)", "VAR_SAMP(x)"),
        ("approx_count_distinct(x)", "APPROX_COUNT_DISTINCT(x)"),
        ("split(s, ',')", "SPLIT(s, ',')"),
        ("trim(LEADING 'x' FROM s)", "TRIM(LEADING 'x' FROM s)"),
        ("trim(BOTH FROM s)", "TRIM(BOTH FROM s)"),
        ("ltrim(s, 'x')", "LTRIM(s, 'x')"),
        ("a BETWEEN SYMMETRIC 1 AND 2", "a BETWEEN SYMMETRIC 1 AND 2"),
        ("stddev(x)", "STDDEV(x)"),
        ("array_agg(x ignore nulls)", "ARRAY_AGG(x IGNORE NULLS)"),
        ("array_agg(x) ignore nulls", "ARRAY_AGG(x IGNORE NULLS)"),
        ("array_agg(x respect nulls)", "ARRAY_AGG(x RESPECT NULLS)"),
        ("json_arrayagg(x null on null)", "JSON_ARRAYAGG(x NULL ON NULL)"),
        ("json_arrayagg(x)", "JSON_ARRAYAGG(x)"),
        ("json_objectagg(k value v absent on null)", "JSON_OBJECTAGG(KEY k VALUE v ABSENT ON NULL)"),
        ("json_objectagg(key k value v)", "JSON_OBJECTAGG(KEY k VALUE v)"),
    ],
)
def test_flink_builtins_keep_their_flink_names(written, printed):
    sql = f"SELECT {written} FROM t"
    assert again(sql) == f"SELECT {printed} FROM t"
    assert tree(again(sql)) == tree(sql)


def test_cast_needs_as():
    with pytest.raises(SqlError):
        parse_one("SELECT TRY_CAST(s, 'INT') FROM t")


def _calls(value, found):
    """The exp.Anonymous calls inside a plan node's fields (and its inputs)."""
    import dataclasses

    if isinstance(value, exp.Expr):
        found.extend(value.find_all(exp.Anonymous))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _calls(v, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name != "origin":
                _calls(getattr(value, f.name), found)
    return found


def test_user_functions_named_like_sqlglot_nodes_bind_as_the_catalog_functions():
    from catalog import Catalog
    from planner.statements.session import PlannerSession

    script = parse_script(
        "CREATE TABLE t (s STRING, n INT) WITH ('connector' = 'datagen');\n"
        "CREATE FUNCTION split AS 'com.example.SplitWords';\n"
        "CREATE FUNCTION length AS 'com.example.Length';\n"
        "CREATE FUNCTION Nvl AS 'com.example.Nvl';\n"
        "SELECT split(s) AS a, length(s) AS b, Nvl(s, 'x') AS c, UPPER(s) AS d FROM t;\n"
        "SELECT s, w FROM t, LATERAL TABLE(split(s)) AS x(w);\n"
    )
    assert not script.errors
    session = PlannerSession(Catalog.in_memory())
    outcomes = [session.execute(stmt) for stmt in script.statements]
    scalar = _calls(outcomes[-2].plans, [])
    assert {c.name: c.meta["user_function"].definition.class_name for c in scalar} == {
        "split": "com.example.SplitWords",
        "length": "com.example.Length",
        "Nvl": "com.example.Nvl",
    }
    (table_call,) = _calls(outcomes[-1].plans, [])
    assert table_call.name == "split" and table_call.meta["user_function"].definition.class_name == "com.example.SplitWords"
    # and they print back as written
    for stmt in script.statements[-2:]:
        assert stmt.sql() == stmt.text.replace("\n", " ")


def test_the_map_value_constructor_parses_prints_back_and_takes_a_subscript():
    node = tree("SELECT MAP['a', i, 'b', 2]['a'] FROM t").expressions[0]
    assert isinstance(node, exp.Bracket) and isinstance(node.this, exp.VarMap)
    assert [k.name for k in node.this.args["keys"].expressions] == ["a", "b"]
    assert again("SELECT MAP['a', i, 'b', 2]['a'] FROM t") == "SELECT MAP['a', i, 'b', 2]['a'] FROM t"
    assert again("SELECT `map` FROM t") == "SELECT `map` FROM t"  # a column of that name, quoted, stays one


@pytest.mark.parametrize("sql,column", [("SELECT MAP['a'] FROM t", 15), ("SELECT MAP['a', 1, 2] FROM t", 21)])
def test_a_map_constructor_without_pairs_is_an_error_at_its_closing_bracket(sql, column):
    with pytest.raises(SqlError) as info:
        parse_one(sql)
    assert "key, value pairs" in info.value.message
    assert (info.value.line, info.value.column) == (1, column)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT JSON_VALUE(s, '$.a' RETURNING INT DEFAULT 0 ON EMPTY ERROR ON ERROR) FROM t",
        "SELECT JSON_VALUE(s, '$.a' DEFAULT 'bad' ON ERROR) FROM t",
        "SELECT JSON_QUERY(s, '$.a' WITH CONDITIONAL ARRAY WRAPPER EMPTY OBJECT ON EMPTY EMPTY ARRAY ON ERROR) FROM t",
        "SELECT JSON_QUERY(s, '$.a' WITHOUT ARRAY WRAPPER) FROM t",
        "SELECT JSON_EXISTS(s, '$.a' UNKNOWN ON ERROR) FROM t",
        "SELECT JSON_ARRAY(1, s NULL ON NULL), JSON_ARRAY(), JSON_ARRAY(ABSENT ON NULL) FROM t",
        "SELECT JSON_OBJECT(KEY 'k' VALUE s, KEY 'n' VALUE JSON_ARRAY(1) ABSENT ON NULL) FROM t",
    ],
)
def test_json_functions_keep_their_clauses_and_print_back_as_written(sql):
    assert again(sql) == sql
    assert tree(again(sql)) == tree(sql)


def test_a_json_clause_that_is_not_one_is_a_syntax_error_where_it_starts():
    with pytest.raises(SqlError) as info:
        parse_one("SELECT JSON_VALUE(s, '$.a' DEFAULT 'x' ON FOO) FROM t")
    assert (info.value.line, info.value.column) == (1, 28)


def test_a_dollar_sign_inside_a_name_is_part_of_it_and_still_starts_a_variable_on_its_own():
    node = tree("SELECT EXPR$0, a$b, ROW(1, 'x').EXPR$1, ${v} FROM t")
    first, second, third, fourth = node.expressions
    assert (first.name, second.name) == ("EXPR$0", "a$b")
    assert isinstance(third, exp.Dot) and third.expression.name == "EXPR$1"
    assert isinstance(fourth, exp.Parameter)
    assert again("SELECT a$b FROM t") == "SELECT a$b FROM t"


@pytest.mark.parametrize(("sql", "column"), [("SELECT a_${X} FROM t", 10), ("SELECT * FROM t_${X}", 17)])
def test_a_variable_inside_a_name_is_an_error_at_its_dollar(sql: str, column: int):
    with pytest.raises(SqlError) as info:
        parse_one(sql)
    assert "cannot be part of a name" in info.value.message and (info.value.line, info.value.column) == (1, column)
    assert isinstance(tree("SELECT a_b, ${X} FROM t").expressions[1], exp.Parameter)  # a whole one is fine


def test_an_interval_takes_to_only_for_a_qualifier_so_ceil_keeps_its_unit() -> None:
    """`MINUTE TO DAY` is no interval qualifier: Flink 2.3 reads the TO as CEIL's (its value,
    the function suite's `CEIL(CAST(ts AS TIMESTAMP_LTZ(3)) + INTERVAL '1' MINUTE TO DAY)`)."""
    ceil = tree("SELECT CEIL(ts + INTERVAL '1' MINUTE TO DAY) FROM t").expressions[0]
    assert isinstance(ceil, exp.Ceil) and ceil.args["to"].name.upper() == "DAY"
    assert isinstance(ceil.this, exp.Add) and ceil.this.expression.args["unit"].name.upper() == "MINUTE"
    for qualifier in ("YEAR TO MONTH", "DAY TO SECOND", "HOUR TO MINUTE", "MINUTE TO SECOND"):
        interval = tree(f"SELECT INTERVAL '1' {qualifier} FROM t").expressions[0]
        assert isinstance(interval.args["unit"], exp.IntervalSpan), qualifier
