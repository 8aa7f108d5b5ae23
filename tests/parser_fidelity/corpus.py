"""Builds corpus.jsonl: the statements both parsers are asked about.

    python -m tests.parser_fidelity.corpus

Three parts, in this order: real statements (Flink docs, Nexmark, our conformance suite, examples
and docs), hand-written edge cases, and seeded token-level mutants of the real statements. The
output is deterministic (fixed seed, sorted inputs), so regenerating it is a no-op unless an input
changed. Statements are split with our own small lexer rather than our parser, so that a parser
defect cannot hide a statement from the comparison.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from tests.fixtures.loader import NEXMARK, doc_blocks, nexmark_files
from tests.parser_fidelity import ours

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
CORPUS = HERE / "corpus.jsonl"
SEED = 20_250_623
MUTANTS = 1_500  # in all: round by round, one more per base statement, while the budget lasts
ROUNDS = 4
OPS = ("delete", "duplicate", "swap", "truncate")

# ${VAR} placeholders of the Nexmark runner and our conformance suite, with plausible values
VARIABLES = {
    "TPS": "10000000", "EVENTS_NUM": "100000000", "PERSON_PROPORTION": "1", "AUCTION_PROPORTION": "3",
    "BID_PROPORTION": "46", "BOOTSTRAP_SERVERS": "localhost:9092", "NEXMARK_TABLE": "datagen",
    "FLINK_HOME": "/opt/flink", "DATA": "/tmp/conformance/data", "SOURCE_OPTIONS": "", "IN_ORDER_OPTIONS": "", "KEEP_ALIVE": "false",
    "STOP_AT": "-1", "NEXMARK_DIR": "/opt/nexmark", "SUBMIT_TIME": "1700000000000",
}

# first words of Flink statements; anything else in an example is a fragment or prose
STATEMENT_WORDS = frozenset(
    ["SELECT", "WITH", "VALUES", "INSERT", "EXECUTE", "CREATE", "ALTER", "DROP", "SET", "RESET", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "USE", "LOAD", "UNLOAD", "ADD", "REMOVE", "BEGIN", "END", "STOP", "ANALYZE", "TRUNCATE", "DELETE", "UPDATE", "REPLACE", "CALL", "("]
)
# handled by Flink's SQL client or by sqlengine outside any SQL parser
CLIENT_ONLY = re.compile(r"^(?:HELP|QUIT|EXIT|CLEAR|\\|(?:DESCRIBE|DESC)\s+JOB\b)", re.I)
ELIDED = re.compile(r"\.\s*\.\s*\.")
GRAMMAR = re.compile(r"\[[A-Z]{2,}|\{|\s\|\s")  # BNF in docs: [TEMPORARY], { a | b }, a | b

_LEX = re.compile(
    r"(?P<ws>\s+)|(?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))|(?P<string>'(?:[^']|'')*'?)"
    r"|(?P<quoted>`(?:[^`]|``)*`?|\"(?:[^\"]|\"\")*\"?)|(?P<word>[A-Za-z0-9_$]+)|(?P<other>.)",
    re.S,
)


def _lex(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each lexeme: enough to find statement ends that are not in a string,
    an identifier or a comment."""
    for m in _LEX.finditer(text):
        if m.lastgroup not in ("ws", "comment"):
            yield m.lastgroup or "", m.start(), m.end()


def split_statements(text: str) -> list[str]:
    """Statements of a script, without their `;`, leading comments or surrounding blanks. An
    ``[EXPLAIN] EXECUTE STATEMENT SET BEGIN ... END`` stays whole (its inner `;` are its own)."""
    out: list[str] = []
    cur: list[tuple[int, int]] = []
    words: list[str] = []  # upper-cased lexemes of the current statement
    in_set = False
    piece: list[str] = []  # lexemes since the last `;` inside a statement set
    for kind, start, end in _lex(text):
        lexeme = text[start:end].upper()
        if lexeme == ";":
            if in_set and piece != ["END"]:
                cur.append((start, end))
                piece = []
                continue
            if cur:
                out.append(text[cur[0][0] : cur[-1][1]])
            cur, words, piece, in_set = [], [], [], False
            continue
        cur.append((start, end))
        words.append(lexeme if kind == "word" else "")
        piece.append(lexeme)
        if not in_set and words[-4:] == ["EXECUTE", "STATEMENT", "SET", "BEGIN"] and words[0] in ("EXECUTE", "EXPLAIN"):
            in_set, piece = True, []
    if cur:
        out.append(text[cur[0][0] : cur[-1][1]])
    return out


