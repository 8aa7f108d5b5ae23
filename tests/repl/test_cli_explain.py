"""`sqlengine explain FILE`: every query/INSERT of the file, as text, json or mermaid."""

from __future__ import annotations

import json

from repl.cli import main

SQL = """\
CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;
SELECT user_id, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY user_id, window_start, window_end;
"""


def test_text(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(SQL)
    assert main(["explain", str(f)]) == 0
    out = capsys.readouterr().out
    assert out.count("== Plan ==") == 2
    assert f"-- {f}:3\n" in out and f"-- {f}:4\n" in out
    assert "GroupAggregate: UNBOUNDED" in out and "WindowAggregate: BOUNDED" in out
    assert "SE101" in out


def test_json(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(SQL)
    assert main(["explain", str(f), "--format", "json"]) == 0
    first, second = json.loads(capsys.readouterr().out)
    assert (first["line"], first["verdict"], second["verdict"]) == (3, "unbounded", "bounded")
    assert [d["code"] for d in first["diagnostics"]] == ["SE101"]


def test_mermaid(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(SQL)
    assert main(["explain", str(f), "--format", "mermaid"]) == 0
    out = capsys.readouterr().out
    assert out.count("```mermaid\nflowchart BT\n") == 2
    assert "class " in out and " unbounded" in out and " bounded" in out


def test_errors_are_positioned_and_exit_2(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text("SELECT * FROM nowhere;\n")
    assert main(["explain", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:1:15: error: Table or view `nowhere` does not exist" in err
    assert main(["explain", str(tmp_path / "missing.sql")]) == 2


def test_an_explain_statement_keeps_its_details(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(SQL.split("SELECT", maxsplit=1)[0] + "EXPLAIN CHANGELOG_MODE SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    assert main(["explain", str(f)]) == 0
    out = capsys.readouterr().out
    assert f"-- {f}:3\n== Plan ==" in out and "changelog: upsert[user_id]" in out
    assert "== State ==" not in out and "== Advice ==" not in out
