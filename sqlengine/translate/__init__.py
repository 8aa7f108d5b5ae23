"""Logical plan -> PySpark DataFrame. ``translate()`` refuses, before any job starts, what
``planner.spark_support`` says cannot run, naming the operator and why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from planner.lineage import Lineage
from planner.logical.operators import Node, Sink, waits_on_watermark
from planner.properties import Mode, NodeProps
from planner.spark_support import stateful_chain_problem, unsupported
from sqlengine.translate.core import SourceInfo, Translator, visible
from sqlengine.translate.errors import TranslationError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@dataclass
class Translated:
    df: DataFrame
    output_mode: str  # append | update
    upsert_key: tuple[str, ...]
    sources: list[SourceInfo]
    side_queries: list = field(default_factory=list)

    @property
    def bounded(self) -> bool:
        return bool(self.sources) and all(s.bounded for s in self.sources)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m for s in self.sources for m in s.metric_names)


def check_supported(plan: Node, props: dict[int, NodeProps]) -> None:
    lineage = Lineage()
    problems = unsupported(plan, props, lineage.bounded_input)
    if problems:
        p = problems[0]
        raise TranslationError(f"{p.node.kind}: {p.reason}", p.at if p.at is not None else p.node.origin)
    chain = stateful_chain_problem(plan, props)
    if chain is not None:
        raise TranslationError(chain.reason, chain.node.origin)


def translate(
    plan: Node,
    props: dict[int, NodeProps],
    spark: SparkSession,
    *,
    streaming: bool,
    job_dir: Path,
    functions: Callable | None = None,
    flush_at_end: bool = True,
) -> Translated:
    if streaming:
        check_supported(plan, props)
    root = plan.input if isinstance(plan, Sink) else plan
    changelog = props[id(root)].changelog
    if streaming and changelog.mode == Mode.RETRACT:
        raise TranslationError("This query produces retractions, which Spark Structured Streaming cannot represent", root.origin)
    # the end-of-input marker closes what waits on the watermark; a plan where nothing does
    # (stateless, or keyed operators that emit at once) skips the marker's second phase
    flush_at_end = flush_at_end and any(waits_on_watermark(n) for n in root.walk())
    t = Translator(spark, props, streaming, job_dir, functions, flush_at_end)
    df = t.translate(root)
    df = df.select(*[df[c] for c in visible(df)])
    mode = "append" if changelog.insert_only else "update"
    return Translated(df, mode, changelog.key, t.sources, t.side_queries)


__all__ = ["Translated", "TranslationError", "translate", "check_supported"]
