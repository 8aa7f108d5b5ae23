"""The log file masks secrets: a message or a trace quoting a statement keeps no password."""

from __future__ import annotations

import logging

from repl.logs import setup_logging


def test_log_lines_and_traces_have_secret_values_masked(tmp_path):
    before = {name: list(logging.getLogger(name).handlers) for name in ("sqlengine", "")}
    try:
        _check(tmp_path)
    finally:  # leave the loggers as they were for the other tests
        for name, handlers in before.items():
            logging.getLogger(name).handlers[:] = handlers


def _check(tmp_path):
    path = setup_logging(tmp_path)
    log = logging.getLogger("sqlengine.test")
    stmt = "CREATE TABLE t (a INT) WITH ('connector' = 'kafka', 'properties.sasl.password' = 'hunter2')"
    log.info("statement failed: %s", stmt)
    try:
        raise ValueError(stmt)
    except ValueError:
        log.exception("while planning")
    for h in logging.getLogger("sqlengine").handlers:
        h.flush()
    text = path.read_text()
    assert "statement failed" in text and "while planning" in text and "ValueError" in text
    assert "hunter2" not in text and text.count("'******'") == 2
    assert (path.parent.stat().st_mode & 0o777) == 0o700
