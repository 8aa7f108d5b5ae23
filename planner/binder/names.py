"""The names the binder treats specially: aggregate and ranking functions, Flink's group-window
functions and their properties, and how a call's name is read from sqlglot's node."""

from __future__ import annotations

from sqlglot import exp

from planner.functions import flink_spelling
from planner.logical.specs import AggFunc
from planner.problems import BindError

AGG_NAMES = {
    "COUNT", "SUM", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE", "LISTAGG", "COLLECT",
    "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP", "APPROX_COUNT_DISTINCT", "ARRAY_AGG",
    "JSON_ARRAYAGG", "JSON_OBJECTAGG",
}
RANK_NAMES = {"ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "LAG", "LEAD"}
# Flink's group windows (GROUP BY TUMBLE(ts, size)); CUMULATE has only the table function form
LEGACY_WINDOW_FUNCS = {"TUMBLE", "HOP", "SESSION"}
LEGACY_WINDOW_PROPS = {
    f"{w}_{p}" for w in ("TUMBLE", "HOP", "SESSION") for p in ("START", "END", "ROWTIME", "PROCTIME")
}


# sqlglot's names of a few aggregate nodes, as Flink names the function (STDDEV and VARIANCE are
# Flink's names for the sample forms)
_FLINK_AGG_NAMES = {"J_S_O_N_OBJECT_AGG": "JSON_OBJECTAGG", "STDDEV": "STDDEV_SAMP", "VARIANCE": "VAR_SAMP"}


def agg_func(name: str, node: exp.Expr) -> AggFunc:
    """The aggregate or ranking function called ``name``."""
    spelling = flink_spelling(name)
    if spelling is not None:  # sqlglot reads BIT_AND(x) and ANY_VALUE(x) as its own aggregates
        raise BindError(f"`{name}` is not a Flink SQL function (Flink's validator refuses it)", node, f"write {spelling}")
    try:
        return AggFunc(_FLINK_AGG_NAMES.get(name, name))
    except ValueError:
        raise BindError(f"No aggregate function named `{name}`", node) from None


def func_name(node: exp.Expr) -> str:
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    if isinstance(node, exp.Func):
        return node.sql_name().upper()
    return ""
