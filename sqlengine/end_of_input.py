"""How a bounded streaming job ends with the batch result: the end-of-input strategy.

Spark has no "end of input" for a streaming query: a window still open when the input is
consumed would never close. A bounded source whose plan waits on the watermark therefore reads
a second, private file source beside its data (``translate.scan``): one marker row with a
timestamp at the end of time, which moves the watermark past every window and bound once it is
read, so Spark emits everything still held, as Flink does when a bounded source ends.

When the markers are written depends on what the sources report (``SourceInfo.batches``). When
every source can say how many micro-batches its present input takes (one for a generator; for a
file source read a few files per batch, its files counted as Spark lists them), the markers are
written before the job starts, each behind as many empty files as the longest source has batches
but one, and the marker source reads one file per batch: the markers come with the last batch of
input, never before it, and the job runs once (one phase). Otherwise (a bounded Kafka read in
several batches) the job first consumes the input, then writes the markers and runs again (two
phases: a second start, and its planning, per job), so no marker overtakes data still to come.
A file that comes into a bounded read's directory while the job starts may thus be read after
the marker and dropped as late: a bounded read is of the files there when it starts.

The run that reads a marker plans without Spark's predicate push-down: it would move user
filters below the watermark, and the marker row (all NULL but its time) would be filtered out
before the watermark saw it. That setting goes on the job's own Spark session only
(``session_conf``), never the shared one, so no other query loses push-down meanwhile.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
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

    def write(self, behind: int = 0) -> bool:
        """Write the marker behind ``behind`` empty files that the marker source (one file per
        micro-batch, oldest first) reads before it; False if it was already there. (Atomically:
        the file source never sees half a file.)"""
        if self.written:
            return False
        # a second apart: the file source orders by modification time, and files written within
        # a millisecond would come in any order
        first = int(time.time()) - behind - 1
        for i in range(behind):
            empty = self.directory / f"empty-{i:05d}.json"
            empty.write_text("")
            storage.set_modified(empty, first + i)
        tmp = self.directory / ".end-of-input.json.tmp"
        tmp.write_text(json.dumps({self.time_column: EOS_TIME, self.flag_column: True}) + "\n")
        storage.replace(tmp, self.path)
        storage.set_modified(self.path, first + behind)
        return True


@dataclass(frozen=True)
class EndOfInput:
    markers: tuple[Marker, ...]
    # per source, how many micro-batches its present input takes (SourceInfo.batches); None when
    # some source cannot say (then the markers wait for a second run)
    batches: tuple[Callable[[], int | None], ...] | None

    @classmethod
    def of(cls, sources: Iterable[SourceInfo]) -> EndOfInput:
        sources = list(sources)
        markers = tuple(
            Marker(s.marker_dir, s.time_column, s.marker_column)
            for s in sources
            if s.marker_dir is not None and s.time_column is not None and s.marker_column is not None
        )
        counts = [s.batches for s in sources]
        known = None if any(c is None for c in counts) else tuple(c for c in counts if c is not None)
        return cls(markers, known)

    @property
    def needed(self) -> bool:
        return bool(self.markers)

    def write_ahead(self) -> bool:
        """Before the job starts: whether its markers are in place, written now behind the input's
        batches but the last (the longest source's: the global watermark is the least of the
        sources', so no marker may come before any source's last batch), or there since an
        earlier run, or none needed. False: a source cannot count its batches."""
        if not self.markers or self.written():
            return True
        if self.batches is None:
            return False
        counts = [count() for count in self.batches]
        if any(n is None for n in counts):
            return False
        last = max((n for n in counts if n is not None), default=1)
        self.write(behind=max(last - 1, 0))
        return True

    def write(self, behind: int = 0) -> bool:
        """Write every marker not yet written; whether any was. (Every one: ``any()`` over a
        generator would stop at the first, and a join's other side would never end.)"""
        wrote = [m.write(behind) for m in self.markers]
        return any(wrote)

    def written(self) -> bool:
        return any(m.written for m in self.markers)

    def session_conf(self) -> dict[str, str | None]:
        """The job session's settings for the next run (None: unset)."""
        return {EXCLUDED_RULES: NO_PUSHDOWN if self.written() else None}
