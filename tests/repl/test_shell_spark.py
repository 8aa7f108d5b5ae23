"""The shell over a real Engine on real local Spark: live result views in the three modes, jobs in
the background (SHOW / DESCRIBE / STOP JOB), leaving with jobs running, and Spark failures shown
as one line. Keys go through the pipe input, as in test_shell.py."""

from __future__ import annotations

import json
import re

import pytest

from tests.repl.shell_driver import CTRL_C, CTRL_D, ENTER

pytestmark = pytest.mark.spark


def write_events(directory, name, second_from, second_to, items=("apple", "pear"), minute=0):
    """One JSON file of events, one per second; written whole, then renamed into place."""
    rows = [
        {"ts": f"2024-01-01 00:{minute:02d}:{s:02d}.000", "item": items[s % len(items)], "price": s}
        for s in range(second_from, second_to)
    ]
    tmp = directory / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.rename(directory / name)


def table_ddl(name, directory, *, unbounded):
    monitor = ", 'source.monitor-interval' = '1 s'" if unbounded else ""
    return (
        f"CREATE TABLE {name} (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT, "
        f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'json'{monitor});"
    )


WINDOWED = (
    "SELECT item, window_start, window_end, COUNT(*) AS c, SUM(price) AS s "
    "FROM TABLE(TUMBLE(TABLE {t}, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
    "GROUP BY item, window_start, window_end;"
)


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "events"
    d.mkdir()
    return d


def test_table_view_updates_in_place_and_q_returns_to_the_prompt(spark_engine, shell_of, data):
    write_events(data, "a.json", 0, 30)
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=True))
    mark = sh.mark()
    sh.send(WINDOWED.format(t="bids") + ENTER)
    state = sh.wait_for("estimate:", since=mark)
    assert "WindowAggregate: BOUNDED" in state and "released after window end + watermark delay" in state
    view = sh.wait_until(lambda: sh.term.current_view, what="the table view")
    # windows [0,10) and [10,20) closed (watermark 28 s): apple has 5 rows in each, pear too
    first = sh.wait_until(lambda: "| apple | 2024-01-01 00:00:10.000" in view.snapshot_text() and view.snapshot_text(), what="closed windows")
    assert "| apple | 2024-01-01 00:00:00.000 | 2024-01-01 00:00:10.000 |                    5 |                   20 |" in first
    # more events: the open window [20,30) closes and a new minute appears
    write_events(data, "b.json", 0, 30, minute=1)
    later = sh.wait_until(
        lambda: "| pear  | 2024-01-01 00:01:10.000" in view.snapshot_text() and view.snapshot_text(), what="rows after new input"
    )
    assert "| apple | 2024-01-01 00:00:20.000 | 2024-01-01 00:00:30.000 |                    5 |                  120 |" in later
    status = sh.wait_until(lambda: "watermark 2024-01-01T00:01:28.000Z" in view.snapshot_text() and view.snapshot_text(), what="the new watermark")
    assert " RUNNING · 10 rows · " in status and " rows/s · " in status  # minute 0: 3 windows × 2 items; minute 1: 2 closed
    assert "state: WindowAggregate (stateStoreSave): " in status and "bounded, est. distinct(item) per window × (11 s + 1 s batch) / 10 s open windows × " in status
    job = view.job
    mark = sh.mark()
    prompts = sh.shell.prompts
    sh.send("q")
    sh.wait_until(lambda: sh.shell.prompts > prompts, what="the prompt after q")
    assert "[INFO] Query stopped: " in sh.text()[mark:]
    assert job.status.value == "CANCELED"
    assert sh.thread.is_alive()


def test_changelog_mode_prints_updates_and_ctrl_c_stops(spark_engine, shell_of, data):
    write_events(data, "a.json", 0, 6)
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=True))
    sh.run("SET 'sql-client.execution.result-mode' = 'changelog';")
    sh.run("SET 'sql-client.state-warnings' = 'ignore';")
    mark = sh.mark()
    sh.send("SELECT item, COUNT(*) AS c FROM bids GROUP BY item;" + ENTER)
    out = sh.wait_for("| +I | pear ", since=mark, timeout=120)
    assert "GroupAggregate: UNBOUNDED" in out and "[y/N]" not in out  # 'ignore': printed, not asked
    assert "| op | item  | c                    |" in out
    assert "| +I | apple |                    3 |" in out
    write_events(data, "b.json", 10, 14, items=("pear",))
    out = sh.wait_for("| +U | pear  |                    7 |", since=mark, timeout=120)
    assert out.index("| -U | pear  |                    3 |") < out.index("| +U | pear  |                    7 |")
    prompts = sh.shell.prompts
    sh.send(CTRL_C)
    sh.wait_until(lambda: sh.shell.prompts > prompts, what="the prompt after Ctrl-C")
    assert "Query stopped: received a total of 4 changes." in sh.text()[mark:]
    assert all(j.done for j in spark_engine.job_list())


