"""SE104: deduplication (ROW_NUMBER() ... = 1 ordered by a time attribute) without a window keeps
one entry per key, forever; so does the ChangelogNormalize over an upsert source (the last row of
every key, a deduplication the planner adds)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import Verdict
from planner.diagnostics import Category, Severity
from planner.logical.operators import ChangelogNormalize, Deduplicate, Scan
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import from_relation, keys_text, sql, written_origin
from planner.rules.rewrites import ttl_rewrite, window_rank_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if isinstance(node, ChangelogNormalize):
            info = ctx.state_of(node)
            if info is not None and info.verdict == Verdict.UNBOUNDED:
                yield _normalize(ctx, node)
            continue
        if not isinstance(node, Deduplicate) or node.window is not None:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        part = info.parts[0]
        keys = keys_text(part.key_labels or part.keys, "the whole row")
        origin = written_origin(ctx, node)
        what = f" ({sql(origin)} = 1)" if origin is not None else ""
        rel = from_relation(ctx, node)
        source = f" of {rel.label}" if rel is not None else ""
        estimate = ctx.estimate(node, 0)
        size = f" ({estimate})" if estimate else ""
        if node.keep_last:
            kept = f"the last row of every key ({keys}) forever, to retract it when a newer row of the key comes"
        else:
            kept = f"an entry for every key ({keys}) ever seen, forever, to drop the key's later rows"
        message = f"Deduplication{source}{what} keeps {kept}{size}"
        hint = (
            "deduplicate per window (PARTITION BY window_start, window_end, ... over a TUMBLE window): "
            "each window's keys are released when it closes; or set a state TTL (a key idle longer comes through again)"
        )
        time = ctx.lineage.display(node.input, node.order_field)
        yield Finding(node, message, hint, partial(_rewrite, ctx, node, time))


def _normalize(ctx: RuleContext, node: ChangelogNormalize) -> Finding:
    scan = node.input
    assert isinstance(scan, Scan)  # the binder puts it right over the upsert source's scan
    estimate = ctx.estimate(node, 0)
    size = f" ({estimate})" if estimate else ""
    message = (
        f"Reading `{scan.table.name}` ({scan.table.connector}) keeps the last row of every key "
        f"({keys_text(node.keys, 'the key')}) forever (ChangelogNormalize), to retract it when the key is updated; "
        f"only a delete (tombstone) releases a key{size}"
    )
    hint = (
        "set a state TTL if keys idle that long may be forgotten (an update of a forgotten key then comes as a "
        "new row), or read the topic with 'connector' = 'kafka' if its records are events, not updates of a key"
    )
    rewrite = (
        "SET 'table.exec.state.ttl' = '1 d';\n"
        "-- a key idle for 1 d is forgotten: its next update comes as +I, its delete is passed on as it is (SE108)"
    )
    return Finding(node, message, hint, rewrite)


def _rewrite(ctx: RuleContext, node: Deduplicate, time: str) -> str:
    window = window_rank_rewrite(ctx, node, time, "INTERVAL '1' HOUR")
    ttl = ttl_rewrite(ctx, node, what="key")
    return f"{window}\n-- or keep one row per key, forgetting idle keys:\n{ttl}" if window else ttl


RULE = Rule(
    code="SE104",
    name="unbounded-deduplication",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Deduplication without a window keeps one entry per key forever",
    check=check,
)
