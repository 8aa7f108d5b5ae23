"""For the modules of Python user functions: ``from sqlengine.udf import function``.

The decorator lives in ``planner.udf.decorator`` (standard library only), so lint, EXPLAIN and
Spark's Python workers import a user's module without Spark or anything else of sqlengine."""

from planner.udf.decorator import Declared, function

__all__ = ["Declared", "function"]