def test_tableau_mode_prints_the_final_table_of_a_bounded_query(spark_engine, shell_of, data):
    write_events(data, "a.json", 0, 20)
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=False))
    sh.run("SET 'sql-client.execution.result-mode' = 'tableau';")
    out = sh.run(WINDOWED.format(t="bids"), timeout=180)
    # a bounded input ends: every window closes, the final table is printed, the prompt returns
    assert "| item   | window_start            | window_end              | c   | s   |" in out
    assert "| apple  | 2024-01-01 00:00:10.000 | 2024-01-01 00:00:20.000 | 5   | 70  |" in out
    assert "4 rows in set" in out


def test_insert_runs_as_a_job_listed_described_and_stopped(spark_engine, shell_of, data, tmp_path):
    write_events(data, "a.json", 0, 30)
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=True))
    sh.run(f"CREATE TABLE counts (item STRING, window_start TIMESTAMP_LTZ(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'out'}', 'format' = 'json');")
    insert = "INSERT INTO counts SELECT item, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY item, window_start, window_end;"
    out = sh.run(insert, timeout=120)
    assert "WindowAggregate: BOUNDED" in out and "[y/N]" not in out
    jobs = spark_engine.job_list()
    assert len(jobs) == 1 and f"[INFO] Job {jobs[0].id} submitted (INSERT" in out
    job = jobs[0]
    out = sh.run("SHOW JOBS;")
    assert f"| {job.id} | {job.name}" in out and "| insert | RUNNING " in out
    sh.wait_until(
        lambda: any(s.operators and s.watermark == "2024-01-01T00:00:28.000Z" for s in job.latest.values()), timeout=120, what="progress with state"
    )
    out = sh.run(f"DESCRIBE JOB '{job.id[:6]}';")  # a unique prefix is enough
    assert f"Job {job.id} ({job.name})" in out and "status:   RUNNING" in out and "INSERT INTO counts" in out
    assert "latest progress:" in out and "watermark 2024-01-01T00:00:28.000Z" in out
    assert "WindowAggregate (stateStoreSave): " in out and "bounded, est." in out
    out = sh.run(f"STOP JOB '{job.id}';", timeout=120)
    assert f"[INFO] Job {job.id} stopped; its checkpoint is kept" in out
    assert job.status.value == "CANCELED" and job.checkpoint.exists()
    out = sh.run(f"SHOW STATE '{job.id}';", timeout=120)  # the open windows' accumulators, read back
    assert f"Job {job.id} ({job.name}): checkpoint" in out and re.search(r"stateStoreSave\s*\|\s*default\s*\|\s*\d+\s*\|\s*\d+\s*\|\s*[1-9]", out), out
    written = "".join(p.read_text() for p in (tmp_path / "out").rglob("*.json"))
    assert '"item":"apple"' in written
    # the same INSERT again resumes from the same checkpoint
    sh.run(insert, timeout=120)
    again = [j for j in spark_engine.job_list() if j is not job]
    assert len(again) == 1 and again[0].checkpoint == job.checkpoint
    sh.run(f"STOP JOB '{again[0].id}';", timeout=120)


def test_a_query_that_retracts_runs_and_its_job_says_which_operators_are_changelog_operators(spark_engine, shell_of, data, tmp_path):
    """How many items have each number of bids: a GROUP BY over a GROUP BY (the outer one's input
    updates), refused before changelog operators. Its result in the shell, and the job of the same
    query into a print sink: SHOW JOBS counts its changelog operators, DESCRIBE JOB names them."""
    write_events(data, "a.json", 0, 30, items=("apple", "pear", "fig"))
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=False))
    sh.run("SET 'sql-client.execution.result-mode' = 'tableau';")
    sh.run("SET 'sql-client.state-warnings' = 'ignore';")  # its keys grow without bound: do not ask
    # the Python operators, whose stored bytes (not RocksDB's memory) the job reports
    sh.run("SET 'sqlengine.changelog.jvm' = 'false';")
    query = "SELECT c, COUNT(*) AS items FROM (SELECT item, COUNT(*) AS c FROM bids GROUP BY item) GROUP BY c"
    out = sh.run(query + ";", timeout=180)
    assert re.search(r"\|\s*(\+I\s*\|\s*)?10\s*\|\s*3\s*\|", out), out  # 10 bids of each of the 3 items
    sh.run("CREATE TABLE shown (c BIGINT, items BIGINT) WITH ('connector' = 'print');")
    sh.run(f"INSERT INTO shown {query};", timeout=120)
    (job,) = [j for j in spark_engine.job_list() if j.kind == "insert"]
    sh.wait_until(lambda: job.done, timeout=180, what="the bounded job's end")
    assert job.status.value == "FINISHED", job.error
    out = sh.run("SHOW JOBS;")  # a notice of the job's end ("[INFO] Job ... finished.") may come first
    (row,) = [ln for ln in out.splitlines() if ln.lstrip("| ").startswith(job.id)]
    assert "changelog" in row, out
    out = sh.run(f"DESCRIBE JOB '{job.id}';")
    section = out.split("  operators:", 1)[1].split("  latest progress:", 1)[0]
    runs = [ln.strip() for ln in section.splitlines() if ln.startswith("    GroupAggregate")]
    assert len(runs) == 2 and any("changelog operator (" in ln for ln in runs), out
    # the keys each keeps, not Spark's buckets: one count (10 bids each), three items
    measured = [ln.strip() for ln in out.split("state per operator", 1)[1].splitlines() if "rows = keys" in ln]
    assert [ln.split("): ", 1)[1].split(" rows")[0] for ln in measured] == ["1", "3"], out
    # and the bytes of the state each stores (not RocksDB's memory, 2 MB whatever it holds)
    stored = [int(re.search(r"rows, (\d+) B", ln).group(1)) for ln in measured]  # type: ignore[union-attr]
    assert 0 < stored[0] < stored[1] < 1000, out


