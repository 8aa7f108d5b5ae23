"""A job's bounded text files are read in a whole number of splits per core (sqlengine.scan_splits):
a read larger than the cores take in one wave of Spark's largest split comes in equal waves."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.scan_splits import min_partitions
from tests.sqlengine.helpers import run_statement

MB = 1 << 20


@pytest.mark.parametrize(("largest", "cores", "want"), [
    (345 * MB, 2, 4),  # 128 + 128 + 89 MB otherwise: the third split would run alone
    (256 * MB, 2, None),  # two splits of 128 MB: one wave already
    (100 * MB, 2, None),  # Spark's own: its size over the cores
    (600 * MB, 2, 6),  # 5 splits of 128 MB otherwise
    (300 * MB, 1, 3),
    (129 * MB, 8, None),
    (1100 * MB, 8, 16),
])
def test_the_splits_asked_for_are_a_multiple_of_the_cores(largest, cores, want):
    assert min_partitions(largest, cores, 128 * MB) == want


ROWS = 100
LINE = "{:04d},aaaaaaaaaaaaaaaaaaaaaaaa\n"  # 30 bytes: 3,000 in all


def _job(tmp_path: Path, spark, name: str, files: int = 1, path: Path | None = None, **settings: str):
    """A batch job reading ``files`` files of ``ROWS`` rows (a name ending .gz: gzip) at ``path``
    (the file, or their directory); its job and how many tasks read its scan."""
    lines = [LINE.format(i) for i in range(ROWS * files)]
    for n in range(files):
        data = tmp_path / (name if files == 1 else f"{n}-{name}")
        text = "".join(lines[n * ROWS:(n + 1) * ROWS])
        if name.endswith(".gz"):
            data.write_bytes(gzip.compress(text.encode()))
        else:
            data.write_text(text)
    engine = Engine(home=tmp_path / "home", spark=spark)
    # Spark's largest split 1 KiB (no cost per file): 3,000 bytes on 2 cores would be 3 splits
    engine.planner.settings.update({"execution.runtime-mode": "batch", "spark.sql.files.maxPartitionBytes": "1024",
                                    "spark.sql.files.openCostInBytes": "0", **settings})
    (ddl,) = parse_script(f"CREATE TABLE t (k INT, pad STRING) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path or tmp_path / name}', 'format' = 'csv');").statements
    engine.plan(ddl)
    job = run_statement(engine, "SELECT k FROM t;")
    assert job.status.value == "FINISHED", job.error_detail
    assert sorted(r[0] for r in job.result.rows()) == list(range(ROWS * files))
    return job, job.pipelines[0].translated.df.rdd.getNumPartitions()


@pytest.mark.spark
def test_a_bounded_csv_read_comes_in_equal_waves_of_the_cores(tmp_path, spark):
    job, partitions = _job(tmp_path, spark, "t.csv")
    assert job.spark.conf.get("spark.sql.files.minPartitionNum") == "4"
    assert job.name == f"select-{job.id}"  # the setting's loop once overwrote the job's key
    assert partitions == 4  # of 750 bytes; 1024 + 1024 + 952 without, the third running alone


@pytest.mark.spark
def test_a_directory_of_one_file_is_sized_as_spark_lists_it(tmp_path, spark):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "_SUCCESS").write_text("")  # Spark lists no name starting with '_'
    job, partitions = _job(tmp_path / "in", spark, "t.csv", path=tmp_path / "in")
    assert job.spark.conf.get("spark.sql.files.minPartitionNum") == "4" and partitions == 4


@pytest.mark.spark
def test_a_jobs_own_minimum_several_files_and_a_compressed_file_keep_sparks_splits(tmp_path, spark):
    assert _job(tmp_path, spark, "t.csv", **{"spark.sql.files.minPartitionNum": "6"})[1] == 6
    for name, files in (("t.csv.gz", 1), ("t.csv", 2)):  # gzip: one task reads it whole; two: Spark packs them
        where = tmp_path / f"{files}-{name}.d"
        where.mkdir()
        job, _ = _job(where, spark, name, files=files, path=where)
        assert job.spark.conf.get("spark.sql.files.minPartitionNum", None) is None
