"""lint checks a CREATE TABLE's connector options where they are written (E003 at the pair), as
the job start does when the table is read or written; valid options, and options that hold a
${VARIABLE} not yet defined, give no finding."""

from __future__ import annotations

from planner.lint import lint_paths

BAD = """\
CREATE TABLE k (a INT) WITH (
  'connector' = 'kafka',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'jsn',
  'scan.startup.mode' = 'earliest',
  'topc' = 'orders'
);
CREATE TABLE f (a INT) WITH ('connector' = 'filesystem', 'format' = 'json');
SELECT a FROM k;
"""


def test_each_bad_option_is_an_error_at_its_pair(tmp_path):
    path = tmp_path / "bad.sql"
    path.write_text(BAD)
    found = [(d.code, d.line, d.column, d.message, d.hint) for d in lint_paths([path]).diagnostics]
    assert ("E003", 4, 3, "Option 'format': 'jsn' is not one of json, csv, raw, avro.", "did you mean 'json'?") in found
    assert any(line == 5 and "'earliest' is not one of earliest-offset" in msg and hint == "did you mean 'earliest-offset'?"
               for _, line, _, msg, hint in found), found
    assert any(line == 6 and "'topc'" in msg for _, line, _, msg, _ in found), found
    # a missing option has no pair: at the statement
    assert ("E003", 8, 1) in [f[:3] for f in found] and any("needs the option 'path'" in f[3] for f in found)
    assert lint_paths([path]).exit_code == 2  # invalid SQL, as a binding error


def test_valid_and_variable_options_pass(tmp_path):
    path = tmp_path / "ok.sql"
    path.write_text("CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 't', "
                    "'properties.bootstrap.servers' = '${BROKERS}', 'format' = 'json');\n"
                    "CREATE TABLE d (a INT) WITH ('connector' = 'datagen', 'rows-per-second' = '${RATE}');\n")
    assert lint_paths([path]).diagnostics == ()
