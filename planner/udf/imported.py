"""A Python function's or aggregate function's signature read by importing its module (``sqlengine
run`` and the shell; lint and EXPLAIN read the source instead: ``planner.udf.static``)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from planner.udf.aggregate import of_class
from planner.udf.loader import Signature, load, signature


def resolve(target: str, paths: Sequence[str]) -> Signature:
    """The signature of the Python function ``target``: a class is an aggregate function, as
    Flink's are."""
    fn = load(target, paths)
    if inspect.isclass(fn):
        return of_class(target, fn)
    return signature(target, fn)
