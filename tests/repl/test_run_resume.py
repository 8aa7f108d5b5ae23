"""`sqlengine run` resuming a checkpoint named by 'pipeline.name' (on the session's local Spark,
in-process: the Runner is what `run` drives): a changed statement whose stateful operators can take
the state over resumes it; a changed aggregate is refused before anything starts, exit status 2,
with the reason and how to start fresh. STOP JOB in a file does not crash `run`."""

from __future__ import annotations

import json

import pytest

from repl.run_cmd import EXIT_OK, EXIT_SQL, Runner

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROWS = [{"user_id": u, "amount": a} for u, a in [(1, 10), (2, 5), (1, 7), (3, 1)]]


def test_a_named_pipeline_resumes_a_compatible_change_and_refuses_a_changed_aggregate(tmp_path, spark, capsys):
    from sqlengine.engine import Engine

    data = tmp_path / "orders.json"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    engine = Engine(home=tmp_path / "home", spark=spark)
    runner = Runner(engine, "tableau")
    setup = f"""
    CREATE TABLE orders (user_id BIGINT, amount BIGINT) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    CREATE TABLE totals (user_id BIGINT, n BIGINT, total BIGINT) WITH ('connector' = 'blackhole');
    CREATE TABLE totals_wide (user_id BIGINT, n BIGINT, total BIGINT, big BOOLEAN) WITH ('connector' = 'blackhole');
    SET 'pipeline.name' = 'totals';
    -- a streaming run, whose checkpoint is resumed (run as one batch it would leave only FINISHED)
    SET 'sqlengine.bounded.batch' = 'false';
    INSERT INTO totals SELECT user_id, COUNT(*), SUM(amount) FROM orders GROUP BY user_id;
    """
    assert runner.run_script(setup, "setup.sql") == EXIT_OK
    (first,) = engine.job_list()
    assert first.status.value == "FINISHED" and (first.checkpoint / "sqlengine-plan.json").exists()
    capsys.readouterr()

    changed = "INSERT INTO totals SELECT user_id, COUNT(*),\n  MAX(amount) FROM orders GROUP BY user_id;"
    assert runner.run_script(changed, "changed.sql") == EXIT_SQL
    err = capsys.readouterr().err
    assert f"changed.sql:2:36: error: Cannot resume the checkpoint {first.checkpoint}: GroupAggregate #2 aggregate changed: SUM(amount) → MAX(amount)" in err, err
    assert f"hint: to start fresh, SET 'pipeline.name' to a new name, or remove {first.checkpoint}" in err
    assert len(engine.job_list()) == 1  # nothing started

    wider = "INSERT INTO totals_wide SELECT user_id, n, t, t > 10 FROM (SELECT user_id, COUNT(*) AS n, SUM(amount) AS t FROM orders GROUP BY user_id) WHERE user_id > 0;"
    assert runner.run_script(wider, "wider.sql") == EXIT_OK
    err = capsys.readouterr().err
    assert "already ran to the end of its input" in err, err  # the same checkpoint, resumed
    second = engine.job_list()[-1]
    assert second.checkpoint == first.checkpoint and second.already_complete

    # STOP JOB in a file: the job has ended; the answer says where its checkpoint is, and how to start from it
    assert runner.run_script("STOP JOB 'totals' WITH SAVEPOINT;", "stop.sql") == EXIT_SQL
    assert f"'totals' names 2 jobs ({first.id}, {second.id}); give the id" in capsys.readouterr().err
    assert runner.run_script(f"STOP JOB '{second.id}' WITH SAVEPOINT;", "stop.sql") == EXIT_SQL
    err = capsys.readouterr().err
    assert f"has already ended (FINISHED); no savepoint taken. Its checkpoint {first.checkpoint} is kept" in err, err
    assert runner.run_script("SHOW JOBS;", "show.sql") == EXIT_OK
