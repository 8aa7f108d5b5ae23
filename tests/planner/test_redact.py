"""Secret option values masked in statement text (what the shell's history keeps on disk)."""

from __future__ import annotations

import pytest

from planner.redact import mask_secrets


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        (
            "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'properties.sasl.jaas.config' = 'x password=\"p\";', 'password'='it''s');",
            "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'properties.sasl.jaas.config' = '******', 'password'='******');",
        ),
        ("ALTER TABLE t SET ('secret.key'='s3cr3t', 'format' = 'json');", "ALTER TABLE t SET ('secret.key'='******', 'format' = 'json');"),
        ("SELECT * FROM t /*+ OPTIONS('api-key'='k') */;", "SELECT * FROM t /*+ OPTIONS('api-key'='******') */;"),
        ("SET 'sasl.password' = 'p';", "SET 'sasl.password' = '******';"),
        ("SET s3.access-key = AKIA 123; SELECT 1;", "SET s3.access-key = ******; SELECT 1;"),
        ("CREATE TABLE t (a INT) WITH ('password' = 'unterminated", "CREATE TABLE t (a INT) WITH ('password' = '******'"),
        ("-- don't forget 'token' = 'abc'\nSELECT 1;", "-- don't forget 'token' = '******'\nSELECT 1;"),
        # not secrets: other options, columns compared with literals, strings that only look like keys
        ("CREATE TABLE t (a INT) WITH ('path' = '/data', 'format' = 'json');", None),
        ("SELECT * FROM users WHERE password = 'abc';", None),
        ("SELECT 'password' AS k, 'x' FROM t;", None),
    ],
)
def test_secret_values_are_masked_and_nothing_else(typed, kept):
    assert mask_secrets(typed) == (typed if kept is None else kept)
