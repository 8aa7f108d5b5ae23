"""`sqlengine run` as a user runs it: `python -m repl.cli --home H run FILE.sql` in a subprocess,
on real files, with its own Spark. Results are read from stdout, messages from stderr, and the
exit status is checked.

Each Spark-backed run starts a JVM (~10 s or more), so the independent scenarios start together
in one module fixture and the tests check their outcomes: an INSERT + SELECT file run twice
(--format json, then --format csv resuming), the same file with --bounded, and a long INSERT
interrupted with SIGINT and run again. The failures that need no Spark (bad SQL, unknown names,
no Java) run on their own.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import datetime as dt
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.sink_log import committed_lines
from tests.sqlengine.helpers import in_read_order

REPO = Path(__file__).resolve().parents[2]
BASE = dt.datetime(2024, 1, 1)
WAIT = 600  # seconds a run may take before the test gives up (not an assertion on speed)


def cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "repl.cli", "--home", str(home), *args]


def run(home: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cli(home, *args), cwd=REPO, env=env or os.environ.copy(), capture_output=True, text=True, timeout=WAIT)


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"


def stamp(seconds: float) -> str:
    return (BASE + dt.timedelta(seconds=seconds)).isoformat(sep=" ", timespec="milliseconds")


# -- the input and the expected result ------------------------------------------------------------

USERS = ["ann", "bob", "cy"]


def clicks() -> list[dict]:
    """60 clicks over 60 s, out of order by up to 2 s (the watermark allows 5)."""
    rows = []
    for i in range(60):
        t = i + (1.5 if i % 4 == 1 else 0) - (1.0 if i % 5 == 2 else 0)
        rows.append({"ts": stamp(t), "usr": USERS[i % 3] if i % 11 else None, "page": f"/p{i % 4}"})
    return rows


def expected_counts() -> Counter:
    """(usr, window_start, window_end, clicks) of a 10-second TUMBLE, as the json output prints it."""
    out: Counter = Counter()
    for row in clicks():
        t = dt.datetime.fromisoformat(row["ts"])
        start = t.replace(second=t.second - t.second % 10, microsecond=0)
        out[(row["usr"], start.isoformat(sep=" ", timespec="milliseconds"))] += 1
    return Counter(
        {
            (usr, start, (dt.datetime.fromisoformat(start) + dt.timedelta(seconds=10)).isoformat(sep=" ", timespec="milliseconds"), n): 1
            for (usr, start), n in out.items()
        }
    )


def write_clicks(directory: Path, files: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    rows = clicks()
    size = -(-len(rows) // files)
    for n in range(files):
        part = rows[n * size : (n + 1) * size]
        path = directory / f"part-{n:03d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in part))
        in_read_order(path, n)


def script(source: Path, sink: Path, files_per_batch: int | None = None) -> str:
    per_batch = f", 'source.max-files-per-trigger' = '{files_per_batch}'" if files_per_batch else ""
    return f"""-- clicks per user and 10 seconds, written to files, then read back
CREATE TABLE clicks (
    ts TIMESTAMP(3), usr STRING, page STRING,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{source}', 'format' = 'json'{per_batch});

CREATE TABLE per_user (usr STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), clicks BIGINT)
WITH ('connector' = 'filesystem', 'path' = '{sink}', 'format' = 'json');

INSERT INTO per_user
SELECT usr, window_start, window_end, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY usr, window_start, window_end;

