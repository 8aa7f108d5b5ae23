"""Lint and EXPLAIN read a Python function from its source and never run it (a pull request's
code is not executed by reviewing it); `sqlengine run` imports it. Both read the same signature;
both find a module on the search path of the file at hand, not one imported earlier under the
same name; neither leaves its directories on ``sys.path``."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from planner.lint.driver import lint_paths
from planner.udf import UdfError
from planner.udf.imported import resolve
from planner.udf.loader import load
from planner.udf.static import resolve_static
from tests.planner.test_udf import DDL, MODULE


@pytest.mark.parametrize("name", ["count_char", "money", "words", "Wavg", "Money"])
def test_the_source_gives_the_signature_an_import_gives(tmp_path, name):
    (tmp_path / "udf_same.py").write_text(MODULE)
    by_import, by_source = resolve(f"udf_same.{name}", [str(tmp_path)]), resolve_static(f"udf_same.{name}", [str(tmp_path)])
    fields = ("params", "result", "required", "varargs", "table", "deterministic", "vectorized", "aggregate", "retracts")
    assert [getattr(by_source, f) for f in fields] == [getattr(by_import, f) for f in fields]
    assert by_source.aggregate == name[0].isupper()


def test_an_aggregate_functions_signature_is_read_from_its_methods(tmp_path):
    (tmp_path / "udf_agg.py").write_text(MODULE)
    wavg, money = (resolve_static(f"udf_agg.{n}", [str(tmp_path)]) for n in ("Wavg", "Money"))
    assert (wavg.params, wavg.result, wavg.required, wavg.retracts) == (("BIGINT", "BIGINT"), "DOUBLE", 1, True)
    assert (money.params, money.result, money.retracts) == (("DECIMAL(10, 2)",), "DECIMAL(10, 2)", False)
    for how in (resolve, resolve_static):
        with pytest.raises(UdfError, match="is a class without a `create_accumulator` method"):
            how("udf_agg.Total", [str(tmp_path)])


def test_lint_reads_a_function_without_running_its_module(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "udf_trap.py").write_text(textwrap.dedent(f"""\
        from collections.abc import Iterator
        open({str(marker)!r}, "w").write("the module ran")
        raise SystemExit("lint must not get here")

        def cc(s: "str | None", c: str) -> int:
            return 0

        def pairs(s: str) -> Iterator[tuple[str, int]]:
            yield s, 1

        made = lambda s: s
        """))
    f = tmp_path / "job.sql"
    f.write_text(DDL + textwrap.dedent("""\
        CREATE TEMPORARY FUNCTION cc AS 'udf_trap.cc' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION made AS 'udf_trap.made' LANGUAGE PYTHON;
        SELECT cc(s, 'a') AS k, COUNT(*) FROM t GROUP BY cc(s, 'a');
        SELECT x, n FROM t, LATERAL TABLE(pairs(s)) AS T(x, n);
        SELECT made(s) FROM t;
        """))
    result = lint_paths([f])
    found = sorted((d.line, d.code) for d in result.diagnostics)
    assert not marker.exists()
    assert (4, "SE101") in found and (6, "E002") in found
    (made,) = [d for d in result.diagnostics if d.line == 6]
    assert "'udf_trap.made' is not a `def` in udf_trap.py" in made.message


def test_each_file_finds_its_own_module_of_a_shared_name(tmp_path):
    for d, fn in (("a", "f"), ("b", "g")):
        (tmp_path / d).mkdir()
        (tmp_path / d / "udfs_shared.py").write_text(f"def {fn}(s: str) -> int:\n    return {1 if fn == 'f' else 2}\n")
        (tmp_path / d / "q.sql").write_text(
            DDL + f"CREATE TEMPORARY FUNCTION {fn} AS 'udfs_shared.{fn}' LANGUAGE PYTHON;\nSELECT {fn}(s) FROM t;\n"
        )
    result = lint_paths([tmp_path / "a" / "q.sql", tmp_path / "b" / "q.sql"])
    assert [d for d in result.diagnostics if d.severity.value == "error"] == []
    path_before = list(sys.path)
    # run: imported, each from its own directory, sys.path as it was
    assert load("udfs_shared.f", [str(tmp_path / "a")])("x") == 1
    assert load("udfs_shared.g", [str(tmp_path / "b")])("x") == 2
    assert sys.path == path_before


def test_an_annotation_that_is_no_type_is_an_error_not_a_traceback(tmp_path):
    (tmp_path / "udf_odd.py").write_text('def f(x: ["a"]) -> int:\n    return 1\n')
    with pytest.raises(UdfError, match="is not a type"):
        resolve_static("udf_odd.f", [str(tmp_path)])
    with pytest.raises(UdfError, match="is not a type"):
        resolve("udf_odd.f", [str(tmp_path)])


def test_a_module_that_is_not_there(tmp_path: Path):
    with pytest.raises(UdfError, match="cannot find Python module 'udf_absent'"):
        resolve_static("udf_absent.f", [str(tmp_path)])
