"""The rules on the Nexmark queries and on cases the documentation examples do not cover:
codes, the names in messages, positions, and no finding where the state is bounded."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.diagnostics import Category
from planner.rules import RULES
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from tests.fixtures.loader import NEXMARK

DDL = """
CREATE TABLE orders (
  order_id BIGINT, customer STRING, currency STRING, amount DOUBLE, flag BOOLEAN,
  order_time TIMESTAMP(3), proc AS PROCTIME(),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
CREATE TABLE shipments (
  order_id BIGINT, carrier STRING, ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
CREATE TABLE late (
  order_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' HOUR
) WITH ('connector' = 'datagen');
"""


def analyse(sql: str, name: str = "case.sql", session: PlannerSession | None = None):
    """(statement, diagnostics) of every analysed statement of ``DDL + sql``."""
    session = session or PlannerSession(Catalog.in_memory())
    script = parse_script(DDL + sql, name)
    assert not script.errors, [str(e) for e in script.errors]
    out = []
    for stmt in script.statements:
        outcome = session.execute(stmt)
        if outcome.analysis is not None:
            out.append((stmt, list(outcome.analysis.diagnostics)))
    return out


def findings(sql: str):
    return [d for _, ds in analyse(sql) for d in ds]


def codes(sql: str) -> list[str]:
    return sorted(d.code for d in findings(sql))


# -- Nexmark -------------------------------------------------------------------------------------


def nexmark(query: str):
    session = PlannerSession(Catalog.in_memory(), variables={"NEXMARK_TABLE": "datagen", "TPS": "10000"})
    out = []
    for name in ("ddl_gen.sql", "ddl_views.sql", f"{query}.sql"):
        script = parse_script((NEXMARK / name).read_text(), name)
        for stmt in script.statements:
            outcome = session.execute(stmt)
            if outcome.analysis is not None:
                out.extend(outcome.analysis.diagnostics)
    return out


EXPECTED = {
    "q0": [], "q1": [], "q2": [], "q5": [], "q8": [], "q10": [], "q11": [], "q21": [], "q22": [],
    "q3": ["SE102", "SE102"],
    # B.dateTime BETWEEN A.dateTime AND A.expires bounds both sides by the other's event time:
    # Spark drops bids once auctions' watermark passes them, auctions once bids' passes `expires`
    # its join emits updates read by an aggregation, whose updates the outer AVG reads: both run as
    # changelog operators
    "q4": ["SE101", "SE302", "SE302"],
    # only the bids side grows: the window side's `dateTime` is bounded by the bids' event time
    "q7": ["SE102"],
    "q9": ["SE105"],  # a Top-1 runs on Spark as an upsert on its key; its join is bounded as q4's
    "q12": ["SE201", "SE302"],  # a processing-time window: a changelog operator with processing-time timers
    "q13": ["SE201"],
    "q14": ["SE301"],  # its user-defined function (a JVM class)
    "q15": ["SE101", "SE103"],
    "q16": ["SE101", "SE103"],
    "q17": ["SE101"],
    "q18": ["SE104"],  # keep-last dedup runs on Spark as an upsert on its key
    "q19": ["SE105", "SE302"],  # a Top-10: a changelog operator
    "q20": ["SE102", "SE102"],
    "q23": ["SE102", "SE102", "SE102", "SE102"],
}


@pytest.mark.parametrize("query", sorted(EXPECTED, key=lambda q: int(q[1:])))
def test_nexmark_codes(query):
    assert sorted(d.code for d in nexmark(query)) == EXPECTED[query]


def test_q3_regular_join_is_reported_per_side_with_the_names_written():
    left, right = [d for d in nexmark("q3") if d.code == "SE102"]
    assert "`auction` AS A (left side)" in left.message and "ON A.seller = P.id" in left.message
    assert "`person` AS P (right side)" in right.message
    assert (left.line, left.column) == (21, 29)  # the JOIN clause of q3.sql
    assert "A.`dateTime` BETWEEN P.`dateTime` - INTERVAL '1' HOUR" in left.rewrite
    assert all(d.category == Category.UNBOUNDED_STATE for d in (left, right))


@pytest.mark.parametrize("query", ["q5", "q8", "q11"])
def test_bounded_nexmark_queries_have_no_unbounded_state_finding(query):
    assert not [d for d in nexmark(query) if d.category == Category.UNBOUNDED_STATE]


def test_q15_time_bucket_and_count_distinct():
    by_code = {d.code: d for d in nexmark("q15")}
    assert "time bucket (`DATE_FORMAT(dateTime, 'yyyy-MM-dd')`)" in by_code["SE101"].message
    assert "a new key every day" in by_code["SE101"].message
    assert "every distinct value of auction and of bidder" in by_code["SE103"].message
    assert "TUMBLE(TABLE `bid`, DESCRIPTOR(`dateTime`), INTERVAL '1' DAY)" in by_code["SE101"].rewrite


def test_q15_window_rewrite_is_valid_and_removes_the_finding():
    rewrite = next(d for d in nexmark("q15") if d.code == "SE101").rewrite
    session = PlannerSession(Catalog.in_memory(), variables={"NEXMARK_TABLE": "datagen", "TPS": "1"})
    for name in ("ddl_gen.sql", "ddl_views.sql"):
        for stmt in parse_script((NEXMARK / name).read_text()).statements:
            session.execute(stmt)
    outcome = session.execute(parse_script(rewrite).statements[0])
    assert [d.code for d in outcome.analysis.diagnostics] == []
    assert outcome.analysis.verdict.value == "bounded"


def test_q14_user_function_is_found_at_its_call():
    (d,) = nexmark("q14")
    assert d.code == "SE301" and "user-defined function `count_char`" in d.message
    assert (d.line, d.column) == (34, 5)  # `count_char(extra, 'c')` in the select list


def test_q18_keep_last_dedup_and_q19_top_n_name_the_ranking():
    dedup = next(d for d in nexmark("q18") if d.code == "SE104")
    assert "keeps the last row of every key (bidder, auction)" in dedup.message
    assert "PARTITION BY window_start, window_end, bidder, auction" in dedup.rewrite
    topn = next(d for d in nexmark("q19") if d.code == "SE105")
    assert topn.message.startswith("Top-10 of `bid`") and "(auction)" in topn.message
    changelog = next(d for d in nexmark("q19") if d.code == "SE302")
    assert "TopN runs as a changelog operator on Spark because Spark has no operator for it" in changelog.message
    assert "the top rows of each partition (its input only appends)" in changelog.message
    assert changelog.severity.value == "info"


def test_q12_processing_time_window():
    d = next(d for d in nexmark("q12") if d.code == "SE201")
    assert "`p_time`" in d.message and d.category == Category.NONDETERMINISM
    runs = next(d for d in nexmark("q12") if d.code == "SE302")
    assert "WindowAggregate runs as a changelog operator" in runs.message
    assert not [d for d in nexmark("q12") if d.code == "SE301"]


def test_processing_time_session_windows_and_window_top_n_run_as_changelog_operators():
    sql = ("CREATE VIEW p AS SELECT *, PROCTIME() AS p_time FROM orders;\n"
           "SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE p, DESCRIPTOR(p_time), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;\n"
           "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn "
           "FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(p_time), INTERVAL '2' SECOND))) WHERE rn <= 3;")
    found = [d for d in findings(sql) if d.code in ("SE301", "SE302")]
    assert [d.code for d in found] == ["SE302", "SE302"] and found[1].line == found[0].line + 1
    assert found[1].hint == "window on the event-time attribute (the column of WATERMARK FOR): Spark's own window operators run it"


# -- cases ---------------------------------------------------------------------------------------


def test_group_by_a_finite_domain_is_bounded():
    assert codes("SELECT flag, COUNT(*) FROM orders GROUP BY flag;") == []


def test_count_distinct_per_window_is_bounded():
    sql = (
        "SELECT customer, window_start, COUNT(DISTINCT currency) FROM TABLE(TUMBLE(TABLE orders, "
        "DESCRIPTOR(order_time), INTERVAL '1' HOUR)) GROUP BY customer, window_start, window_end;"
    )
    assert "SE103" not in codes(sql)


def test_count_distinct_without_window():
    (d,) = [d for d in findings("SELECT customer, COUNT(DISTINCT currency) FROM orders GROUP BY customer;") if d.code == "SE103"]
    assert "every distinct value of currency seen per group (customer)" in d.message


def test_operator_of_a_view_is_placed_in_the_statement_that_uses_it():
    sql = "CREATE VIEW totals AS SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer;\nSELECT * FROM totals;"
    ((stmt, ds),) = analyse(sql)
    (d,) = [d for d in ds if d.code == "SE101"]
    assert stmt.span.start <= d.span.start and d.span.end <= stmt.span.end
    assert d.line == stmt.line


def test_keep_first_dedup_with_ttl_is_bounded_and_the_ttl_is_reported():
    sql = (
        "SET 'table.exec.state.ttl' = '1 h';\n"
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY order_time) AS rn FROM orders) WHERE rn = 1;"
    )
    found = {d.code: d for d in findings(sql)}
    assert sorted(found) == ["SE108", "SE302"]  # bounded by the TTL, which a changelog operator enforces
    assert "a key (order_id) not seen for 1 h is forgotten, so its next row is emitted again" in found["SE108"].message
    assert "SET 'table.exec.state.ttl'" in found["SE108"].message
    assert "because a state TTL is in force" in found["SE302"].message


def test_state_ttl_hint_on_one_join_side():
    sql = (
        "SELECT /*+ STATE_TTL('o' = '1 h') */ o.order_id, s.carrier FROM orders AS o "
        "JOIN shipments AS s ON o.order_id = s.order_id;"
    )
    found = findings(sql)
    (ttl,) = [d for d in found if d.code == "SE108"]
    assert "rows of `orders` AS o are forgotten 1 h after they were stored" in ttl.message
    assert "a STATE_TTL hint" in ttl.message
    (join,) = [d for d in found if d.code == "SE102"]
    assert "`shipments` AS s (right side)" in join.message


def test_interval_join_bounded_but_the_delay_dominates():
    sql = (
        "SELECT o.order_id FROM orders AS o JOIN late AS l ON o.order_id = l.order_id "
        "AND l.ts BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;"
    )
    (d,) = findings(sql)
    assert d.code == "SE109" and d.severity.value == "info"
    assert "watermark delay of `late` (2 h) is longer than the join interval (10 min)" in d.message
    assert "ALTER TABLE `late` MODIFY WATERMARK FOR `ts`" in d.rewrite


def test_sort_by_a_plain_column_never_releases():
    found = findings("SELECT * FROM orders ORDER BY amount;")
    (d,) = [d for d in found if d.code == "SE107"]
    assert "ORDER BY `amount`, which is not a time attribute" in d.message
    assert "SE301" in [x.code for x in found]


def test_sort_by_event_time_is_bounded():
    assert "SE107" not in codes("SELECT * FROM orders ORDER BY order_time;")


def test_dedup_on_processing_time():
    sql = "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proc) AS rn FROM orders) WHERE rn = 1;"
    found = codes(sql)
    assert "SE201" in found and "SE104" in found


def test_over_unbounded_preceding():
    sql = "SELECT customer, SUM(amount) OVER (PARTITION BY customer ORDER BY order_time RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders;"
    (d,) = [d for d in findings(sql) if d.code == "SE106"]
    assert "with UNBOUNDED PRECEDING keeps one accumulator per partition for every partition (customer)" in d.message


def test_select_distinct_rewrite_groups_by_window():
    (d,) = [d for d in findings("SELECT DISTINCT customer FROM orders;") if d.code == "SE103"]
    assert "DISTINCT of `orders` keeps every distinct row (customer)" in d.message
    assert "GROUP BY\n  customer,\n  window_start,\n  window_end" in d.rewrite


def _at(sql: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of ``needle`` in ``DDL + sql``, as the findings count them."""
    text = DDL + sql
    start = text.index(needle)
    return text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)


def _state(sql: str, session: PlannerSession | None = None):
    """The state analysis of the last analysed statement of ``DDL + sql``."""
    session = session or PlannerSession(Catalog.in_memory())
    infos = None
    for stmt in parse_script(DDL + sql, "case.sql").statements:
        outcome = session.execute(stmt)
        if outcome.analysis is not None:
            infos = outcome.analysis.state
    return infos


# -- session windows: bounded by the gap, keyed or not -------------------------------------------

SESSION_QUERIES = {
    "tvf": (
        "SELECT customer, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE orders PARTITION BY customer, "
        "DESCRIPTOR(order_time), INTERVAL '10' MINUTE)) GROUP BY customer, window_start, window_end;"
    ),
    "legacy": (
        "SELECT customer, SESSION_START(order_time, INTERVAL '10' MINUTE) AS s, COUNT(*) AS n FROM orders "
        "GROUP BY customer, SESSION(order_time, INTERVAL '10' MINUTE);"
    ),
}


@pytest.mark.parametrize("form", sorted(SESSION_QUERIES))
def test_keyed_session_window_is_bounded_by_the_gap_and_the_delay(form):
    # a session is dropped once the watermark passes its last row + gap: the open sessions are the
    # keys with a row in the last gap + delay, not every key ever seen
    (info,) = _state(SESSION_QUERIES[form])
    (part,) = info.parts
    assert info.verdict.value == "bounded" and part.growth.value == "none"
    assert part.retention_ms == 600_000 + 5_000
    assert part.per == "per open session and key (customer)"
    assert "only keys with a row in that span keep a session open" in part.bound
    assert not [d for d in findings(SESSION_QUERIES[form]) if d.category == Category.UNBOUNDED_STATE]


def test_session_window_with_a_watermark_longer_than_the_gap_is_reported_as_such():
    sql = (
        "SELECT order_id, COUNT(*) AS n FROM late GROUP BY order_id, SESSION(ts, INTERVAL '10' MINUTE);"
    )
    (d,) = findings(sql)
    assert d.code == "SE109"
    assert "watermark delay of `late` (2 h) is longer than the session gap (10 min)" in d.message


def test_q11_session_window_is_bounded():
    session = PlannerSession(Catalog.in_memory(), variables={"NEXMARK_TABLE": "datagen", "TPS": "10000"})
    infos = []
    for name in ("ddl_gen.sql", "ddl_views.sql", "q11.sql"):
        for stmt in parse_script((NEXMARK / name).read_text(), name).statements:
            outcome = session.execute(stmt)
            if outcome.analysis is not None:
                infos = outcome.analysis.state
    (info,) = infos
    assert info.verdict.value == "bounded"
    assert info.parts[0].retention_ms == 10_000 + 4_000  # gap 10 s + the watermark delay of 4 s


# -- SE110: event-time temporal join -------------------------------------------------------------

RATES = """
CREATE TABLE rates (
  currency STRING, rate DOUBLE, update_time TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED,
  WATERMARK FOR update_time AS update_time - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen'{options});
"""

TEMPORAL = """SELECT o.order_id, o.amount * r.rate AS amount_eur
FROM orders AS o
{join} rates FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency;
"""


def _temporal(options: str = "", join: str = "JOIN", before: str = "") -> str:
    return RATES.format(options=options) + before + TEMPORAL.format(join=join)


def test_temporal_join_keeps_the_latest_version_of_every_key():
    sql = _temporal()
    found = findings(sql)
    assert sorted(d.code for d in found) == ["SE110", "SE302"]  # SE302: it runs as a changelog operator
    (d,) = [d for d in found if d.code == "SE110"]
    assert (d.line, d.column) == _at(sql, "rates FOR SYSTEM_TIME")
    assert d.category == Category.UNBOUNDED_STATE and d.severity.value == "warning" and d.operator == "TemporalJoin"
    assert d.message.startswith(
        "Temporal join ON o.currency = r.currency keeps the latest version of every key (currency) of `rates` AS r forever"
    )
    assert "each key's latest stays for rows of `orders` AS o still to come" in d.message
    assert "grows with the number of distinct keys of `rates` AS r (up to " in d.message  # datagen: a rate, so an estimate
    assert "'stats.distinct.<column>'" in d.hint and "'table.exec.state.ttl'" in d.hint
    assert "ALTER TABLE `rates` SET ('stats.distinct.currency' = '<number of keys>');" in d.rewrite
    assert "SET 'table.exec.state.ttl' = '1 d';" in d.rewrite
    (info,) = _state(sql)
    left, versions = info.parts
    assert (left.growth.value, versions.growth.value) == ("none", "keys")
    assert versions.stores == "the versions of rates (the latest, and any newer than the watermark)"
    assert versions.per == "by join key (currency)"


def test_temporal_join_rewrite_with_a_key_count_removes_the_finding():
    rewrite = next(d for d in findings(_temporal()) if d.code == "SE110").rewrite
    alter = next(line for line in rewrite.splitlines() if line.startswith("ALTER TABLE"))
    sql = _temporal(before=alter.replace("<number of keys>", "40") + "\n")
    assert "SE110" not in codes(sql)
    (info,) = _state(sql)
    assert info.verdict.value == "bounded"


def test_temporal_join_over_a_finite_key_domain_is_bounded():
    sql = _temporal(options=", 'stats.distinct.currency' = '40'")
    assert codes(sql) == ["SE302"]


def test_temporal_join_with_a_state_ttl_is_bounded_and_the_ttl_is_reported():
    sql = _temporal(join="LEFT JOIN", before="SET 'table.exec.state.ttl' = '1 d';\n")
    found = {d.code: d for d in findings(sql)}
    assert "SE110" not in found
    ttl = found["SE108"]
    assert ttl.message.startswith("State TTL of 1 d (SET 'table.exec.state.ttl') changes the temporal join's results")
    assert "a key (currency) without rows on either side for 1 d is forgotten with its latest version of `rates` AS r" in ttl.message
    assert ttl.message.endswith("finds no version (it is emitted with NULLs)")
    (info,) = _state(sql)
    assert info.parts[1].retention_ms == 86_400_000 and info.verdict.value == "bounded"


def test_temporal_join_state_ttl_hint_does_not_apply():
    # Flink's STATE_TTL hint is for regular joins and group aggregations only
    sql = _temporal().replace("SELECT o.order_id", "SELECT /*+ STATE_TTL('r' = '1 d') */ o.order_id")
    assert "SE110" in codes(sql)


def test_temporal_join_against_a_table_without_watermark_is_se107_not_se110():
    sql = (
        "CREATE TABLE rates (currency STRING, rate DOUBLE, update_time TIMESTAMP(3), PRIMARY KEY (currency) NOT ENFORCED) "
        "WITH ('connector' = 'datagen');\n" + TEMPORAL.format(join="JOIN")
    )
    found = codes(sql)
    assert "SE107" in found and "SE110" not in found
    (info,) = _state(sql)
    assert [p.growth.value for p in info.parts] == ["rows", "rows"]  # nothing is ever dropped


def test_processing_time_lookup_join_is_not_se110():
    sql = RATES.format(options="") + (
        "SELECT o.order_id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.proc AS r ON o.currency = r.currency;"
    )
    found = codes(sql)
    assert "SE110" not in found and "SE201" in found


def test_every_rule_is_registered_once_with_a_stable_code():
    assert len({r.code for r in RULES}) == len(RULES)
    assert all(r.code[:2] == "SE" and len(r.code) == 5 for r in RULES)
    assert {r.code for r in RULES if r.category == Category.UNBOUNDED_STATE} == {
        "SE101", "SE102", "SE103", "SE104", "SE105", "SE106", "SE107", "SE110", "SE111"
    }


def _docs_bad(code: str) -> str:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules" / f"{code}.md").read_text()
    return re.search(r"^## Bad\s*\n+```sql\n(.*?)```", text, re.S | re.M).group(1)


@pytest.mark.parametrize("code", ["SE101", "SE103", "SE104", "SE105"])
def test_query_rewrites_plan_and_remove_their_finding(code):
    """A rewrite that is a whole query is valid SQL over the same tables and no longer has the finding."""
    session = PlannerSession(Catalog.in_memory())
    script = parse_script(_docs_bad(code), "bad.sql")
    found = []
    for stmt in script.statements:
        outcome = session.execute(stmt)
        if outcome.analysis is not None:
            found.extend(d for d in outcome.analysis.diagnostics if d.code == code)
    (d,) = found
    query = d.rewrite.split("\n-- or")[0]
    assert query.startswith("SELECT")
    rewritten = session.execute(parse_script(query, "rewrite.sql").statements[0])
    assert code not in [x.code for x in rewritten.analysis.diagnostics]
    assert rewritten.analysis.verdict.value == "bounded"


def test_updating_aggregate_over_a_window_aggregate_runs_as_a_changelog_operator():
    """Spark's global-watermark check refuses a window aggregate (whose rows are behind the
    watermark) below an update-mode aggregation: the aggregation runs as a changelog operator.
    An inner (interval) join below is fine for Spark's own."""
    windowed = (
        "SELECT customer, MAX(c) FROM (SELECT customer, window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE orders, "
        "DESCRIPTOR(order_time), INTERVAL '1' HOUR)) GROUP BY customer, window_start, window_end) GROUP BY customer;"
    )
    (d,) = [d for d in findings(windowed) if d.code == "SE302"]
    assert "GroupAggregate runs as a changelog operator" in d.message and "behind the watermark" in d.message
    assert "SE301" not in codes(windowed)
    joined = (
        "SELECT carrier, COUNT(*) FROM orders o JOIN shipments s ON o.order_id = s.order_id "
        "AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '1' HOUR GROUP BY carrier;"
    )
    assert {"SE301", "SE302"}.isdisjoint(codes(joined))


def test_every_reason_for_a_changelog_operator_has_a_hint():
    from planner.analysis.physical import Why
    from planner.rules.se302_changelog_operator import HINTS

    assert set(HINTS) == set(Why)
