"""Our side of the comparison, imported lazily: the planner's modules are being moved around, so
the script parser is looked up where it lives now or where it used to live."""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import Any

_SCRIPT_MODULES = ("planner.statements.script", "planner.script")


@cache
def script_module() -> ModuleType:
    for name in _SCRIPT_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name is None or not name.startswith(err.name):
                raise  # the module exists but one of its own imports is broken: show that
            continue
        if hasattr(module, "parse_script"):
            return module
    raise ImportError(f"parse_script not found in any of {', '.join(_SCRIPT_MODULES)}")


def parse_script(text: str) -> Any:
    return script_module().parse_script(text)


def tokens(text: str) -> list[Any]:
    """sqlglot tokens of ``text`` in our dialect (each with ``start``/``end`` offsets, end inclusive).
    Importing the script module registers the dialect with sqlglot under the name "flink"."""
    script_module()
    from sqlglot.dialects.dialect import Dialect

    return Dialect.get_or_raise("flink").tokenizer().tokenize(text)