SELECT usr, window_start, window_end, clicks FROM per_user;
"""


def json_rows(stdout: str) -> Counter:
    rows = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return Counter((r["usr"], r["window_start"], r["window_end"], r["clicks"]) for r in rows)


def sink_files(sink: Path) -> set[str]:
    return {p.name for p in sink.glob("part-*")}


def committed_rows(sink: Path) -> Counter:
    """The (usr, n) rows of the files Spark's file sink committed: a file written by an
    interrupted batch and never committed does not count."""
    return Counter((r.get("usr"), r["n"]) for r in committed_lines(sink))


# -- the Spark-backed scenarios, started together --------------------------------------------------


@dataclass
class Scenarios:
    root: Path
    first: subprocess.CompletedProcess  # --format json
    files_after_first: set[str]
    second: subprocess.CompletedProcess  # the same file again, --format csv
    files_after_second: set[str]
    bounded: subprocess.CompletedProcess  # --bounded, its own home
    interrupted: subprocess.CompletedProcess  # SIGINT while the INSERT runs
    batches_before_interrupt: int
    committed_after_interrupt: Counter
    resumed: subprocess.CompletedProcess  # the same file again
    long_sink: Path
    changelog: subprocess.CompletedProcess  # a query that retracts, --changelog --format json


def _json_then_csv(root: Path) -> tuple:
    home, source, sink = root / "home", root / "clicks", root / "per_user"
    write_clicks(source, 3)
    sql = root / "job.sql"
    sql.write_text(script(source, sink, files_per_batch=1))
    first = run(home, "run", str(sql), "--format", "json")
    files = sink_files(sink)
    second = run(home, "run", str(sql), "--format", "csv")
    return first, files, second, sink_files(sink)


def _bounded(root: Path) -> subprocess.CompletedProcess:
    home, source, sink = root / "bounded-home", root / "bounded-clicks", root / "bounded-per_user"
    write_clicks(source, 3)
    sql = root / "bounded.sql"
    sql.write_text(script(source, sink))
    return run(home, "run", str(sql), "--bounded", "--format", "json")


COUNT_OF_COUNTS = "SELECT n, COUNT(*) AS users FROM (SELECT usr, COUNT(*) AS n FROM clicks GROUP BY usr) GROUP BY n"


def _changelog(root: Path) -> subprocess.CompletedProcess:
    """How many users have each number of clicks, over 3 files read one per micro-batch: its
    counts change from batch to batch, so the outer aggregation's changelog retracts."""
    home, source = root / "changelog-home", root / "changelog-clicks"
    write_clicks(source, 3)
    sql = root / "changelog.sql"
    ddl = script(source, root / "unused", files_per_batch=1).split("CREATE TABLE per_user")[0]
    sql.write_text(f"{ddl}\n{COUNT_OF_COUNTS};\n")
    return run(home, "run", str(sql), "--changelog", "--format", "json")


LONG_FILES = 40


def long_script(source: Path, sink: Path) -> str:
    return f"""CREATE TABLE events (n INT, usr STRING) WITH ('connector' = 'filesystem', 'path' = '{source}',
    'format' = 'json', 'source.max-files-per-trigger' = '1');
CREATE TABLE copied (n INT, usr STRING) WITH ('connector' = 'filesystem', 'path' = '{sink}', 'format' = 'json');
INSERT INTO copied SELECT n, UPPER(usr) AS usr FROM events;
"""


def _interrupt_and_resume(root: Path) -> tuple:
    """A 40-file INSERT read one file per micro-batch; SIGINT once its progress log shows
    batches; then the same file again."""
    home, source, sink = root / "long-home", root / "events", root / "copied"
    source.mkdir(parents=True)
    for n in range(LONG_FILES):
        path = source / f"part-{n:03d}.json"
        path.write_text("".join(json.dumps({"n": n * 10 + i, "usr": USERS[i % 3]}) + "\n" for i in range(10)))
        in_read_order(path, n)
    sql = root / "long.sql"
    sql.write_text(long_script(source, sink))
    proc = subprocess.Popen(
        cli(home, "run", str(sql)),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # Ctrl-C signals the whole process group, the JVM included
    )
    batches = 0
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and proc.poll() is None:
        logs = list((home / "jobs").glob("*/progress.jsonl")) if (home / "jobs").exists() else []
        batches = sum(1 for log in logs for snap in _snapshots(log) if snap["input_rows"] > 0)
        if batches >= 3:
            break
        time.sleep(0.2)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=WAIT)
    interrupted = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    committed = committed_rows(sink)
    resumed = run(home, "run", str(sql))
    return interrupted, batches, committed, resumed, sink


