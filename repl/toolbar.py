"""The bottom toolbar: Spark's status (starting… / ready / failed), running jobs, the result mode
and the state-warning setting, and the keys that matter. Redrawn every half second."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import StyleAndTextTuples

if TYPE_CHECKING:
    from sqlengine.jobs import Job

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class SparkStatus:
    """Spark's start as the shell sees it: off → starting → ready | failed."""

    def __init__(self) -> None:
        self.state = "off"
        self.error: str | None = None
        self.started_at: float | None = None

    @property
    def ready(self) -> bool:
        return self.state == "ready"


def toolbar_text(
    spark: SparkStatus,
    jobs: Callable[[], Sequence[Job]],
    settings: Callable[[], dict[str, str]],
    tick: int = 0,
) -> StyleAndTextTuples:
    out: StyleAndTextTuples = [("", " Spark: ")]
    if spark.state == "ready":
        out.append(("class:toolbar.ok", "ready"))
    elif spark.state == "starting":
        out.append(("class:toolbar.busy", f"{SPINNER[tick % len(SPINNER)]} starting…"))
    elif spark.state == "failed":
        out.append(("class:toolbar.bad", "failed (see the message above)"))
    else:
        out.append(("class:toolbar.key", "not started"))
    all_jobs = jobs()
    running = sum(1 for j in all_jobs if not j.done)
    failed = sum(1 for j in all_jobs if j.status.value == "FAILED")
    out.append(("", "  │  jobs: "))
    out.append(("class:toolbar.ok" if running else "", f"{running} running"))
    if failed:
        out.append(("class:toolbar.bad", f", {failed} failed"))
    s = settings()
    out.append(("", f"  │  result mode: {s.get('sql-client.execution.result-mode', 'table')}"))
    out.append(("", f"  │  state warnings: {s.get('sql-client.state-warnings', 'warn')}"))
    if s.get("execution.runtime-mode", "streaming") == "batch":
        out.append(("class:toolbar.busy", "  │  batch mode"))
    out.append(("class:toolbar.key", "  │  ; runs · Tab completes · Ctrl-R history · Ctrl-D quits"))
    return out
