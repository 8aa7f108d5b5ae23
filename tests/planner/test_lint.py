"""The lint driver: findings with positions, errors as findings that do not stop the rest,
suppression, configuration, severities and exit codes."""

from __future__ import annotations

import textwrap

import pytest

from planner.diagnostics import Severity
from planner.lint import ConfigError, LintConfig, Linter, find_config, lint_paths, load_config, render

DDL = """\
CREATE TABLE clicks (
  user_id BIGINT,
  url STRING,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
"""


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_finding_with_position_and_text_format(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "\nSELECT user_id, COUNT(*)\nFROM clicks\nGROUP BY user_id;\n")
    result = lint_paths([f])
    (d,) = result.diagnostics
    assert (d.code, d.line, d.column) == ("SE101", 10, 10)  # the group key: GROUP BY `user_id`
    assert d.end_line == 10 and d.end_column == len("GROUP BY user_id") + 1  # exclusive
    assert render(result, "text") == f"{f}:10:10: SE101 {d.message}\n"
    assert "(user_id)" in d.message
    assert result.exit_code == 1


def test_errors_are_findings_and_do_not_stop_the_file(tmp_path):
    f = write(
        tmp_path,
        "q.sql",
        DDL
        + "SELEC 1;\n"  # line 7: syntax
        + "SELECT * FROM clickz;\n"  # line 8: unknown table
        + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n",  # line 9
    )
    result = lint_paths([f])
    by_code = {d.code: d for d in result.diagnostics}
    assert set(by_code) == {"E001", "E002", "SE101"}
    assert (by_code["E001"].line, by_code["E001"].column) == (7, 7)  # SELEC 1: the parser stops at `1`
    assert by_code["E001"].category.value == "syntax"
    assert (by_code["E002"].line, by_code["E002"].column) == (8, 15)
    assert by_code["E002"].category.value == "binding" and "did you mean `clicks`" in by_code["E002"].hint
    assert by_code["SE101"].line == 9
    assert result.exit_code == 2  # invalid SQL wins over findings


def test_undefined_variable_is_e004(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "SELECT * FROM ${SOURCE};\n")
    (d,) = lint_paths([f]).diagnostics
    assert d.code == "E004" and d.line == 7 and "${SOURCE}" in d.message
    clean = Linter(LintConfig(define={"SOURCE": "clicks"})).lint_files([f])
    assert clean.diagnostics == () and clean.exit_code == 0


