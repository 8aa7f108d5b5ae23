"""The catalog's objects as frozen dataclasses.

Types, computed-column expressions and watermark expressions are Flink SQL text in the canonical
form the planner's generator writes, so the catalog can store and compare them without a parser.
Names are case-sensitive, as in Flink.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

from catalog.secrets import mask_options

ColumnKind = Literal["physical", "computed", "metadata"]


@dataclass(frozen=True)
class Column:
    name: str
    type: str | None  # Flink type text; None for a computed column whose type is derived
    kind: ColumnKind = "physical"
    expr: str | None = None  # computed: the expression text
    metadata_key: str | None = None  # metadata: FROM 'key' (None means the column name)
    virtual: bool = False  # metadata: VIRTUAL (read-only, not written by a sink)
    nullable: bool = True
    comment: str | None = None

    @property
    def is_persisted(self) -> bool:
        """Physical or writable metadata: what a sink writes."""
        return self.kind == "physical" or (self.kind == "metadata" and not self.virtual)


@dataclass(frozen=True)
class Watermark:
    column: str  # the rowtime column (may be nested: a.b)
    expr: str  # the watermark strategy expression, e.g. "ts - INTERVAL '5' SECOND"


@dataclass(frozen=True)
class TableDef:
    name: str
    columns: tuple[Column, ...]
    watermark: Watermark | None = None
    primary_key: tuple[str, ...] = ()
    partitioned_by: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    temporary: bool = False

    kind: str = field(default="table", init=False)

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def connector(self) -> str | None:
        return self.options.get("connector")

    def masked_options(self) -> dict[str, str]:
        return mask_options(self.options)

    def __repr__(self) -> str:  # secrets never reach a log through repr()
        cols = ", ".join(c.name for c in self.columns)
        return (
            f"TableDef(name={self.name!r}, columns=[{cols}], watermark={self.watermark!r}, "
            f"primary_key={self.primary_key!r}, options={self.masked_options()!r}, "
            f"temporary={self.temporary!r})"
        )

    def with_options(self, options: dict[str, str]) -> TableDef:
        return replace(self, options=dict(options))

    def to_json(self) -> str:
        # the same JSON as asdict(), a third of the time (every CREATE TABLE and restore writes one)
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "kind"}
        data["columns"] = [dict(c.__dict__) for c in self.columns]
        data["watermark"] = dict(self.watermark.__dict__) if self.watermark is not None else None
        data["options"] = dict(self.options)
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TableDef:
        data: dict[str, Any] = json.loads(text)
        wm = data.pop("watermark")
        return cls(
            name=data["name"],
            columns=tuple(Column(**c) for c in data["columns"]),
            watermark=Watermark(**wm) if wm else None,
            primary_key=tuple(data.get("primary_key", ())),
            partitioned_by=tuple(data.get("partitioned_by", ())),
            options=dict(data.get("options", {})),
            comment=data.get("comment"),
            temporary=bool(data.get("temporary", False)),
        )


@dataclass(frozen=True)
class ViewDef:
    name: str
    query: str  # the view's SELECT, canonical Flink SQL text
    column_names: tuple[str, ...] = ()  # the optional (a, b, ...) list after the view name
    comment: str | None = None
    temporary: bool = False

    kind: str = field(default="view", init=False)

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("kind")
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ViewDef:
        data = json.loads(text)
        data["column_names"] = tuple(data.get("column_names", ()))
        return cls(**data)


@dataclass(frozen=True)
class FunctionDef:
    name: str
    class_name: str  # 'com.example.MyUdf' or a Python 'module.function'
    language: str = "JAVA"  # JAVA | SCALA | PYTHON
    resources: tuple[str, ...] = ()  # USING JAR '...'
    temporary: bool = False
    system: bool = False  # TEMPORARY SYSTEM FUNCTION
    # PYTHON: the directory of the .sql file that created it, where its module is looked for too
    # (a query in the shell or another file then finds it)
    path: str | None = None

    kind: str = field(default="function", init=False)

    def to_json(self) -> str:
        data = asdict(self)
        data.pop("kind")
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> FunctionDef:
        data = json.loads(text)
        data["resources"] = tuple(data.get("resources", ()))
        return cls(**data)


CatalogObject = TableDef | ViewDef | FunctionDef

KINDS: dict[str, type[TableDef] | type[ViewDef] | type[FunctionDef]] = {
    "table": TableDef,
    "view": ViewDef,
    "function": FunctionDef,
}
