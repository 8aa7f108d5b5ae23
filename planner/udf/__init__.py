"""User-defined functions as the planner sees them: a catalog FunctionDef resolved to a SQL
signature (Python functions: from their annotations and ``@function``, imported without Spark).
Spark runs them through ``sqlengine.translate.udfs``."""

from __future__ import annotations

from dataclasses import dataclass

from catalog import FunctionDef
from planner.udf.decorator import Declared, declared_of, function
from planner.udf.imported import resolve
from planner.udf.loader import PYTHON_FILES, Signature, UdfError, absolute_files, load, search_path, signature


@dataclass(frozen=True)
class UserFunction:
    """A catalog function a call resolved to; ``signature`` is None for a JVM function declared
    without a jar (nothing to load: the checker refuses its calls)."""

    definition: FunctionDef
    signature: Signature | None
    jars: tuple[str, ...] = ()  # a JVM function's jars (USING JAR), found

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def python(self) -> bool:
        return self.definition.language == "PYTHON"


__all__ = [
    "PYTHON_FILES",
    "Declared",
    "Signature",
    "UdfError",
    "UserFunction",
    "absolute_files",
    "declared_of",
    "function",
    "load",
    "resolve",
    "search_path",
    "signature",
]
