"""How a bounded streaming job ends with the batch result: the end-of-input strategy.

Spark has no "end of input" for a streaming query: a window still open when the input is
consumed would never close. A bounded source whose plan waits on the watermark therefore reads
a second, private file source beside its data (``translate.scan``): one marker row with a
timestamp at the end of time, which moves the watermark past every window and bound once it is
read, so Spark emits everything still held, as Flink does when a bounded source ends.

When the markers are written depends on what the sources report (``SourceInfo.one_batch``): if
every source delivers all of its input in the first micro-batch, the markers ride along with it
(one phase); otherwise the job first consumes the input, then writes the markers and runs again
(two phases), so no marker overtakes data still to come.

The run that reads a marker plans without Spark's predicate push-down: it would move user
filters below the watermark, and the marker row (all NULL but its time) would be filtered out
before the watermark saw it. That setting goes on the job's own Spark session only
(``session_conf``), never the shared one, so no other query loses push-down meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlengine import storage
from sqlengine.storage import Location
from sqlengine.translate.core import SourceInfo

EOS_TIME = "9999-12-31T23:59:59.000Z"
EXCLUDED_RULES = "spark.sql.optimizer.excludedRules"
# the optimizer rules that push filters down (the marker run goes without them); their place
# changes no operator's state schema, so a checkpoint made with them resumes without them
NO_PUSHDOWN = ",".join(
    "org.apache.spark.sql.catalyst.optimizer." + r
    for r in ("PushDownPredicates", "PushPredicateThroughNonJoin", "PushPredicateThroughJoin", "InferFiltersFromConstraints")
)


@dataclass(frozen=True)
class Marker:
    """The end-of-input marker of one source: a JSON file with one row in its private directory."""

    directory: Location
    time_column: str
    flag_column: str

    @property
    def path(self) -> Location:
        return self.directory / "end-of-input.json"

    @property
    def written(self) -> bool:
        return self.path.exists()

    def write(self) -> bool:
        """Write the marker (atomically: the file source never sees half a file); False if it
        was already there."""
        if self.written:
            return False
        tmp = self.directory / ".end-of-input.json.tmp"
        tmp.write_text(json.dumps({self.time_column: EOS_TIME, self.flag_column: True}) + "\n")
        storage.replace(tmp, self.path)
        return True


@dataclass(frozen=True)
class EndOfInput:
    markers: tuple[Marker, ...]
    one_phase: bool  # every source delivers its whole input in the first micro-batch

    @classmethod
    def of(cls, sources: Iterable[SourceInfo]) -> EndOfInput:
        sources = list(sources)
        markers = tuple(
            Marker(s.marker_dir, s.time_column, s.marker_column)
            for s in sources
            if s.marker_dir is not None and s.time_column is not None and s.marker_column is not None
        )
        return cls(markers, one_phase=all(s.one_batch for s in sources))

    @property
    def needed(self) -> bool:
        return bool(self.markers)

    def write(self) -> bool:
        """Write every marker not yet written; whether any was. (Every one: ``any()`` over a
        generator would stop at the first, and a join's other side would never end.)"""
        wrote = [m.write() for m in self.markers]
        return any(wrote)

    def written(self) -> bool:
        return any(m.written for m in self.markers)

    def session_conf(self) -> dict[str, str | None]:
        """The job session's settings for the next run (None: unset)."""
        return {EXCLUDED_RULES: NO_PUSHDOWN if self.written() else None}
