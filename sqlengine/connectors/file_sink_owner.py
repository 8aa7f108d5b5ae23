"""Which job writes a filesystem sink's directory.

Spark's streaming file sink keeps one commit log per directory (``_spark_metadata``). It skips a
micro-batch whose id the log already has, and once the log exists, readers list only the files it
names. So, unlike Flink's sink, which has no such log:
- a second streaming job into the directory would silently write nothing for its first batches;
- a batch INSERT into it would write files that no reader sees;
- a streaming job into a directory of earlier files would hide them from every reader.
Each is refused before the job starts. A directory remembers the checkpoint of the streaming query
that writes it in ``_sqlengine_writer`` (hidden from readers, as the log is).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlengine.storage import Location, canonical, is_uri, local_path

LOG = "_spark_metadata"
OWNER = "_sqlengine_writer"


class SinkDirectoryTaken(Exception):
    """A filesystem sink's directory cannot take this job's rows without losing some."""


@dataclass(frozen=True)
class SinkDir:
    """One filesystem sink of a job: its directory and the checkpoint of the query writing it."""

    directory: Path
    checkpoint: Location


def claim_for_streaming(sink: SinkDir, *, from_savepoint: bool) -> None:
    """Check that a streaming query may write ``sink.directory`` and record it as its writer.
    A job resumed from a savepoint may find the sink ahead of it: that is told as a note
    (``savepoints.file_sink_ahead``), not refused."""
    directory, me = sink.directory, canonical(sink.checkpoint)
    written = batch_ids(directory / LOG)
    owner = _owner(directory)
    if written:
        if owner is not None and owner != me:
            raise SinkDirectoryTaken(
                f"the directory {directory} is written by another streaming job (checkpoint {owner}): "
                f"Spark's file sink keeps one commit log per directory ({LOG}) and would skip this job's "
                f"batches 0 to {max(written)}; write to another directory"
            )
        planned = max(batch_ids(sink.checkpoint / "offsets"), default=-1)
        if max(written) > planned and not from_savepoint:
            who = "an earlier run of this job whose checkpoint was removed" if owner == me else "another streaming job"
            raise SinkDirectoryTaken(
                f"the directory {directory} holds batches 0 to {max(written)} of {who} ({LOG}): Spark's file "
                f"sink would skip this job's batches {planned + 1} to {max(written)}; write to another directory"
            )
    else:
        earlier = _visible_files(directory)
        if earlier:
            raise SinkDirectoryTaken(
                f"the directory {directory} already holds {earlier} file{'s' if earlier > 1 else ''} not written "
                f"by a streaming job: Spark's file sink starts a commit log ({LOG}) there, and from then on "
                "readers see only the files it lists, so those would vanish from every read; write to an "
                "empty or new directory"
            )
    directory.mkdir(parents=True, exist_ok=True)
    if owner != me:
        (directory / OWNER).write_text(json.dumps({"checkpoint": me}) + "\n")


def check_for_batch(directory: Path, *, overwrite: bool) -> None:
    """A batch INSERT INTO a streaming job's directory would write files its readers never list
    (they follow the commit log); INSERT OVERWRITE replaces the directory, log and all."""
    if overwrite:
        return
    written = batch_ids(directory / LOG)
    if written:
        owner = _owner(directory)
        by = f" (checkpoint {owner})" if owner else ""
        raise SinkDirectoryTaken(
            f"the directory {directory} is the output of a streaming job{by}: readers list only the files "
            f"of its commit log ({LOG}), so the rows of a batch INSERT would not be seen; write to another "
            "directory, or INSERT OVERWRITE it"
        )


def same_directory(sinks: list[tuple[str, Path]]) -> str | None:
    """Two sinks of one job writing one directory (their table names), or None."""
    seen: dict[Path, str] = {}
    for table, directory in sinks:
        if directory in seen:
            return (
                f"`{seen[directory]}` and `{table}` both write the directory {directory}: Spark's file sink "
                f"keeps one commit log per directory ({LOG}), so one query's batches would be skipped; give "
                "each sink its own directory"
            )
        seen[directory] = table
    return None


def local_directory(path: str) -> Path | None:
    """The local directory a sink's path names; None for another file system (not checked)."""
    return None if is_uri(path) else local_path(path)


def _owner(directory: Path) -> str | None:
    try:
        data = json.loads((directory / OWNER).read_text())
    except (OSError, ValueError):
        return None
    value = data.get("checkpoint") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def batch_ids(log: Location) -> list[int]:
    """The batch ids of a Spark log directory (``3``, ``9.compact``)."""
    if not log.is_dir():
        return []
    return [int(head) for e in log.iterdir() if (head := e.name.split(".", 1)[0]).isdigit()]


def _visible_files(directory: Path) -> int:
    """The files a reader of the directory would read (names starting with ``_`` or ``.`` are hidden)."""
    if not directory.is_dir():
        return 0
    count = 0
    for path in directory.rglob("*"):
        rel = path.relative_to(directory).parts
        if path.is_file() and not any(p.startswith(("_", ".")) for p in rel):
            count += 1
    return count
