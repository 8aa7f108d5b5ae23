"""What the binder's parts share: its state (catalog, windows, CTEs, the views being expanded)
and the methods one part calls in another. ``Binder`` (planner.binder) is the one class; the
mixins (relations, select) are its parts, typed against this base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sqlglot import exp

from catalog import Catalog
from catalog.model import CatalogObject
from planner.dialect import parse_type
from planner.logical.fields import Field
from planner.logical.operators import Node
from planner.logical.specs import WindowSpec
from planner.udf import UdfError, UserFunction, resolve
from planner.udf.java import find_jar, java_signature
from planner.udf.static import resolve_static

if TYPE_CHECKING:
    from planner.binder.relations import Item
    from planner.binder.scope import Scope

# one frame per view being expanded: the relations it read, with their definitions then
ViewDeps = list[tuple[str, CatalogObject | None]]


class BinderBase:
    catalog: Catalog
    window_ids: Iterator[int]
    windows: dict[int, WindowSpec]  # every window of the statement, by id
    window_times: dict[int, Field]  # the time attribute each window is on
    ctes: list[dict[str, Node]]  # the CTEs in scope, innermost last
    view_stack: list[str]  # the views being expanded (a view may not refer to itself)
    view_deps: list[ViewDeps]
    udf_paths: tuple[str, ...]  # where Python functions' modules are imported from
    run_user_code: bool  # False (lint, EXPLAIN): a Python function's signature is read from its source
    udfs: dict[str, UserFunction | None]  # what ``user_function`` found, by name (one statement's)

    def user_function(self, name: str) -> UserFunction | None:
        """The catalog function ``name`` with its signature (a Python function's from its
        annotations, a JVM class's from its jar; ``planner.udf.UdfError`` when it cannot be read);
        None when there is no such function."""
        if name in self.udfs:
            return self.udfs[name]
        found = self.udfs[name] = self._user_function(name)
        return found

    def _user_function(self, name: str) -> UserFunction | None:
        fn = self.catalog.get_function(name)
        if fn is None:
            return None
        dirs = (*self.udf_paths, fn.path) if fn.path else self.udf_paths
        jars: tuple[str, ...] = ()
        if fn.language != "PYTHON":
            if not fn.resources:
                return UserFunction(fn, None)  # no class to load: the checker refuses its calls
            found = [find_jar(r, (fn.path, *self.udf_paths) if fn.path else dirs) for r in fn.resources]
            sig = java_signature(fn.class_name, found)
            jars = tuple(str(j) for j in found)
        else:
            dirs = tuple(dict.fromkeys(dirs))
            sig = resolve(fn.class_name, dirs) if self.run_user_code else resolve_static(fn.class_name, dirs)
        for text in (sig.result, *sig.params):
            if text is not None:
                try:
                    parse_type(text)
                except Exception:
                    raise UdfError(f"'{sig.target}' declares the type '{text}', which is not a Flink SQL type") from None
        return UserFunction(fn, sig, jars)

    if TYPE_CHECKING:  # defined by the parts; declared here for the others that call them

        def bind_query(self, query: exp.Expr) -> Node: ...

        def bind_from(self, sel: exp.Select, ttl: dict[str, int] | None = None) -> tuple[Node, Scope, list[exp.Expr]]: ...

        def bind_from_item(self, node: exp.Expr, scope_outer: Scope | None = None) -> Item: ...

        def bind_values(self, node: exp.Values) -> Item: ...

        def bind_correlate(self, left: Item, left_scope: Scope, node: exp.Expr, outer: bool) -> Item: ...

        def bind_match_recognize(self, source: Item, node: exp.MatchRecognize) -> Item: ...
