"""Name resolution: the relations visible in a FROM clause and the columns they bring."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from sqlglot import exp

from planner.logical.fields import Field
from planner.problems import BindError


@dataclass
class Relation:
    alias: str | None  # the name columns are qualified with (table name or alias)
    fields: list[Field]  # as the user sees them (user names)
    internal: list[str]  # the same columns' names in the combined input


@dataclass
class Scope:
    relations: list[Relation] = field(default_factory=list)
    # fields of the combined input by internal name
    by_internal: dict[str, Field] = field(default_factory=dict)
    outer: Scope | None = None  # the enclosing query's scope (correlated references)
    # columns the binder adds that only it names (a scalar subquery's value): no `*` expands them
    hidden: dict[str, Field] = field(default_factory=dict)

    def add(self, rel: Relation) -> None:
        self.relations.append(rel)
        for f, name in zip(rel.fields, rel.internal, strict=True):
            self.by_internal[name] = f.renamed(name)

    def relation(self, alias: str) -> Relation | None:
        matches = [r for r in self.relations if r.alias == alias]
        return matches[-1] if matches else None

    def visible_names(self) -> list[str]:
        names = []
        for r in self.relations:
            for f in r.fields:
                names.append(f"{r.alias}.{f.name}" if r.alias else f.name)
                names.append(f.name)
        return names

    def resolve(self, column: exp.Column) -> tuple[str, Field, list[str]]:
        """(internal name, field, nested path) of a column reference; BindError if unknown."""
        parts = [p.name for p in column.parts]
        # qualified: alias.col[.nested...]
        if len(parts) > 1:
            for split in range(len(parts) - 1, 0, -1):
                alias = ".".join(parts[:split])
                rel = self.relation(alias) or self.relation(parts[split - 1])
                if rel is None:
                    continue
                name, nested = parts[split], parts[split + 1 :]
                for f, internal in zip(rel.fields, rel.internal, strict=True):
                    if f.name == name:
                        return internal, self.by_internal[internal], nested
                raise BindError(
                    f"Column `{name}` is not in `{rel.alias}`",
                    column,
                    self._hint(name, [f.name for f in rel.fields]),
                )
        # unqualified (or a ROW column followed by field names)
        name, nested = parts[0], parts[1:]
        if name in self.hidden:
            return name, self.hidden[name], nested
        found = [
            (internal, f)
            for rel in self.relations
            for f, internal in zip(rel.fields, rel.internal, strict=True)
            if f.name == name
        ]
        if len(found) > 1:
            owners = [r.alias or "(subquery)" for r in self.relations if any(f.name == name for f in r.fields)]
            raise BindError(
                f"Column `{name}` is ambiguous: it is in {' and '.join(owners)}",
                column,
                f"qualify it, e.g. {owners[0]}.{name}",
            )
        if found:
            internal, f = found[0]
            return internal, self.by_internal[internal], nested
        if self.outer is not None:
            try:
                self.outer.resolve(column)
            except BindError:
                pass
            else:
                raise BindError(
                    f"Column `{column.sql()}` refers to the outer query: correlated subqueries are not supported yet",
                    column,
                )
        what = ".".join(parts)
        if len(parts) > 1 and self.relation(parts[0]) is None:
            raise BindError(
                f"Unknown table or column `{parts[0]}` in `{what}`",
                column,
                self._hint(parts[0], [r.alias for r in self.relations if r.alias] + [f.name for r in self.relations for f in r.fields]),
            )
        raise BindError(f"Unknown column `{what}`", column, self._hint(name, self.visible_names()))

    def _hint(self, name: str, candidates: list[str]) -> str | None:
        for c in candidates:
            if c.lower() == name.lower() and c != name:
                return f"did you mean `{c}`? Names are case-sensitive"
        close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
        return f"did you mean `{close[0]}`?" if close else None
