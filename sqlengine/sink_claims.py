"""Filesystem sinks on a local path and the directories they write: a streaming query claims its
directory as its writer (``connectors.file_sink_owner``), two sinks of one job may not share one,
and a job resumed from a savepoint is warned of the sinks that have written past it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from planner.logical.operators import Node, Sink
from planner.problems import PlanningError
from sqlengine import savepoints
from sqlengine.connectors import file_sink_owner as owner
from sqlengine.storage import Location


def local_file_sinks(plans: Sequence[Node]) -> list[tuple[int, Sink, Path]]:
    """The job's filesystem sinks on a local path: each query's index, its plan, its directory."""
    return [
        (i, p, d)
        for i, p in enumerate(plans)
        if isinstance(p, Sink) and p.table.connector == "filesystem"
        and (d := owner.local_directory(p.table.options.get("path") or "")) is not None
    ]


def file_sinks_ahead(plans: Sequence[Node], savepoint: Location) -> list[str]:
    """Warnings for the file sinks that have gone past the savepoint (``savepoints.file_sink_ahead``)."""
    notes = (savepoints.file_sink_ahead(savepoint / f"q{i}", d) for i, _, d in local_file_sinks(plans))
    return [n for n in notes if n]


def claim_file_sinks(plans: Sequence[Node], checkpoint: Location, streaming: bool, from_savepoint: bool) -> None:
    """Refuse a filesystem sink whose directory would lose rows to Spark's commit log, and record
    a streaming query as its directory's writer (``connectors.file_sink_owner``)."""
    sinks = local_file_sinks(plans)
    clash = owner.same_directory([(p.table.name, d) for _, p, d in sinks])
    if clash:
        raise PlanningError(clash, sinks[-1][1].origin)
    for i, plan, directory in sinks:
        try:
            if streaming:
                owner.claim_for_streaming(owner.SinkDir(directory, checkpoint / f"q{i}"), from_savepoint=from_savepoint)
            else:
                owner.check_for_batch(directory, overwrite=plan.overwrite)
        except owner.SinkDirectoryTaken as err:
            raise PlanningError(str(err), plan.origin) from None