def _snapshots(log: Path) -> list[dict]:
    out = []
    for line in log.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line being written
            pass
    return out


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> Scenarios:
    from sqlengine.java import JavaMissing, check_java

    try:
        check_java()
    except JavaMissing as err:  # fail, never skip: a skipped suite would pass CI unseen
        pytest.fail(f"{err} (or deselect the Spark tests: -m 'not spark')", pytrace=False)
    root = tmp_path_factory.mktemp("cli-run")
    with cf.ThreadPoolExecutor(3) as pool:
        a = pool.submit(_json_then_csv, root)
        b = pool.submit(lambda: (_bounded(root), _changelog(root)))
        c = pool.submit(_interrupt_and_resume, root)
        first, files1, second, files2 = a.result()
        interrupted, batches, committed, resumed, long_sink = c.result()
        bounded, changelog = b.result()
        return Scenarios(root, first, files1, second, files2, bounded, interrupted, batches, committed, resumed, long_sink, changelog)


# -- INSERT + SELECT, json then csv, resume --------------------------------------------------------


@pytest.mark.spark
def test_insert_then_select_prints_the_rows_as_json(scenarios: Scenarios) -> None:
    proc = scenarios.first
    assert proc.returncode == 0, describe(proc)
    assert json_rows(proc.stdout) == expected_counts(), describe(proc)
    assert "[INFO]" not in proc.stdout and "[INFO] Job" in proc.stderr  # results on stdout, the rest on stderr
    assert scenarios.files_after_first  # the INSERT wrote files


@pytest.mark.spark
def test_running_the_file_again_resumes_writes_nothing_and_prints_csv(scenarios: Scenarios) -> None:
    proc = scenarios.second
    assert proc.returncode == 0, describe(proc)
    assert "nothing new to do" in proc.stderr, describe(proc)
    assert scenarios.files_after_second == scenarios.files_after_first  # no new sink file
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    assert rows[0] == ["usr", "window_start", "window_end", "clicks"]
    got = Counter((r[0] or None, r[1], r[2], int(r[3])) for r in rows[1:])
    assert got == expected_counts(), describe(proc)  # every row once: no duplicates in the sink


@pytest.mark.spark
def test_bounded_runs_batch_mode_with_the_same_result(scenarios: Scenarios) -> None:
    proc = scenarios.bounded
    assert proc.returncode == 0, describe(proc)
    assert json_rows(proc.stdout) == json_rows(scenarios.first.stdout) == expected_counts(), describe(proc)
    # batch mode ran no streaming query: no micro-batch progress, where the streaming run has some
    streamed = [s for log in (scenarios.root / "home" / "jobs").glob("*/progress.jsonl") for s in _snapshots(log)]
    batched = [s for log in (scenarios.root / "bounded-home" / "jobs").glob("*/progress.jsonl") for s in _snapshots(log)]
    assert streamed and not batched


@pytest.mark.spark
def test_changelog_prints_every_change_with_its_kind_and_they_end_in_the_final_table(scenarios: Scenarios) -> None:
    proc = scenarios.changelog
    assert proc.returncode == 0, describe(proc)
    changes = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    table: Counter = Counter()
    for c in changes:
        row = (c["n"], c["users"])
        if c["op"] in ("+I", "+U"):
            table[row] += 1
        else:
            assert table[row] > 0, f"{c} takes back a row not in the table: {describe(proc)}"
            table[row] -= 1
    per_user = Counter(r["usr"] for r in clicks())
    assert +table == Counter(Counter(per_user.values()).items()), describe(proc)
    # the counts grew over three micro-batches: earlier rows were taken back
    assert any(c["op"] in ("-U", "-D") for c in changes), describe(proc)


# -- Ctrl-C and resume ---------------------------------------------------------------------------------


