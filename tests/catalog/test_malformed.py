"""One reading of what a source does with a malformed record (catalog.malformed)."""

import pytest

from catalog.malformed import errors_mode, side_errors_mode, skips_malformed


@pytest.mark.parametrize(
    ("options", "mode"),
    [
        ({"format": "json"}, "fail"),
        ({"format": "json", "errors.mode": "dead-letter"}, "dead-letter"),
        # Flink's 'ignore-parse-errors': what does not convert reads as NULL, the row kept
        ({"format": "csv", "csv.ignore-parse-errors": "true"}, "null-fields"),
        ({"format": "csv", "csv.ignore-parse-errors": "TRUE "}, "null-fields"),
        # Kafka's value format keeps its side's prefix, as in Flink
        ({"value.format": "json", "value.json.ignore-parse-errors": "true"}, "null-fields"),
        ({"value.format": "csv", "csv.ignore-parse-errors": "true"}, "null-fields"),
        # a Kafka key format's own flag
        ({"key.format": "csv", "value.format": "json", "key.csv.ignore-parse-errors": "true"}, "null-fields"),
        # another format's option says nothing
        ({"format": "csv", "json.ignore-parse-errors": "true"}, "fail"),
        # 'errors.mode' written wins over the format's flag
        ({"format": "json", "json.ignore-parse-errors": "true", "errors.mode": "fail"}, "fail"),
        # a value that is no boolean is the option check's to report, not a skip
        ({"format": "json", "json.ignore-parse-errors": "yes"}, "fail"),
        # a mode that is none of the modes is returned as written, for the connector to refuse
        ({"format": "json", "errors.mode": "Skip"}, "Skip"),
    ],
)
def test_errors_mode(options, mode):
    assert errors_mode(options) == mode
    assert skips_malformed(options) == (mode in ("skip", "dead-letter", "null-fields"))


def test_each_side_of_a_kafka_record_reads_its_own_format_flag():
    options = {"key.format": "json", "value.format": "csv", "value.csv.ignore-parse-errors": "true"}
    assert (side_errors_mode(options, "key"), side_errors_mode(options, "value")) == ("fail", "null-fields")
    options = {"key.format": "json", "format": "json", "key.json.ignore-parse-errors": "true"}
    assert (side_errors_mode(options, "key"), side_errors_mode(options, "value")) == ("null-fields", "fail")
    # 'errors.mode' written is both sides'
    assert side_errors_mode({**options, "errors.mode": "skip"}, "value") == "skip"