def test_leaving_with_jobs_running_asks_then_stops_them(spark_engine, shell_of, data, tmp_path):
    write_events(data, "a.json", 0, 10)
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=True))
    sh.run(f"CREATE TABLE copy (item STRING, price BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'copy'}', 'format' = 'json');")
    sh.run("INSERT INTO copy SELECT item, price FROM bids;", timeout=120)
    (job,) = spark_engine.job_list()
    mark = sh.mark()
    sh.send(CTRL_D)
    assert f"1 job is still running ({job.id}). Stop it and quit?" in sh.wait_for("[y/N]", since=mark)
    sh.send("n" + ENTER)
    sh.wait_for("Not quitting; the jobs keep running.", since=mark)
    assert not job.done and sh.thread.is_alive()
    mark = sh.mark()
    sh.send("QUIT;" + ENTER)
    sh.wait_for("[y/N]", since=mark)
    sh.send("y" + ENTER)
    assert sh.join(120) == 0
    assert job.status.value == "CANCELED"
    assert "Stopping 1 job (checkpoints are kept" in sh.text()[mark:]
    assert (job.checkpoint / "q0" / "offsets").exists()


def test_spark_failures_are_one_line_and_the_session_goes_on(spark_engine, shell_of, data, tmp_path):
    (data / "bad.json").write_text('{"ts": "2024-01-01 00:00:01.000", "item": "apple", "price": 1}\nthis is not json\n')
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", data, unbounded=False))
    sh.run("SET 'sql-client.execution.result-mode' = 'tableau';")
    out = sh.run("SELECT item, price FROM bids;", timeout=180)
    assert "[ERROR] The query failed: a malformed input record" in out
    assert "Traceback" not in sh.text() and "\tat org.apache" not in sh.text() and "at org.apache.spark" not in sh.text()
    # a background job that fails is announced at the next prompt
    sh.run(f"CREATE TABLE copy (item STRING, price BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'copy'}', 'format' = 'json');")
    sh.run("INSERT INTO copy SELECT item, price FROM bids;", timeout=120)
    (job,) = [j for j in spark_engine.job_list() if j.kind == "insert"]
    job.wait(120)
    assert job.status.value == "FAILED"
    out = sh.run("SHOW JOBS;")
    line = next(ln for ln in sh.text().splitlines() if ln.startswith(f"[ERROR] Job {job.id} failed: "))
    # Spark reports the file sink's failure as the unreadable file (the parse error is its cause)
    assert "bad.json" in line or "malformed" in line.lower()
    assert "| FAILED " in out
    assert "Traceback" not in sh.text() and "at org.apache.spark" not in sh.text()
    assert sh.thread.is_alive()


def test_a_file_run_without_a_terminal_prints_tableau_and_exits_1_when_a_job_fails(spark_engine, data, tmp_path):
    """``sqlengine -f``'s path: no prompt, results as tableau, the exit status tells SQL errors (2)
    from failed jobs (1)."""
    import io

    from prompt_toolkit.output.plain_text import PlainTextOutput

    from repl.shell import Shell
    from repl.terminal import Terminal

    write_events(data, "a.json", 0, 20)
    out, err = io.StringIO(), io.StringIO()
    shell = Shell(spark_engine, Terminal(interactive=False, output=PlainTextOutput(out), err_output=PlainTextOutput(err)), start_spark=False)
    good = tmp_path / "good.sql"
    good.write_text(table_ddl("bids", data, unbounded=False) + "\nSET 'sql-client.execution.result-mode' = 'table';\n" + WINDOWED.format(t="bids") + "\n")
    assert shell.run_file(str(good)) == 0
    assert "| apple  | 2024-01-01 00:00:10.000 | 2024-01-01 00:00:20.000 | 5   | 70  |" in out.getvalue()  # tableau, not a view
    (data / "zz-bad.json").write_text("not json\n")
    bad = tmp_path / "bad.sql"
    bad.write_text("SELECT item, price FROM bids;\n")
    assert shell.run_file(str(bad)) == 1
    assert "[ERROR] The query failed: a malformed input record" in err.getvalue()
    assert shell.run_file(str(tmp_path / "missing.sql")) == 2
