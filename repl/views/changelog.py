"""The changelog result mode: every change of the result as it arrives, marked +I (insert), -U
(the row before an update), +U (the row after it) or -D (delete), as Flink's SQL client shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical.changelog import RowKind
from repl.views.columns import Columns
from repl.views.live import Lines

if TYPE_CHECKING:
    from sqlengine.results import ResultTable

STYLE_OF = {
    RowKind.INSERT: "change.insert",
    RowKind.UPDATE_BEFORE: "change.update-before",
    RowKind.UPDATE_AFTER: "change.update-after",
    RowKind.DELETE: "change.delete",
}
MAX_LINES_PER_POLL = 5000


class ChangelogFeed:
    def __init__(self, result: ResultTable, columns: Columns) -> None:
        self.result = result
        self.columns = columns
        self.seen = 0
        self.printed = 0
        self.started = False

    def poll(self) -> Lines:
        changes, self.seen, dropped = self.result.changes_since(self.seen)
        lines: Lines = []
        if not changes and not dropped:
            return lines
        if not self.started:
            self.columns.fit([c.row for c in changes[:100]])
            lines += [("view.header", self.columns.header())]
            self.started = True
        skipped = dropped + max(0, len(changes) - MAX_LINES_PER_POLL)
        if skipped:
            lines.append(("dim", f"… {skipped} changes not shown (arriving faster than they can be printed)"))
        for ch in changes[-MAX_LINES_PER_POLL:]:
            lines.append((STYLE_OF.get(ch.kind, ""), self.columns.line(ch.row, ch.kind)))
        self.printed += len(changes)
        return lines

    def finish(self, cancelled: bool) -> Lines:
        total = self.result.total_changes
        how = "Query stopped" if cancelled else "Query finished"
        return [("dim", f"{how}: received a total of {total} change{'s' if total != 1 else ''}.")]
