"""kill -9 in the middle of a stream, then `sqlengine run` on the same file again: the filesystem
sink ends with every row exactly once (tests/integration/kill.py has the input, the SQL and the
killing; bench/kill_recovery.py is the long version, with Kafka).

A TUMBLE window aggregation and a keep-first deduplication read 20 files, one a micro-batch, in
one statement set run by the real CLI. Three times the CLI's process group is killed with
SIGKILL a random 0-2 s after both queries have finished a micro-batch in that run; the fourth run
goes to the end. The committed files must hold exactly the rows computed from the input.
"""

from __future__ import annotations

import random

import pytest

from tests.integration import kill

pytestmark = [pytest.mark.spark, pytest.mark.slow]

KILLS = 3


@pytest.fixture(scope="module")
def java() -> None:
    from sqlengine.java import JavaMissing, check_java

    try:
        check_java()
    except JavaMissing as err:  # fail, never skip: a skipped suite would pass CI unseen
        pytest.fail(f"{err} (or deselect the Spark tests: -m 'not spark')", pytrace=False)


def test_killed_three_times_the_filesystem_sink_has_every_row_once(tmp_path, java) -> None:
    seed = random.randrange(1 << 30)  # kills at new moments each time; the seed reproduces the input
    chunks = kill.make_orders(seed, orders=500, chunks=20)
    kill.write_files(tmp_path / "orders", chunks)
    home = tmp_path / "home"
    home.mkdir()
    sql = home / "job.sql"
    sql.write_text(kill.script(kill.FS_CASES, sinks=home / "sinks", source_dir=tmp_path / "orders"))
    log = home / "runs.log"

    killed = kill.run_killed(home, sql, KILLS, random.Random(seed), max_delay=2.0, queries=2, log=log)

    where = f"seed {seed}, kills {killed.kills}, log {log}"
    assert len(killed.kills) == KILLS, f"the job ended before it was killed {KILLS} times: {where}"
    assert any(k.in_flight for k in killed.kills), f"no kill landed in a micro-batch: {where}"
    assert killed.final is not None and "finished" in killed.final.stderr, killed.final
    for case in kill.FS_CASES:
        got, _uncommitted = kill.read_sink(home / "sinks" / case.name)
        want = kill.expected(case.query, chunks)
        lost, duplicated = kill.compare(want, got)
        assert (lost, duplicated) == (0, 0), f"{case.name}: {lost} rows lost, {duplicated} duplicated of {sum(want.values())}; {where}"
