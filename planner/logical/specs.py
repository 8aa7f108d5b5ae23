"""What the logical operators are made of: their kinds, aggregate functions and calls, window
specifications, and how a plan prints an expression or a duration."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from sqlglot import exp

from planner.dialect import Flink

if TYPE_CHECKING:
    from planner.udf import UserFunction


def sql(e: exp.Expr | None) -> str:
    return e.sql(dialect=Flink) if e is not None else ""


def fmt_ms(ms: int | None) -> str:
    if ms is None:
        return "?"
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms} ms"


class OperatorKind(StrEnum):
    """The operator names EXPLAIN prints (Flink's, where Flink has one)."""

    SCAN = "Scan"
    VALUES = "Values"
    CALC = "Calc"
    WINDOW_TVF = "WindowTVF"
    CORRELATE = "Correlate"
    UNION = "Union"
    SINK = "Sink"
    GROUP_AGGREGATE = "GroupAggregate"
    DISTINCT = "Distinct"
    WINDOW_AGGREGATE = "WindowAggregate"
    REGULAR_JOIN = "RegularJoin"
    INTERVAL_JOIN = "IntervalJoin"
    WINDOW_JOIN = "WindowJoin"
    TEMPORAL_JOIN = "TemporalJoin"
    LOOKUP_JOIN = "LookupJoin"
    CHANGELOG_NORMALIZE = "ChangelogNormalize"
    DEDUPLICATE = "Deduplicate"
    WINDOW_DEDUPLICATE = "WindowDeduplicate"
    TOP_N = "TopN"
    WINDOW_TOP_N = "WindowTopN"
    OVER_AGGREGATE = "OverAggregate"
    MATCH_RECOGNIZE = "MatchRecognize"
    SORT = "Sort"


class AggFunc(StrEnum):
    """Aggregate and ranking functions, by their Flink names."""

    COUNT = "COUNT"
    SUM = "SUM"
    AVG = "AVG"
    MIN = "MIN"
    MAX = "MAX"
    FIRST_VALUE = "FIRST_VALUE"
    LAST_VALUE = "LAST_VALUE"
    LISTAGG = "LISTAGG"
    COLLECT = "COLLECT"
    STDDEV_POP = "STDDEV_POP"
    STDDEV_SAMP = "STDDEV_SAMP"
    VAR_POP = "VAR_POP"
    VAR_SAMP = "VAR_SAMP"
    APPROX_COUNT_DISTINCT = "APPROX_COUNT_DISTINCT"
    ARRAY_AGG = "ARRAY_AGG"
    JSON_ARRAYAGG = "JSON_ARRAYAGG"
    JSON_OBJECTAGG = "JSON_OBJECTAGG"
    ROW_NUMBER = "ROW_NUMBER"
    RANK = "RANK"
    DENSE_RANK = "DENSE_RANK"
    PERCENT_RANK = "PERCENT_RANK"
    CUME_DIST = "CUME_DIST"
    NTILE = "NTILE"
    LAG = "LAG"
    LEAD = "LEAD"
    USER_DEFINED = "USER_DEFINED"  # a Python aggregate function (AggCall.udf)

    @property
    def ranking(self) -> bool:
        return self in RANKING


RANKING = frozenset({AggFunc.ROW_NUMBER, AggFunc.RANK, AggFunc.DENSE_RANK})


class WindowKind(StrEnum):
    TUMBLE = "TUMBLE"
    HOP = "HOP"
    CUMULATE = "CUMULATE"
    SESSION = "SESSION"


@dataclass(frozen=True)
class WindowSpec:
    id: int
    kind: WindowKind
    time_field: str  # the input field the window is assigned on
    size_ms: int | None = None  # TUMBLE/HOP size, CUMULATE max size
    slide_ms: int | None = None  # HOP slide
    step_ms: int | None = None  # CUMULATE step
    gap_ms: int | None = None  # SESSION gap
    offset_ms: int = 0
    partition_keys: tuple[str, ...] = ()  # SESSION ... PARTITION BY

    def __str__(self) -> str:
        args = {
            WindowKind.TUMBLE: f"size={fmt_ms(self.size_ms)}",
            WindowKind.HOP: f"slide={fmt_ms(self.slide_ms)}, size={fmt_ms(self.size_ms)}",
            WindowKind.CUMULATE: f"step={fmt_ms(self.step_ms)}, max size={fmt_ms(self.size_ms)}",
            WindowKind.SESSION: f"gap={fmt_ms(self.gap_ms)}",
        }[self.kind]
        part = f", partition by {', '.join(self.partition_keys)}" if self.partition_keys else ""
        return f"{self.kind.value}({self.time_field}, {args}{part})"

    @property
    def retention_ms(self) -> int | None:
        """How long after its start a window stays open (before the watermark delay)."""
        if self.kind == WindowKind.SESSION:
            return None  # a session stays open as long as rows keep arriving within the gap
        return self.size_ms


@dataclass(frozen=True)
class AggCall:
    name: str  # output field name
    func: AggFunc
    args: tuple[exp.Expr, ...]
    distinct: bool = False
    filter: exp.Expr | None = None
    star: bool = False  # COUNT(*)
    udf: UserFunction | None = None  # the function of a USER_DEFINED call
    call: exp.Expr | None = field(default=None, compare=False, repr=False)  # a USER_DEFINED call as written (its position)
    # the NULL clause as written: IGNORE NULLS / RESPECT NULLS (ARRAY_AGG), NULL ON NULL / ABSENT
    # ON NULL (JSON_ARRAYAGG, JSON_OBJECTAGG); "" for the function's default
    nulls: str = ""

    @property
    def function_name(self) -> str:
        return self.udf.name if self.udf is not None else self.func.value

    @property
    def keeps_nulls(self) -> bool:
        """Whether NULL values go into the result (Flink's defaults: ARRAY_AGG respects NULLs,
        JSON_ARRAYAGG is ABSENT ON NULL, JSON_OBJECTAGG NULL ON NULL)."""
        if self.func == AggFunc.ARRAY_AGG:
            return self.nulls != "IGNORE NULLS"
        if self.func == AggFunc.JSON_ARRAYAGG:
            return self.nulls == "NULL ON NULL"
        if self.func == AggFunc.JSON_OBJECTAGG:
            return self.nulls != "ABSENT ON NULL"
        return False

    def __str__(self) -> str:
        inner = "*" if self.star else ", ".join(sql(a) for a in self.args)
        d = "DISTINCT " if self.distinct else ""
        f = f" FILTER (WHERE {sql(self.filter)})" if self.filter is not None else ""
        n = f" {self.nulls}" if self.nulls else ""
        return f"{self.function_name}({d}{inner}{n}){f} AS {self.name}"
