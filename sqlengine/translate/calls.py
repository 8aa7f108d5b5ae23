"""The two node builders every translation of a Flink built-in uses: a Spark call by name, a
string literal."""

from __future__ import annotations

from sqlglot import exp


def call(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def lit(text: str) -> exp.Literal:
    return exp.Literal.string(text)
