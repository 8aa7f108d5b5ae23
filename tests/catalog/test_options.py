import pytest

from catalog import Column, TableDef
from catalog.options import (
    CONNECTORS,
    FORMATS,
    OptionProblem,
    check_value,
    find_spec,
    option_keys,
    parse_bool,
    parse_duration,
    parse_memory,
    validate_options,
)


def t(options, columns=(("a", "INT"), ("ts", "TIMESTAMP(3)"))):
    return TableDef("t", tuple(Column(n, ty) for n, ty in columns), options=options)


def keys(problems):
    return [p.key for p in problems]


def test_a_valid_table_has_no_problems():
    assert validate_options(t({"connector": "filesystem", "path": "/x", "format": "csv",
                               "csv.field-delimiter": ";", "stats.rows-per-second": "10",
                               "stats.distinct.a": "5", "errors.mode": "skip"})) == []


def test_missing_or_unknown_connector():
    assert validate_options(t({})) == [OptionProblem("connector", "Table `t` has no 'connector' option.")]
    [p] = validate_options(t({"connector": "datagem"}))
    assert (p.key, p.suggestion) == ("connector", "datagen")
    assert "Did you mean 'datagen'?" in p.message


def test_unknown_key_with_did_you_mean():
    [p] = validate_options(t({"connector": "datagen", "rows-per-secnd": "5"}))
    assert p == OptionProblem(
        "rows-per-secnd", "Unknown option 'rows-per-secnd' for connector 'datagen'. Did you mean "
        "'rows-per-second'?", "rows-per-second")


def test_missing_required_options():
    assert keys(validate_options(t({"connector": "filesystem"}))) == ["path", "format"]


@pytest.mark.parametrize(
    "key,value",
    [("number-of-rows", "ten"), ("rows-per-second", "1.5"), ("fields.a.null-rate", "x"),
     ("fields.a.kind", "sequense"), ("fields.ts.max-past", "5 parsecs")],
)
def test_bad_values(key, value):
    problems = validate_options(t({"connector": "datagen", key: value}))
    assert keys(problems) == [key]


def test_enum_value_gets_a_suggestion():
    [p] = validate_options(t({"connector": "datagen", "fields.a.kind": "sequense"}))
    assert p.suggestion == "sequence" and "'sequense' is not one of random, sequence" in p.message


def test_field_options_must_name_a_column():
    [p] = validate_options(t({"connector": "datagen", "fields.tss.max-past": "1 s"}))
    assert p.key == "fields.tss.max-past" and p.suggestion == "fields.ts.max-past"


def test_format_options_belong_to_their_format():
    [p] = validate_options(t({"connector": "filesystem", "path": "/x", "format": "json",
                              "csv.field-delimiter": ";"}))
    assert p.message == "Option 'csv.field-delimiter' is for format 'csv', but the format is 'json'."


def test_unresolved_variables_are_not_judged():
    assert validate_options(t({"connector": "nexmark", "events.num": "${EVENTS_NUM}"})) == []


def test_cross_option_rules():
    assert keys(validate_options(t({"connector": "filesystem", "path": "/x", "format": "parquet",
                                    "errors.mode": "dead-letter"}))) == ["errors.mode"]
    assert keys(validate_options(t({"connector": "datagen", "fields.a.kind": "sequence"}))) == [
        "fields.a.start", "fields.a.end"]
    # a timestamp sequence may run forever
    assert validate_options(t({"connector": "datagen", "fields.ts.kind": "sequence",
                               "fields.ts.start": "2024-01-01 00:00:00"})) == []


def test_flink_options_we_ignore_are_accepted_and_marked():
    spec, _ = find_spec("filesystem", "sink.rolling-policy.file-size")
    assert spec.ignored and spec.flink_name
    assert validate_options(t({"connector": "filesystem", "path": "/x", "format": "json",
                               "sink.rolling-policy.file-size": "128MB"})) == []


def test_option_keys_for_the_completer():
    got = option_keys("datagen", fields=("a",))
    assert "fields.a.kind" in got and "rows-per-second" in got and "fields.#.kind" not in got
    assert "csv.field-delimiter" in option_keys("filesystem", "csv")
    assert "csv.field-delimiter" not in option_keys("filesystem", "json")


def test_specs_are_well_formed():
    for spec in CONNECTORS.values():
        assert spec.options[0].key == "connector"
        names = [o.key for o in spec.options]
        assert len(names) == len(set(names)), spec.name
        for opt in spec.options:
            assert opt.description or opt.key == "connector", opt.key
            assert (opt.type == "enum") == bool(opt.choices), opt.key
            if opt.default is not None:
                assert check_value(opt, opt.default) is None, (spec.name, opt.key)
    for fmt, opts in FORMATS.items():
        assert all(o.key.startswith(fmt + ".") for o in opts)


@pytest.mark.parametrize(
    "text,seconds",
    [("10s", 10), ("10 s", 10), ("500 ms", 0.5), ("500", 0.5), ("1 min", 60), ("2h", 7200),
     ("1 d", 86400), ("3 seconds", 3)],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


def test_parse_memory_and_bool():
    assert (parse_memory("200b"), parse_memory("1 kb"), parse_memory("2m")) == (200, 1024, 2 << 20)
    assert parse_bool("TRUE") is True and parse_bool("false") is False
    with pytest.raises(ValueError):
        parse_bool("yes")
