"""Result views of a SELECT, one per result mode (``'sql-client.execution.result-mode'``):

    table      full-screen, materialized, updated in place (``repl.views.table``)
    changelog  every change as it arrives, marked +I/-U/+U/-D (``repl.views.changelog``)
    tableau    a table in the scrollback (``repl.views.tableau``)

Without a terminal (``sqlengine -f``) every mode prints as tableau does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from repl.terminal import Terminal
from repl.views.columns import Columns, max_width
from repl.views.live import result_of

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from planner.logical.fields import Field
    from repl.views.live import Feed
    from sqlengine.jobs import Job

MODES = ("table", "changelog", "tableau")


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


def show_result(term: Terminal, job: Job, analysis: Analysis | None, settings: dict[str, str], fields: Sequence[Field] = ()) -> bool:
    """Show a running SELECT's result until it ends or the user stops it (True: stopped)."""
    mode = settings.get("sql-client.execution.result-mode", "table")
    if not term.interactive:
        mode = "tableau"
    result = result_of(job)
    names = result.columns
    types = [getattr(f, "type", None) for f in fields] if len(fields) == len(names) else []
    limit = max_width(settings)
    if mode == "table":
        from repl.views.table import TableView

        view = TableView(job, analysis, Columns(names, types, limit), max_rows=_int(settings.get("sql-client.execution.max-table-result.rows")))
        term.current_view = view
        try:
            return view.run(term)
        finally:
            term.current_view = None
    from repl.views.live import run_live, status_line

    feed: Feed
    if mode == "changelog":
        from repl.views.changelog import ChangelogFeed

        feed = ChangelogFeed(result, Columns(names, types, limit, op=True))
        noun = "changes"
    else:
        from repl.views.tableau import TableauFeed

        feed = TableauFeed(result, Columns(names, types, limit, op=True), final_only=job.ends_by_itself)
        noun = "rows"
    return run_live(term, job, feed, lambda: status_line(job, lambda: f"{result.total_changes} {noun}"))
