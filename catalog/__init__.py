"""Definitions of dynamic tables, views and functions, and the SQLite store that keeps them.

This layer knows nothing of SQL parsing or Spark: types, computed-column expressions and watermark
expressions are kept as Flink SQL text, produced and read by ``planner``.
"""

from catalog.errors import CatalogError, ObjectExists, ObjectNotFound
from catalog.model import Column, FunctionDef, TableDef, ViewDef, Watermark
from catalog.secrets import is_secret_key, mask_options
from catalog.store import Catalog

__all__ = [
    "Catalog",
    "CatalogError",
    "Column",
    "FunctionDef",
    "ObjectExists",
    "ObjectNotFound",
    "TableDef",
    "ViewDef",
    "Watermark",
    "is_secret_key",
    "mask_options",
]
