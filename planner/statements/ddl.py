"""DDL trees to catalog definitions and back: CREATE TABLE/VIEW/FUNCTION, ALTER, and the DDL that
SHOW CREATE TABLE prints (which parses back to the same definition)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import sqlglot
from sqlglot import exp

from catalog import Column, FunctionDef, TableDef, ViewDef, Watermark
from catalog.legacy_options import modern
from catalog.model import ColumnKind
from planner.dialect import Flink, nodes, parse_type
from planner.dialect.keywords import STRICTLY_RESERVED
from planner.names import object_name
from planner.problems import DefinitionError

_LIKE_FEATURES = ("CONSTRAINTS", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS")


def _sql(node: exp.Expr) -> str:
    # generating copies the tree first by default; printing a column definition changes nothing
    # in it, and the copies were a tenth of lint's time on DDL-heavy files
    return node.sql(dialect=Flink, copy=False)


def _column_from_def(coldef: exp.ColumnDef) -> Column:
    name = coldef.this.name
    kind: ColumnKind = "physical"
    expr = metadata_key = comment = None
    virtual = False
    nullable = True
    for constraint in coldef.args.get("constraints") or []:
        c = constraint.args.get("kind")
        if isinstance(c, exp.ComputedColumnConstraint):
            kind, expr = "computed", _sql(c.this)
        elif isinstance(c, nodes.MetadataColumnConstraint):
            kind = "metadata"
            key = c.args.get("this")
            metadata_key = key.this if isinstance(key, exp.Literal) else None
            virtual = bool(c.args.get("virtual"))
        elif isinstance(c, exp.NotNullColumnConstraint):
            nullable = bool(c.args.get("allow_null"))
        elif isinstance(c, exp.CommentColumnConstraint):
            comment = c.this.this
        elif isinstance(c, exp.PrimaryKeyColumnConstraint):
            nullable = False
    datatype = coldef.args.get("kind")
    if datatype is not None and datatype.args.get("nullable") is False:
        # sqlglot folds a column's NOT NULL into its type: it is the column's, not part of the type
        nullable = False
        datatype = datatype.copy()
        datatype.set("nullable", None)
    type_text = _sql(datatype) if datatype is not None else None
    return Column(
        name=name,
        type=type_text,
        kind=kind,
        expr=expr,
        metadata_key=metadata_key,
        virtual=virtual,
        nullable=nullable,
        comment=comment,
    )


def options_of(props: list[exp.Expr]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in props:
        if isinstance(p, nodes.WithOptions):
            for opt in p.expressions:
                key = opt.this.name if isinstance(opt.this, exp.Literal) else _sql(opt.this)
                value = opt.args["value"]
                text = value.this if isinstance(value, exp.Literal) else _sql(value)
                if key in out:
                    raise DefinitionError(f"Option '{key}' is given twice", opt)
                out[key] = str(text)
    return out


Lookup = Callable[[str], "TableDef | ViewDef | None"]


def table_from_create(create: exp.Create, lookup: Lookup | None = None) -> TableDef:
    """The TableDef of ``CREATE TABLE``; ``lookup(name)`` resolves a LIKE source table."""
    this = create.this
    table = this.this if isinstance(this, exp.Schema) else this
    name = object_name(table)
    items = this.expressions if isinstance(this, exp.Schema) else []
    props = list(create.args["properties"].expressions) if create.args.get("properties") else []

    columns: list[Column] = []
    watermark = None
    primary_key: tuple[str, ...] = ()
    for item in items:
        if isinstance(item, exp.ColumnDef):
            col = _column_from_def(item)
            if any(c.name == col.name for c in columns):
                raise DefinitionError(f"Column `{col.name}` is defined twice", item)
            columns.append(col)
            if any(isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint) for c in item.args.get("constraints") or []):
                if primary_key:
                    raise DefinitionError("A table can have only one primary key", item)
                primary_key = (col.name,)
        elif isinstance(item, exp.WatermarkColumnConstraint):
            if watermark is not None:
                raise DefinitionError("A table can have only one WATERMARK", item)
            watermark = Watermark(column=_sql(item.this), expr=_sql(item.expression))
        elif isinstance(item, exp.PrimaryKey):
            if primary_key:
                raise DefinitionError("A table can have only one primary key", item)
            options = item.args.get("options") or []
            if "NOT ENFORCED" not in options:
                raise DefinitionError(
                    "Flink supports only PRIMARY KEY ... NOT ENFORCED: the key is not checked, "
                    "it declares that rows are unique on it",
                    item,
                )
            primary_key = tuple(i.name for i in item.expressions)

    partitioned: tuple[str, ...] = ()
    comment = None
    for p in props:
        if isinstance(p, exp.PartitionedByProperty):
            partitioned = tuple(i.name for i in p.this.expressions)
        elif isinstance(p, exp.SchemaCommentProperty):
            comment = p.this.this
    # Flink's legacy 'connector.type' options are kept as the options of today that mean the same
    options = modern(options_of(props), [c.name for c in columns if c.kind == "physical"])
    temporary = any(isinstance(p, exp.TemporaryProperty) for p in props)

    like = next((p for p in props if isinstance(p, nodes.LikeClause)), None)
    definition = TableDef(
        name=name,
        columns=tuple(columns),
        watermark=watermark,
        primary_key=primary_key,
        partitioned_by=partitioned,
        options=options,
        comment=comment,
        temporary=temporary,
    )
    if like is not None:
        definition = _merge_like(definition, like, lookup)
    if definition.primary_key:  # key columns are NOT NULL, as in Flink
        definition = replace(
            definition,
            columns=tuple(
                replace(c, nullable=False) if c.name in definition.primary_key else c
                for c in definition.columns
            ),
        )
    validate_table(definition, create)
    return definition


def _merge_like(derived: TableDef, like: nodes.LikeClause, lookup: Lookup | None) -> TableDef:
    source_name = object_name(like.this)
    source = lookup(source_name) if lookup else None
    if not isinstance(source, TableDef):
        raise DefinitionError(f"LIKE source table `{source_name}` does not exist", like.this)
    # Flink's default: INCLUDING ALL OVERWRITING OPTIONS
    strategy = dict.fromkeys(_LIKE_FEATURES, "INCLUDING")
    strategy["OPTIONS"] = "OVERWRITING"
    for opt in like.expressions or []:
        kind, feature = opt.text("kind"), opt.name
        for f in (_LIKE_FEATURES if feature == "ALL" else (feature,)):
            if f in strategy:
                strategy[f] = kind

    def include(feature: str) -> bool:
        return strategy[feature] != "EXCLUDING"

    columns = [c for c in source.columns if c.kind == "physical"]
    columns += [c for c in source.columns if c.kind == "computed" and include("GENERATED")]
    columns += [c for c in source.columns if c.kind == "metadata" and include("METADATA")]
    for col in derived.columns:
        clash = next((c for c in columns if c.name == col.name), None)
        if clash is not None:
            if clash.kind == "physical" or strategy.get("GENERATED" if col.kind == "computed" else "METADATA") != "OVERWRITING":
                raise DefinitionError(f"Column `{col.name}` is defined in both the table and its LIKE source", like)
            columns.remove(clash)
        columns.append(col)

    watermark = derived.watermark
    if source.watermark and include("WATERMARKS"):
        if watermark and strategy["WATERMARKS"] != "OVERWRITING":
            raise DefinitionError("Both the table and its LIKE source define a watermark; use OVERWRITING WATERMARKS", like)
        watermark = watermark or source.watermark
    primary_key = derived.primary_key or (source.primary_key if include("CONSTRAINTS") else ())
    partitioned = derived.partitioned_by or (source.partitioned_by if include("PARTITIONS") else ())
    options = dict(source.options) if include("OPTIONS") else {}
    for k, v in derived.options.items():
        if k in options and strategy["OPTIONS"] == "INCLUDING" and options[k] != v:
            raise DefinitionError(f"Option '{k}' is set by both the table and its LIKE source; use OVERWRITING OPTIONS", like)
        options[k] = v
    return replace(
        derived,
        columns=tuple(columns),
        watermark=watermark,
        primary_key=primary_key,
        partitioned_by=partitioned,
        options=options,
    )


def validate_table(table: TableDef, node: exp.Expr | None = None) -> None:
    names = table.column_names
    for key in table.primary_key:
        if key not in names:
            raise DefinitionError(f"Primary key column `{key}` is not a column of `{table.name}`", node)
    for key in table.partitioned_by:
        if key not in names:
            raise DefinitionError(f"Partition column `{key}` is not a column of `{table.name}`", node)
    if table.watermark is not None:
        root = table.watermark.column.split(".")[0].strip("`")
        if root not in names:
            raise DefinitionError(
                f"Watermark column `{table.watermark.column}` is not a column of `{table.name}`", node
            )
        col = table.column(root)
        if col is not None and col.type is not None and "." not in table.watermark.column:
            dtype = parse_type(col.type)
            if not dtype.is_type(exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ):
                raise DefinitionError(
                    f"The watermark column `{root}` must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not {col.type}",
                    node,
                )


def view_from_create(create: exp.Create) -> ViewDef:
    this = create.this
    table = this.this if isinstance(this, exp.Schema) else this
    cols = tuple(i.name for i in this.expressions) if isinstance(this, exp.Schema) else ()
    props = list(create.args["properties"].expressions) if create.args.get("properties") else []
    comment = next((p.this.this for p in props if isinstance(p, exp.SchemaCommentProperty)), None)
    return ViewDef(
        name=object_name(table),
        query=_sql(create.expression),
        column_names=cols,
        comment=comment,
        temporary=any(isinstance(p, exp.TemporaryProperty) for p in props),
    )


def function_from_create(node: nodes.CreateFunction) -> FunctionDef:
    return FunctionDef(
        name=object_name(node.this),
        class_name=node.args["class_name"].this,
        language=(node.text("language") or "JAVA").upper(),
        resources=tuple(j.this for j in node.args.get("jars") or []),
        temporary=bool(node.args.get("temporary")),
        system=bool(node.args.get("system")),
    )


# -- back to DDL -------------------------------------------------------------------------------


def _ident(name: str) -> exp.Identifier:
    quoted = not name.isidentifier() or name.upper() in STRICTLY_RESERVED
    return exp.Identifier(this=name, quoted=quoted)


def _parse_expr(text: str) -> exp.Expr:
    """An expression stored as text in the catalog (computed column, watermark)."""
    parsed: exp.Expr = sqlglot.parse_one(f"SELECT {text}", read=Flink).expressions[0]
    return parsed


def create_table_tree(table: TableDef, masked: bool = True) -> exp.Create:
    items: list[exp.Expr] = []
    for col in table.columns:
        constraints: list[exp.Expr] = []
        kind = None
        if col.kind == "computed":
            constraints.append(exp.ColumnConstraint(kind=exp.ComputedColumnConstraint(this=_parse_expr(col.expr or ""))))
        else:
            kind = parse_type(col.type or "STRING")
            if col.kind == "metadata":
                key = exp.Literal.string(col.metadata_key) if col.metadata_key else None
                constraints.append(exp.ColumnConstraint(kind=nodes.MetadataColumnConstraint(this=key, virtual=col.virtual or None)))
            if not col.nullable and col.name not in table.primary_key:
                constraints.append(exp.ColumnConstraint(kind=exp.NotNullColumnConstraint()))
        if col.comment:
            constraints.append(exp.ColumnConstraint(kind=exp.CommentColumnConstraint(this=exp.Literal.string(col.comment))))
        items.append(exp.ColumnDef(this=_ident(col.name), kind=kind, constraints=constraints or None))
    if table.watermark is not None:
        items.append(
            exp.WatermarkColumnConstraint(this=_parse_expr(table.watermark.column), expression=_parse_expr(table.watermark.expr))
        )
    if table.primary_key:
        items.append(exp.PrimaryKey(expressions=[_ident(k) for k in table.primary_key], options=["NOT ENFORCED"]))
    props: list[exp.Expr] = []
    if table.temporary:
        props.append(exp.TemporaryProperty())
    if table.comment:
        props.append(exp.SchemaCommentProperty(this=exp.Literal.string(table.comment)))
    if table.partitioned_by:
        props.append(exp.PartitionedByProperty(this=exp.Schema(expressions=[_ident(k) for k in table.partitioned_by])))
    options = table.masked_options() if masked else table.options
    if options:
        props.append(
            nodes.WithOptions(
                expressions=[exp.Property(this=exp.Literal.string(k), value=exp.Literal.string(v)) for k, v in options.items()]
            )
        )
    return exp.Create(
        this=exp.Schema(this=exp.Table(this=_ident(table.name)), expressions=items),
        kind="TABLE",
        properties=exp.Properties(expressions=props) if props else None,
    )


def show_create_table(table: TableDef) -> str:
    """The DDL of a table, secrets masked, in the canonical layout."""
    return create_table_tree(table).sql(dialect=Flink, pretty=True) + ";"


def show_create_view(view: ViewDef) -> str:
    query = sqlglot.parse_one(view.query, read=Flink)
    target: exp.Expr = exp.Table(this=_ident(view.name))
    if view.column_names:
        target = exp.Schema(this=target, expressions=[_ident(c) for c in view.column_names])
    props: list[exp.Expr] = [exp.TemporaryProperty()] if view.temporary else []
    if view.comment:
        props.append(exp.SchemaCommentProperty(this=exp.Literal.string(view.comment)))
    create = exp.Create(
        this=target, kind="VIEW", expression=query, properties=exp.Properties(expressions=props) if props else None
    )
    return create.sql(dialect=Flink, pretty=True) + ";"