@pytest.mark.spark
def test_sigint_stops_the_job_cleanly_with_exit_130(scenarios: Scenarios) -> None:
    proc = scenarios.interrupted
    assert scenarios.batches_before_interrupt >= 3, describe(proc)  # it was running
    assert proc.returncode == 130, describe(proc)
    assert "Interrupted" in proc.stderr and "re-run to resume" in proc.stderr, describe(proc)
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr, describe(proc)
    assert 0 < sum(scenarios.committed_after_interrupt.values()) < LONG_FILES * 10  # stopped part way


@pytest.mark.spark
def test_running_again_after_sigint_completes_the_output_exactly_once(scenarios: Scenarios) -> None:
    proc = scenarios.resumed
    assert proc.returncode == 0, describe(proc)
    expected = Counter((USERS[i % 3].upper(), n * 10 + i) for n in range(LONG_FILES) for i in range(10))
    assert committed_rows(scenarios.long_sink) == expected


# -- failures before anything runs (no Spark) ---------------------------------------------------------


def test_a_syntax_error_exits_2_with_a_caret_and_runs_nothing(tmp_path) -> None:
    home = tmp_path / "home"
    sql = tmp_path / "bad.sql"
    sql.write_text(
        "CREATE TABLE clicks (ts TIMESTAMP(3), usr STRING)\n"
        f"  WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'json');\n"
        "SELECT usr, FROM clicks;\n"
    )
    proc = run(home, "run", str(sql))
    assert proc.returncode == 2, describe(proc)
    assert f"{sql}:3:11: error:" in proc.stderr, describe(proc)
    lines = proc.stderr.splitlines()
    caret = next(i for i, line in enumerate(lines) if line.strip().startswith("|") and "^" in line)
    assert "SELECT usr, FROM clicks;" in lines[caret - 1]
    assert lines[caret].index("^") == lines[caret - 1].index(",")  # under the comma
    assert "nothing was run" in proc.stderr
    assert proc.stdout == ""
    assert not (home / "jobs").exists()
    # not even the CREATE TABLE before the bad statement
    shown = run(home, "run", str(_write(tmp_path / "show.sql", "SHOW TABLES;\n")))
    assert shown.returncode == 0, describe(shown)
    assert "clicks" not in shown.stdout


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_an_unknown_table_says_did_you_mean(tmp_path) -> None:
    home = tmp_path / "home"
    sql = _write(
        tmp_path / "typo.sql",
        f"CREATE TABLE clicks (ts TIMESTAMP(3), usr STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'json');\n"
        "SELECT usr FROM clickz;\n",
    )
    proc = run(home, "run", str(sql))
    assert proc.returncode == 2, describe(proc)
    assert f"{sql}:2:17: error: Table or view `clickz` does not exist" in proc.stderr
    assert "did you mean `clicks`?" in proc.stderr
    assert not (home / "jobs").exists()


def test_a_checkpoint_root_that_names_no_directory_is_one_line_and_runs_nothing(tmp_path) -> None:
    home = tmp_path / "home"
    sql = _write(tmp_path / "q.sql", "SELECT 1;\n")
    proc = run(home, "run", "--checkpoint-root", "hdfs://", str(sql))
    assert proc.returncode == 2, describe(proc)
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("[ERROR] 'execution.checkpointing.dir' = 'hdfs://' is not a directory: write a path or a URI such as")
    assert proc.stdout == "" and not (home / "jobs").exists()


@pytest.mark.parametrize("java_home", [None, "/nonexistent/jdk"], ids=["no-java-on-path", "java-home-without-java"])
def test_missing_java_is_one_line_naming_what_to_install(tmp_path, java_home: str | None) -> None:
    sql = _write(tmp_path / "q.sql", "SELECT 1;\n")
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path / "empty-bin")  # no java here
    if java_home:
        env["JAVA_HOME"] = java_home
    proc = run(tmp_path / "home", "run", str(sql), env=env)
    assert proc.returncode == 1, describe(proc)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, describe(proc)
    assert "Java 17" in lines[0] and "JDK 17" in lines[0] and "openjdk-17" in lines[0]
    if java_home:
        assert f"JAVA_HOME={java_home} has no bin/java" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""
