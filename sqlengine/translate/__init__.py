"""Logical plan -> PySpark DataFrame. ``translate()`` asks the checker's verdict (the analysis's
problems) and refuses, before any job starts, what ``planner.analysis.check`` says cannot run, naming
the operator and why; the handlers themselves decide nothing of the sort."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from planner.analysis.physical import DEFAULT_BUCKETS
from planner.analysis.properties import Mode
from planner.logical.operators import Node, Sink
from planner.source import SourceText
from sqlengine.storage import Location
from sqlengine.translate.core import SourceInfo, TranslationBug, Translator
from sqlengine.translate.dispatch import handler_for
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import quote
from sqlengine.translate.udfs import register as register_functions

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from planner.analysis.analyze import Analysis
    from sqlengine.connectors.malformed import DeadLetterQuery


class OutputMode:
    APPEND = "append"
    UPDATE = "update"


@dataclass
class Translated:
    df: DataFrame
    output_mode: str  # OutputMode.APPEND | OutputMode.UPDATE
    upsert_key: tuple[str, ...]
    sources: list[SourceInfo]
    side_queries: list[DeadLetterQuery] = field(default_factory=list)
    # a changelog's rows carry their kind: this column, the first of ``df`` (appended rows)
    kind_column: str | None = None
    changelog_operators: int = 0  # how many of the plan's operators are changelog operators
    processing_timers: bool = False  # an operator fires on the wall clock (a processing-time window)
    # an operator holds rows back until the watermark passes a bound (a window's end): its output
    # needs Spark's no-data micro-batches, which run when only the watermark moved
    waits_on_watermark: bool = False

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m for s in self.sources for m in s.metric_names)


def translate(
    plan: Node, analysis: Analysis, spark: SparkSession, *, job_dir: Location, end_markers: bool = True, buckets: int = DEFAULT_BUCKETS,
    source: SourceText | None = None,
) -> Translated:
    """The DataFrame of one plan of ``analysis`` (streaming or batch, as the analysis was made).

    ``end_markers``: a bounded streaming job may carry end-of-input markers (only where an
    operator waits on the watermark; see ``sqlengine.end_of_input``). ``source``: the statement's
    text, which a failing user function's error points into."""
    problems = analysis.problems_of(plan)
    if problems:
        raise TranslationError.of(problems[0])
    register_functions(spark, [plan], source, job_dir)
    streaming = analysis.streaming
    root = plan.input if isinstance(plan, Sink) else plan
    changelog = analysis.props[root.node_id].changelog
    waits = streaming and any(n.waits_on_watermark() for n in root.walk())
    markers = end_markers and waits
    t = Translator(
        spark, analysis.props, streaming, job_dir, handler_for, end_markers=markers, physical=analysis.physical,
        ttl_ms=analysis.ttl_ms, bounded=analysis.bounded, buckets=buckets, time_zone=analysis.time_zone,
    )
    t.claim_names(plan)
    rel = t.translate(root)
    if rel.kind is not None:  # the rows of changelog operators, appended with their kind
        from pyspark.sql import functions as F

        df = rel.df.select(F.col(quote(rel.kind)), *[F.col(quote(c)) for c in rel.columns])
        return Translated(df, OutputMode.APPEND, changelog.key, t.sources, t.side_queries, rel.kind, t.changelog_operators, t.processing_timers, waits)
    if streaming and changelog.mode == Mode.RETRACT:
        raise TranslationBug(f"internal error: a retracting result ({root.kind} {root.label}) with no changelog operator")
    mode = OutputMode.APPEND if changelog.insert_only else OutputMode.UPDATE
    return Translated(rel.visible(), mode, changelog.key, t.sources, t.side_queries, None, t.changelog_operators, t.processing_timers, waits)


__all__ = ["OutputMode", "Translated", "TranslationError", "translate"]