def test_later_files_do_not_see_earlier_files_ddl_but_see_init(tmp_path):
    ddl = write(tmp_path, "ddl/tables.sql", DDL)
    q = write(tmp_path, "jobs/q.sql", "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    alone = lint_paths([q])
    assert [d.code for d in alone.diagnostics] == ["E002"]
    with_init = Linter(LintConfig(init=(ddl,))).lint_files([q])
    assert [d.code for d in with_init.diagnostics] == ["SE101"]
    assert with_init.diagnostics[0].path == str(q)


def test_directories_are_searched_for_sql_files(tmp_path):
    write(tmp_path, "a/one.sql", DDL + "SELECT DISTINCT url FROM clicks;\n")
    write(tmp_path, "a/b/two.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    write(tmp_path, "a/notes.txt", "SELECT nonsense")
    result = lint_paths([tmp_path / "a"])
    assert result.files == 2 and result.statements == 4
    assert sorted(d.code for d in result.diagnostics) == ["SE101", "SE103"]
    with pytest.raises(ConfigError):
        lint_paths([tmp_path / "missing"])


@pytest.mark.parametrize(
    "comment, suppressed",
    [
        ("-- noqa: SE101", True),
        ("-- noqa", True),
        ("-- noqa: SE102, SE101", True),
        ("-- noqa: SE102", False),
    ],
)
def test_noqa_on_the_statements_first_line(tmp_path, comment, suppressed):
    f = write(tmp_path, "q.sql", DDL + f"SELECT user_id, COUNT(*) {comment}\nFROM clicks\nGROUP BY user_id;\n")
    codes = [d.code for d in lint_paths([f]).diagnostics]
    assert codes == ([] if suppressed else ["SE101"])


def test_noqa_on_the_line_of_the_finding(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "SELECT user_id, COUNT(*)\nFROM clicks\nGROUP BY user_id; -- noqa: SE101\nSELECT DISTINCT url FROM clicks;\n")
    assert [d.code for d in lint_paths([f]).diagnostics] == ["SE103"]


def test_select_ignore_and_severity_overrides():
    cfg = LintConfig(select=("SE1",), ignore=("SE103",), severity={"SE101": Severity.ERROR})
    assert cfg.wants("SE101") and not cfg.wants("SE103") and not cfg.wants("SE301")
    assert cfg.severity_of("SE101", Severity.WARNING) == Severity.ERROR


def test_fail_on_levels(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    for fail_on, code in (("error", 0), ("warning", 1), ("info", 1), ("none", 0)):
        assert Linter(LintConfig(fail_on=fail_on)).lint_files([f]).exit_code == code
    raised = Linter(LintConfig(fail_on="error", severity={"SE101": Severity.ERROR})).lint_files([f])
    assert raised.diagnostics[0].severity == Severity.ERROR and raised.exit_code == 1


PYPROJECT = """\
[project]
name = "jobs"

[tool.sqlengine.lint]
select = ["SE", "E"]
ignore = ["SE103"]
fail-on = "error"
define = { SOURCE = "clicks" }
horizon-days = 10

[tool.sqlengine.lint.severity]
SE101 = "error"

[tool.sqlengine.lint.stats.clicks]
"stats.rows-per-second" = "1000"
"""


def test_config_is_found_walking_up_and_applied(tmp_path):
    write(tmp_path, "pyproject.toml", PYPROJECT)
    f = write(tmp_path, "sql/deep/q.sql", DDL + "SELECT user_id, COUNT(*) FROM ${SOURCE} GROUP BY user_id;\nSELECT DISTINCT url FROM clicks;\n")
    found = find_config(f)
    assert found == tmp_path / "pyproject.toml"
    cfg = load_config(found)
    assert cfg.fail_on == "error" and cfg.horizon_days == 10 and cfg.define == {"SOURCE": "clicks"}
    result = Linter(cfg).lint_files([f])
    (d,) = result.diagnostics  # SE103 ignored
    assert d.code == "SE101" and d.severity == Severity.ERROR
    assert "after 10 days" in d.message  # the stats give an estimate over the horizon
    assert result.exit_code == 1


def test_config_errors(tmp_path):
    bad = write(tmp_path, "pyproject.toml", '[tool.sqlengine.lint]\nfail-on = "sometimes"\n')
    with pytest.raises(ConfigError, match="fail-on"):
        load_config(bad)
    bad.write_text('[tool.sqlengine.lint]\nselct = ["SE1"]\n')
    with pytest.raises(ConfigError, match="unknown"):
        load_config(bad)
    bad.write_text("[tool.sqlengine.lint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(bad)
    assert find_config(tmp_path / "elsewhere" / "q.sql") is None or find_config(tmp_path / "elsewhere") != bad


def test_parallel_lint_gives_the_same_findings(tmp_path):
    files = [write(tmp_path, f"q{i}.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n") for i in range(6)]
    serial = Linter(LintConfig()).lint_files(files, jobs=1)
    parallel = Linter(LintConfig()).lint_files(files, jobs=2)
    assert [str(d) for d in parallel.diagnostics] == [str(d) for d in serial.diagnostics]
    assert parallel.statements == serial.statements == 12


def test_shared_setup_prefix_gives_the_same_findings_as_linting_alone(tmp_path):
    header = DDL + "SET 'table.exec.state.ttl' = '1 h';\n"
    a = write(tmp_path, "a.sql", header + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    b = write(tmp_path, "b.sql", header + "CREATE VIEW v AS SELECT DISTINCT url FROM clicks;\nSELECT * FROM v;\n")
    c = write(tmp_path, "c.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")  # no SET: no TTL
    d = write(tmp_path, "d.sql", header + "SELECT * FROM nowhere;\n")
    shared = Linter(LintConfig())
    together = shared.lint_files([a, b, c, d])
    alone = [d for f in (a, b, c, d) for d in Linter(LintConfig()).lint_files([f]).diagnostics]
    assert [str(x) for x in together.diagnostics] == sorted((str(x) for x in alone), key=lambda s: s)
    by_file = {}
    for x in together.diagnostics:
        by_file.setdefault(x.path, []).append(x.code)
    assert by_file == {str(a): ["SE108", "SE302"], str(b): ["SE108", "SE302"], str(c): ["SE101"], str(d): ["E002"]}
    assert together.statements == 3 + 4 + 2 + 3
    assert shared.prefixes.get(header.rstrip("\n")) is not None  # the state after the header was kept


def test_batch_mode_has_no_streaming_findings(tmp_path):
    body = "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n"
    streaming = write(tmp_path, "s.sql", DDL + body)
    batch = write(tmp_path, "b.sql", DDL + "SET 'execution.runtime-mode' = 'batch';\n" + body)
    assert [d.code for d in lint_paths([streaming]).diagnostics] == ["SE101"]
    assert lint_paths([batch]).diagnostics == ()
