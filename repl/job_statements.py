"""The job statements, for the shell and ``sqlengine run`` alike: SHOW JOBS, DESCRIBE JOB 'id',
STOP JOB 'id' [WITH SAVEPOINT] and SHOW STATE 'id'. Each answer is a list of lines, each either text (a table) or an
informational line; the caller decides where they go and how a stop is waited for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.dialect import nodes
from planner.statements.session import Outcome
from repl.client import ClientError, describe_job, find_job, job_ref, jobs_table, render_table, show_state

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from sqlengine.engine import Engine
    from sqlengine.jobs import Job


@dataclass(frozen=True)
class Line:
    text: str
    info: bool = False  # an [INFO] line, not a result


def answer(
    engine: Engine,
    outcome: Outcome,
    stop: Callable[[Job, bool], bool],
    analyses: dict[str, Analysis | None] | None = None,
) -> list[Line]:
    """What a job statement prints. ``stop(job, whole_batches)`` stops a job (``Job.stop``) and
    waits for it a while (False: the wait was given up, the job stops in the background). Raises ClientError for what cannot be done."""
    tree = outcome.tree
    jobs = engine.job_list()
    if isinstance(tree, nodes.ShowStatement) and tree.name.upper() == "STATE":
        return [Line(show_state(engine, job_ref(outcome)))]
    if isinstance(tree, nodes.ShowStatement):
        return [Line(jobs_table(jobs))]
    job = find_job(jobs, job_ref(outcome))
    if isinstance(tree, nodes.DescribeStatement):
        return [Line(describe_job(job, (analyses or {}).get(job.id)))]
    from sqlengine.checkpoint_root import NotLocal
    from sqlengine.savepoints import SavepointError, check_can_take

    with_savepoint = bool(tree.args.get("savepoint"))
    try:
        if with_savepoint:
            check_can_take(job)  # before it is stopped: a SELECT or a batch job has no savepoint
            # and a savepoint directory sqlengine cannot reach (a file system it has no jar for, a
            # NameNode that is down) is said first
            engine.savepoint_root().exists()
        if job.done:
            return [Line(f"Job {job.id} has already ended ({job.status.value}).", info=True)]
        if not stop(job, with_savepoint):
            return []
        if not with_savepoint:
            kept = "" if job.kind == "select" else "; its checkpoint is kept: running the same statement again resumes it"
            return [Line(f"Job {job.id} stopped{kept}.", info=True)]
        if not job.done:  # a checkpoint is copied only once nothing writes to it any more
            raise SavepointError(f"Job {job.id} is still stopping ({job.status.value}); no savepoint taken")
        path = engine.take_savepoint(job)
    except (SavepointError, NotLocal, OSError) as err:
        raise ClientError(str(err)) from None
    # as Flink's SQL client answers it: a one-column table holding the savepoint's path
    return [Line(f"Job {job.id} stopped with a savepoint.", info=True), Line(render_table(("savepoint path",), [(str(path),)]))]
