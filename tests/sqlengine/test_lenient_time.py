"""Which explicit patterns are read as Flink reads them (sqlengine/translate/lenient_time.py: time
fields overflow, the day is cut to the month's end); the values themselves are checked against
Flink's in tests/functions (time.txt and zone.txt)."""

from __future__ import annotations

import re

import pytest

from sqlengine.translate.lenient_time import compile_pattern


@pytest.mark.parametrize(("pattern", "text", "fields"), [
    ("yyyy-MM-dd HH:mm:ss", "2024-01-01 24:00:00", ["2024", "01", "01", "24", "00", "00"]),
    ("yyyy-MM-dd HH:mm:ss", "2024-01-01 100:61:61", ["2024", "01", "01", "100", "61", "61"]),
    ("dd/MM/yyyy HH:mm", "31/02/2023 24:00", ["31", "02", "2023", "24", "00"]),
    ("yyyy-MM-dd HH:mm:ss.SSS", "2024-12-31 24:00:00.123", ["2024", "12", "31", "24", "00", "00", "123"]),
    ("yyyy.MM.dd", "2024.02.30", ["2024", "02", "30"]),
])
def test_a_pattern_of_numeric_fields_reads_overflowing_times(pattern: str, text: str, fields: list[str]) -> None:
    compiled = compile_pattern(pattern)
    assert compiled is not None
    found = re.match(compiled[0], text)
    assert found is not None and list(found.groups()) == fields


@pytest.mark.parametrize("pattern", [
    "yyyy-MM-dd hh:mm:ss a",  # a 12-hour clock and AM/PM
    "yyyy-MM-dd'T'HH:mm",  # a quoted literal
    "yy-MM-dd",  # a two-digit year
    "HH:mm:ss",  # no date
    "yyyy-MMM-dd",  # a month's name
    "EEE, dd MM yyyy",  # a day's name
])
def test_other_patterns_are_left_to_spark(pattern: str) -> None:
    assert compile_pattern(pattern) is None


def test_the_date_fields_keep_their_widths() -> None:
    compiled = compile_pattern("yyyy-MM-dd HH:mm:ss")
    assert compiled is not None
    assert re.match(compiled[0], "2024-1-01 10:00:00") is None  # a one-digit month is Spark's to read


@pytest.mark.spark
def test_text_that_overflows_past_the_last_day_is_null_not_a_failed_query(spark, tmp_path) -> None:
    # Spark fails a query on a date past 9999-12-31 or an overflowing long: the reading stops short
    from sqlengine.engine import Engine
    from tests.sqlengine.helpers import Sql

    sql = Sql(Engine(home=tmp_path / "home", spark=spark))
    (row,) = sql.rows(
        "SELECT TO_TIMESTAMP('9999-12-31 24:00:00', 'yyyy-MM-dd HH:mm:ss'), TO_DATE('9999-12-31 24:00:00', 'yyyy-MM-dd HH:mm:ss'), "
        "TO_TIMESTAMP('2024-01-01 999999999999:00:00', 'yyyy-MM-dd HH:mm:ss'), TO_TIMESTAMP('2024-01-01 99999999:00:00', 'yyyy-MM-dd HH:mm:ss'), "
        "TO_TIMESTAMP('2024-01-01 24:30:00', 'yyyy-MM-dd HH:mm:ss')", "batch")
    assert row[:4] == (None, None, None, None)
    assert str(row[4]) == "2024-01-02 00:30:00"
