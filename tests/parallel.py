"""How many Spark jobs a module fixture runs at once. The README's test command runs the suite on
two pytest-xdist workers, each with its own Spark; a fixture then runs half as many jobs at once, so
the machine as a whole runs about as many as a one-process run does. More would not be faster on
two cores, and a busier machine starts Python workers more slowly: Spark gives the Python worker
that a changelog operator starts on the driver 10 s to connect back, then fails the job."""

from __future__ import annotations

import os


def at_once(jobs: int) -> int:
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    return max(1, -(-jobs // workers))
