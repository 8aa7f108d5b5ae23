"""`sqlengine run`'s table of rows: nested values are written as the shell and Flink write them,
not as Python's reprs; JSON output keeps them as JSON."""

from __future__ import annotations

import io
import json

from pyspark.sql import Row

from repl.run_cmd import print_rows

ROW = (Row(name="Bob", age=42), [1, None, 3], {"k": Row(x=1)}, "plain", None)
COLUMNS = ("r", "a", "m", "s", "n")


def test_the_table_writes_rows_arrays_and_maps_flinks_way():
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "tableau", out=out)
    line = out.getvalue().splitlines()[3]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells == ["(name=Bob, age=42)", "[1, NULL, 3]", "{k=(x=1)}", "plain", "NULL"]


def test_json_keeps_nested_values_as_json():
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "json", out=out)
    assert json.loads(out.getvalue()) == {"r": {"name": "Bob", "age": 42}, "a": [1, None, 3], "m": {"k": {"x": 1}},
                                          "s": "plain", "n": None}
