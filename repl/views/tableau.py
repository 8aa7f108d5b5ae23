"""The tableau result mode: a table in the terminal's scrollback. A continuous query's changes are
printed as they arrive, with an ``op`` column (+I, -U, +U, -D: rows may be retracted and updated)
and column widths fixed up front so later rows line up with earlier ones; a bounded query (or any
query in batch mode) prints its final result with tabulate once it is complete."""

from __future__ import annotations

from typing import TYPE_CHECKING

from repl.client import render_table
from repl.views.columns import Columns
from repl.views.live import Lines

if TYPE_CHECKING:
    from sqlengine.results import ResultTable

MAX_LINES_PER_POLL = 5000


class TableauFeed:
    def __init__(self, result: ResultTable, columns: Columns, *, final_only: bool) -> None:
        self.result = result
        self.columns = columns
        self.final_only = final_only
        self.seen = 0
        self.started = False

    def poll(self) -> Lines:
        if self.final_only:
            return []
        changes, self.seen, dropped = self.result.changes_since(self.seen)
        if not changes and not dropped:
            return []
        out: Lines = []
        if not self.started:
            self.columns.fit([c.row for c in changes[:100]])
            out += [("", self.columns.border()), ("view.header", self.columns.header()), ("", self.columns.border())]
            self.started = True
        skipped = dropped + max(0, len(changes) - MAX_LINES_PER_POLL)
        if skipped:
            out.append(("dim", f"… {skipped} changes not shown (arriving faster than they can be printed)"))
        out += [("", self.columns.line(c.row, c.kind)) for c in changes[-MAX_LINES_PER_POLL:]]
        return out

    def finish(self, cancelled: bool) -> Lines:
        if self.final_only:
            if cancelled:
                return [("dim", "Query stopped before it finished.")]
            return [("", render_table(self.result.columns, self.result.rows(), width=self.columns.limit, types=self.columns.types))]
        out: Lines = [("", self.columns.border())] if self.started else []
        total = self.result.total_changes
        how = "Query stopped" if cancelled else "Query finished"
        out.append(("dim", f"{how}: received a total of {total} row{'s' if total != 1 else ''}."))
        return out