def _substitute(sql: str) -> str:
    return re.sub(r"\$\{(\w+)\}", lambda m: VARIABLES[m.group(1)], sql)


def _keep(sql: str) -> bool:
    if ELIDED.search(sql) or CLIENT_ONLY.match(sql):
        return False
    bare = re.sub(r"'(?:[^']|'')*'|--[^\n]*", "''", sql)  # notation inside strings or comments is fine
    if GRAMMAR.search(bare):
        return False
    first = re.match(r"\(|\w+", sql)
    return first is not None and first.group(0).upper() in STATEMENT_WORDS


def _sql_blocks(markdown: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^```sql\n(.*?)^```", markdown, re.M | re.S)]


def base_scripts() -> Iterator[tuple[str, str]]:
    """(id prefix, script text) of every real source, in a fixed order."""
    for block in doc_blocks():
        if block.unsplit:  # several statements without `;`: they are separated by blank lines
            for part in re.split(r"\n[ \t]*\n", block.text):
                yield f"flink_docs/{block.id}", part
        else:
            yield f"flink_docs/{block.id}", block.text
    for path in nexmark_files():
        yield f"nexmark/{path.relative_to(NEXMARK)}", path.read_text()
    conformance = ROOT / "tests" / "conformance"
    yield "conformance/tables.sql", (conformance / "tables.sql").read_text()
    for path in sorted((conformance / "queries").glob("*.sql")):
        yield f"conformance/{path.name}", path.read_text()
    for path in sorted((ROOT / "examples").glob("*.sql")):
        yield f"examples/{path.name}", path.read_text()
    for path in sorted((ROOT / "docs").glob("*.md")):
        for n, block in enumerate(_sql_blocks(path.read_text()), 1):
            yield f"docs/{path.name}#{n}", block


def base_statements() -> list[dict]:
    rows: list[dict] = []
    counts: dict[str, int] = {}
    for prefix, text in base_scripts():
        for sql in split_statements(text):
            # numbered by position, dropped statements included, so ids survive filter changes
            counts[prefix] = counts.get(prefix, 0) + 1
            if _keep(sql):
                rows.append({"id": f"{prefix}:{counts[prefix]}", "source": prefix, "sql": _substitute(sql)})
    return rows


# ---- hand-written edge cases ------------------------------------------------------------------

# Flink's parser must reject these (test_parser_fidelity checks the labels agree)
MUST_REJECT = {
    "double-comma": "SELECT a,, b FROM t",
    "trailing-comma-from": "SELECT a FROM t,",
    "insert-no-target": "INSERT INTO FROM t",
    "misspelled-select": "SELEC x",
    "set-double-equals": "SET 'k' = = 'v'",
    "group-by-nothing": "SELECT * FROM t GROUP BY",
    "empty-in-list": "SELECT a FROM t WHERE a IN ()",
    "explain-explain": "EXPLAIN EXPLAIN SELECT a FROM t",
}


def _nest(depth: int, open_: str, core: str, close: str) -> str:
    return open_ * depth + core + close * depth


CASES = {
    **MUST_REJECT,
    # more that are (probably) wrong: Flink's labels decide. Flink 2.3's parser accepts the two
    # impossible literals: Calcite checks a typed literal's text only after parsing.
    "bad-timestamp-literal": "SELECT TIMESTAMP '2020-13-45 00:00:00'",
    "bad-date-literal": "SELECT DATE 'x'",
    "select-nothing": "SELECT FROM t",
    "from-nothing": "SELECT a FROM",
    "where-nothing": "SELECT * FROM t WHERE",
    "unclosed-paren": "SELECT (a FROM t",
    "extra-close-paren": "SELECT a) FROM t",
    "unterminated-string": "SELECT 'abc FROM t",
    "order-without-by": "SELECT a FROM t ORDER a",
    "create-trailing-comma": "CREATE TABLE t (a INT,) WITH ('connector' = 'datagen')",
    "create-no-columns": "CREATE TABLE t () WITH ('connector' = 'datagen')",
    "insert-without-into": "INSERT t SELECT 1",
    "limit-nothing": "SELECT a FROM t LIMIT",
    "cast-without-type": "SELECT CAST(a) FROM t",
    "join-without-condition": "SELECT * FROM t JOIN u",
    "having-nothing": "SELECT a FROM t GROUP BY a HAVING",
    "three-names": "SELECT * FROM t t2 t3",
    "dangling-plus": "SELECT 1 +",
    "set-key-only": "SET 'k'",
    "set-unquoted": "SET k = v",
    "reset-unquoted": "RESET k",
    "show-table": "SHOW TABLE",
    "bare-explain": "EXPLAIN",
    "bare-use": "USE",
    "drop-table-nothing": "DROP TABLE",
    "union-nothing": "SELECT a FROM t UNION SELECT",
    "interval-bad-unit": "SELECT INTERVAL '1' FOO",
    "two-numbers": "SELECT 1 1",
    "not-not-in": "SELECT a FROM t WHERE a NOT NOT IN (1)",
    "view-without-query": "CREATE VIEW v AS",
    "subquery-select-nothing": "SELECT a FROM t WHERE a IN (SELECT)",
    "double-quoted-alias": 'SELECT a AS "b" FROM t',
    "reserved-value-column": "SELECT value FROM t",
    "reserved-order-alias": "SELECT a FROM t AS order",
    "reserved-timestamp-column": "SELECT timestamp FROM t",
    "count-as-column": "SELECT count FROM t",
    "user-function": "SELECT user FROM t",
    # valid
    "string-continuation-in-options": "ALTER TABLE t SET ('k' = '2' '2')",
    "intersect": "SELECT a FROM t INTERSECT SELECT a FROM u",
    "intersect-all": "SELECT a FROM t INTERSECT ALL SELECT a FROM u",
    "except": "SELECT a FROM t EXCEPT SELECT a FROM u",
    "except-all": "SELECT a FROM t EXCEPT ALL SELECT a FROM u",
    "exists": "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
    "not-exists": "SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.a = t.a)",
    "scalar-subquery-select": "SELECT a, (SELECT MAX(b) FROM u) AS m FROM t",
    "scalar-subquery-where": "SELECT a FROM t WHERE b > (SELECT AVG(b) FROM t)",
    "count-star-over": "SELECT a, COUNT(*) OVER (PARTITION BY a ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n FROM t",
    "named-window": "SELECT a, SUM(b) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY ts "
    "RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
    "row-number-empty-over": "SELECT ROW_NUMBER() OVER () FROM t",
    "fetch-first": "SELECT * FROM t ORDER BY a FETCH FIRST 5 ROWS ONLY",
    "limit-offset": "SELECT * FROM t ORDER BY a LIMIT 10 OFFSET 5",
    "array-map-row": "SELECT ARRAY[1, 2][1], MAP['a', 1]['a'], ROW(1, 'a')",
    "between-symmetric": "SELECT a FROM t WHERE a NOT BETWEEN SYMMETRIC 2 AND 1",
    "like-escape": "SELECT a FROM t WHERE b LIKE 'x!%' ESCAPE '!' OR b SIMILAR TO 'a+'",
    "is-distinct-from": "SELECT a FROM t WHERE a IS DISTINCT FROM b AND a IS NOT DISTINCT FROM c",
    "typed-literals": "SELECT DATE '2020-01-01', TIME '12:00:00', TIMESTAMP '2020-01-01 00:00:00.123', X'FF', 1e10, .5",
    "interval-arith": "SELECT CURRENT_TIMESTAMP + INTERVAL '1' DAY, INTERVAL '1-2' YEAR TO MONTH",
    "unicode-string": "SELECT U&'\\0041b'",
    "simple-case": "SELECT CASE a WHEN 1 THEN 'x' WHEN 2 THEN 'y' ELSE 'z' END FROM t",
    "nulls-last": "SELECT a FROM t ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST",
    "special-functions": "SELECT TRIM(BOTH 'x' FROM s), SUBSTRING(s FROM 1 FOR 2), POSITION('a' IN s), "
    "EXTRACT(YEAR FROM ts), OVERLAY(s PLACING 'x' FROM 1), TIMESTAMPDIFF(DAY, ts, ts) FROM t",
    "filter-clause": "SELECT COUNT(DISTINCT a) FILTER (WHERE b > 0) FROM t",
    "quantified-comparison": "SELECT a FROM t WHERE a > ALL (SELECT b FROM u) OR a = SOME (SELECT b FROM u)",
    "values": "VALUES (1, 'a'), (2, 'b')",
    "json-functions": "SELECT JSON_OBJECT(KEY 'a' VALUE 1), JSON_VALUE(s, '$.a' RETURNING INT DEFAULT 0 ON EMPTY) FROM t",
    "rollup-cube": "SELECT a, b, COUNT(*) FROM t GROUP BY ROLLUP (a, b), CUBE (a)",
    "lateral-table": "SELECT * FROM t, LATERAL TABLE(f(a)) AS T(x)",
    "unnest": "SELECT * FROM t CROSS JOIN UNNEST(arr) AS u(x)",
    "table-hint": "SELECT * FROM t /*+ OPTIONS('k' = 'v') */",
    "query-hint": "SELECT /*+ BROADCAST(u) */ * FROM t JOIN u ON t.a = u.a",
    "time-travel": "SELECT a FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00'",
    "backquoted-keywords": "SELECT `select`, `from` FROM `t` AS `where`",
    "dynamic-param": "SELECT a FROM t WHERE a = ?",
    "insert-values-columns": "INSERT INTO t (a, b) VALUES (1, 2)",
    "insert-overwrite-partition": "INSERT OVERWRITE t PARTITION (p = 1) SELECT a FROM u",
    "explain-plan-for": "EXPLAIN PLAN FOR SELECT 1",
    "explain-details": "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT a FROM t",
    "statement-set": "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; INSERT INTO b SELECT * FROM t; END",
    "set-all": "SET",
    "reset-all": "RESET",
    "create-catalog": "CREATE CATALOG c WITH ('type' = 'generic_in_memory')",
    "create-database": "CREATE DATABASE IF NOT EXISTS db COMMENT 'x'",
    "create-function": "CREATE TEMPORARY SYSTEM FUNCTION f AS 'com.x.F' LANGUAGE JAVA",
    "create-view-columns": "CREATE VIEW v (a, b) AS SELECT 1, 2",
    "ctas": "CREATE TABLE t2 WITH ('connector' = 'blackhole') AS SELECT * FROM t",
    "show-tables-like": "SHOW TABLES FROM db LIKE 'a%'",
    "use-catalog": "USE CATALOG c",
    "use-modules": "USE MODULES core",
    "load-module": "LOAD MODULE core",
    "stop-job": "STOP JOB '2e3f' WITH SAVEPOINT",
    "show-jobs": "SHOW JOBS",
    "describe-job": "DESCRIBE JOB '2e3f'",
    "call-procedure": "CALL c.sys.compact('t')",
    "truncate": "TRUNCATE TABLE t",
    "delete": "DELETE FROM t WHERE a = 1",
    "update": "UPDATE t SET a = 1 WHERE b = 2",
    "analyze": "ANALYZE TABLE t COMPUTE STATISTICS FOR ALL COLUMNS",
    "begin-statement-set": "BEGIN STATEMENT SET",
    "end": "END",
    # deep nesting: Flink plans these; our parser must not run out of stack
    "nested-parens-60": "SELECT " + _nest(60, "(", "1", ")"),
    "nested-case-60": "SELECT " + _nest(60, "CASE WHEN a > 0 THEN ", "1", " ELSE 0 END"),
    "nested-subqueries-120": _nest(120, "SELECT * FROM (", "SELECT 1 AS a", ")"),
    "plus-chain-1000": "SELECT " + " + ".join(["1"] * 1000),
    "or-list-1000": "SELECT a FROM t WHERE " + " OR ".join(f"a = {i}" for i in range(1000)),
    "union-all-300": " UNION ALL ".join(f"SELECT {i} AS a" for i in range(300)),
}


def hand_written() -> list[dict]:
    return [{"id": f"case/{name}", "source": "hand-written", "sql": sql} for name, sql in CASES.items()]


# ---- mutants ----------------------------------------------------------------------------------


def mutate(sql: str, toks: list, op: str, i: int) -> str:
    """``sql`` with token ``i`` deleted / duplicated / swapped with the next / cut off before it.
    Edits are made on the original text at the tokens' offsets, so the spacing stays as written."""
    t = toks[i]
    if op == "delete":
        return (sql[: t.start] + sql[t.end + 1 :]).strip()
    if op == "duplicate":
        return sql[: t.end + 1] + " " + sql[t.start : t.end + 1] + sql[t.end + 1 :]
    if op == "swap":
        u = toks[i + 1]
        a, b = sql[t.start : t.end + 1], sql[u.start : u.end + 1]
        return sql[: t.start] + b + sql[t.end + 1 : u.start] + a + sql[u.end + 1 :]
    if op == "truncate":
        return sql[: t.start].rstrip()
    raise ValueError(op)


def _pick(rng: random.Random, sql: str, toks: list) -> tuple[str, int] | None:
    # a `;` is left alone: it would split the statement in two rather than break it
    ok = [i for i, t in enumerate(toks) if t.text != ";"]
    op = rng.choice(OPS)
    if op == "swap":
        ok = [i for i in ok if i + 1 < len(toks) and toks[i + 1].text != ";"]
        ok = [i for i in ok if sql[toks[i].start : toks[i].end + 1] != sql[toks[i + 1].start : toks[i + 1].end + 1]]
    elif op == "truncate":
        ok = [i for i in ok if i > 0]
    return (op, rng.choice(ok)) if ok else None


def mutants(bases: list[dict], seen: set[str]) -> list[dict]:
    rng = random.Random(SEED)
    tokenized = []
    for row in bases:
        try:
            toks = ours.tokens(row["sql"])
        except Exception:  # our tokenizer rejects it: no token boundaries to mutate at
            continue
        if len(toks) >= 2:
            tokenized.append((row, toks))
    order = list(range(len(tokenized)))
    rng.shuffle(order)
    out: list[dict] = []
    for _round in range(ROUNDS):
        for k in order:
            if len(out) >= MUTANTS:
                return out
            row, toks = tokenized[k]
            for _attempt in range(5):  # a few tries at a mutant that is new text
                picked = _pick(rng, row["sql"], toks)
                if picked is None:
                    break
                op, i = picked
                sql = mutate(row["sql"], toks, op, i)
                if sql and sql not in seen:
                    seen.add(sql)
                    out.append({"id": f"{row['id']}~{op}{i}", "source": f"{row['id']} {op} {i}", "sql": sql})
                    break
    return out


def build() -> list[dict]:
    rows: list[dict] = []
    seen: set[str] = set()
    for row in base_statements() + hand_written():
        if row["sql"] not in seen:
            seen.add(row["sql"])
            rows.append(row)
    bases = [r for r in rows if r["source"] != "hand-written"]
    rows += mutants(bases, seen)
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate corpus ids"
    return rows


def write(rows: list[dict], path: Path = CORPUS) -> None:
    with path.open("w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def load(path: Path = CORPUS) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    rows = build()
    write(rows)
    kinds: dict[str, int] = {}
    for r in rows:
        kind = "mutant" if "~" in r["id"] else r["id"].split("/")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(rows)} statements written to {CORPUS.relative_to(ROOT)}: " + ", ".join(f"{k} {n}" for k, n in kinds.items()))


if __name__ == "__main__":
    main()
