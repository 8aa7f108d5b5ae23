"""Running statements at the planner level: DDL against the catalog, SET/RESET of settings, SHOW
and DESCRIBE, and planning plus analysis of queries, INSERTs and statement sets.

The shell, ``sqlengine run`` and ``sqlengine lint`` all go through ``PlannerSession.execute``;
only the engine then turns an INSERT's or query's plan into a Spark job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from sqlglot import TokenType, exp

from catalog import Catalog, CatalogError, ObjectNotFound, TableDef, ViewDef
from catalog.secrets import mask_value
from planner import time_zone
from planner.analysis.analyze import RUNTIME_MODE, Analysis, analyze_plans
from planner.binder import Binder
from planner.deep import deep
from planner.dialect import Flink, nodes
from planner.errors import SqlError
from planner.logical.operators import Node
from planner.names import DEFAULT_CATALOG, DEFAULT_DATABASE, object_name
from planner.problems import BindError, DefinitionError, PlanningError, located
from planner.statements.ddl import function_from_create, show_create_table, show_create_view, table_from_create, view_from_create
from planner.statements.ddl_alter import alter_table, alter_view
from planner.statements.script import Statement
from planner.statements.show import BUILTIN_FUNCTIONS, like_filter
from planner.statements.variables import substitute
from planner.udf import PYTHON_FILES, absolute_files, search_path


class Kind(StrEnum):
    QUERY = "query"
    INSERT = "insert"
    STATEMENT_SET = "statement-set"
    DDL = "ddl"
    SET = "set"
    RESET = "reset"
    SHOW = "show"
    DESCRIBE = "describe"
    EXPLAIN = "explain"
    USE = "use"
    JOBS = "jobs"  # SHOW JOBS, DESCRIBE JOB, STOP JOB: answered by the engine
    HELP = "help"
    QUIT = "quit"
    CLEAR = "clear"


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    statement: Statement = field(repr=False)
    tree: exp.Expr = field(repr=False)  # the statement after variable substitution
    message: str | None = None
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[object, ...], ...] = ()
    plans: tuple[Node, ...] = ()
    analysis: Analysis | None = None
    text: str | None = None  # EXPLAIN output, SHOW CREATE output
    # the session's settings when the statement was planned (the runtime mode, 'pipeline.name',
    # 'spark.sql.*'): a job runs as it was planned, whatever is SET later
    settings: dict[str, str] = field(default_factory=dict, repr=False)


# Settings a user may SET, with the values each takes (None: free text); others are kept as given.
KNOWN_SETTINGS: dict[str, tuple[str, ...] | None] = {
    "execution.runtime-mode": ("streaming", "batch"),
    "table.exec.state.ttl": None,
    "sql-client.execution.result-mode": ("table", "changelog", "tableau"),
    "sql-client.execution.max-table-result.rows": None,
    "sql-client.state-warnings": ("ignore", "warn", "error"),
    "pipeline.name": None,
    "state.backend.type": ("hashmap", "rocksdb"),  # Spark's HDFS-backed or RocksDB state store
    # Flink's: the next INSERTs start from this savepoint (until RESET), and may leave the state
    # of operators they no longer have behind
    "execution.savepoint.path": None,
    "execution.savepoint.ignore-unclaimed-state": ("true", "false"),
    # Flink's: the directory jobs keep their checkpoints under (on a cluster, one every machine mounts)
    "execution.checkpointing.dir": None,
    "table.local-time-zone": None,
    "sql-client.display.max-column-width": None,
    # Flink's: the Python files (or directories, zips) the modules of Python functions are imported from
    "python.files": None,
}

DEFAULT_SETTINGS = {
    "execution.runtime-mode": "streaming",
    "sql-client.execution.result-mode": "table",
    "sql-client.state-warnings": "warn",
}


class PlannerSession:
    def __init__(
        self,
        catalog: Catalog,
        settings: dict[str, str] | None = None,
        variables: dict[str, str] | None = None,
        stats: dict[str, dict[str, str]] | None = None,
        horizon_days: int = 30,
        run_user_code: bool = True,
    ):
        """``run_user_code`` False: Python functions are read from their source, never imported
        (lint and EXPLAIN review code without running it)."""
        self.catalog = catalog
        self.run_user_code = run_user_code
        # a setting of known values is kept as SET keeps it (lower case), whoever reads it
        self.settings: dict[str, str] = {k: v.strip().lower() if KNOWN_SETTINGS.get(k) else v
                                         for k, v in {**DEFAULT_SETTINGS, **(settings or {})}.items()}
        self.variables = dict(variables or {})
        self.stats = stats or {}
        self.horizon_days = horizon_days
        # what the engine runs jobs with where no SET says otherwise ('spark.sql.shuffle.partitions'
        # of its --conf or its Spark session): the state estimates count its stores
        self.environment: dict[str, str] = {}
        # every query's result is shown change by change, whatever the result mode ('sqlengine run
        # --changelog'): a job that ends then keeps its streaming run (planner.analysis.one_batch)
        self.results_as_changes = False
        self._script: str | None = None  # the file of the statement being run (Python functions' modules beside it)

    # -- entry ---------------------------------------------------------------------------------

    def execute(self, stmt: Statement) -> Outcome:
        """Run one statement; every failure is a positioned SqlError."""
        self._script = stmt.source.path
        try:
            # ${NAME} is the only syntax with a `$`: most statements need no walk for variables
            tree = deep(substitute, stmt.tree, self.variables) if "$" in stmt.text else stmt.tree
            outcome = deep(self._dispatch, stmt, tree)
            return replace(outcome, settings=dict(self.settings)) if outcome.plans else outcome
        except PlanningError as err:
            raise located(err, stmt.source, stmt.span) from None
        except CatalogError as err:
            raise SqlError(str(err), stmt.source, stmt.span, code="E003") from None

    def _dispatch(self, stmt: Statement, tree: exp.Expr) -> Outcome:
        if isinstance(tree, (exp.Select, exp.Union, exp.Subquery, exp.Values, exp.Intersect, exp.Except)):
            plan = self._binder().plan_query(tree)
            return Outcome(Kind.QUERY, stmt, tree, plans=(plan,), analysis=self.analyze([plan], stmt))
        if isinstance(tree, exp.Insert):
            plan = self._binder().plan_insert(tree)
            return Outcome(Kind.INSERT, stmt, tree, plans=(plan,), analysis=self.analyze([plan], stmt))
        if isinstance(tree, nodes.StatementSet):
            sinks = self._binder().plan_statement_set(tree)
            return Outcome(Kind.STATEMENT_SET, stmt, tree, plans=tuple(sinks), analysis=self.analyze(list(sinks), stmt))
        if isinstance(tree, nodes.Explain):
            inner = Statement(tree.this, stmt.source, stmt.span, stmt.tokens)
            result = self._dispatch(inner, tree.this)
            if result.analysis is None:
                raise BindError("EXPLAIN takes a query, an INSERT or a statement set", tree.this)
            from planner.explain.text import render_explain

            text = render_explain(result.analysis, tree.args.get("details") or ())
            return Outcome(Kind.EXPLAIN, stmt, tree, plans=result.plans, analysis=result.analysis, text=text)
        if isinstance(tree, exp.Create):
            return self._create(stmt, tree)
        if isinstance(tree, nodes.CreateFunction):
            fn = function_from_create(tree)
            if self._script is not None:
                fn = replace(fn, path=str(Path(self._script).resolve().parent))
            created = self.catalog.create(fn, if_not_exists=bool(tree.args.get("exists")))
            return self._info(stmt, tree, "Function has been created." if created else "Function already exists; kept.")
        if isinstance(tree, (nodes.CreateCatalog, nodes.DropCatalog)):
            raise DefinitionError(
                f"sqlengine keeps one catalog and database ({DEFAULT_CATALOG}.{DEFAULT_DATABASE}); "
                f"{tree.text('kind').lower()}s cannot be created or dropped",
                tree,
            )
        if isinstance(tree, exp.Drop):
            return self._drop(stmt, tree)
        if isinstance(tree, nodes.DropFunction):
            name = object_name(tree.this)
            temporary = bool(tree.args.get("temporary"))
            if self.catalog.drop("function", name, if_exists=bool(tree.args.get("exists")), temporary=temporary):
                return self._info(stmt, tree, "Function has been removed.")
            return self._info(stmt, tree, f"{self._absent('function', name, temporary)}; nothing to drop.")
        if isinstance(tree, nodes.AlterTable):
            return self._alter(stmt, tree)
        if isinstance(tree, nodes.SetOption):
            return self._set(stmt, tree)
        if isinstance(tree, nodes.ResetOption):
            if tree.this is None:
                self.settings = dict(DEFAULT_SETTINGS)
                return self._info(stmt, tree, "All session properties have been reset.")
            key = tree.this.name
            if key in DEFAULT_SETTINGS:
                self.settings[key] = DEFAULT_SETTINGS[key]
            else:
                self.settings.pop(key, None)
            return self._info(stmt, tree, f"Session property '{key}' has been reset.", Kind.RESET)
        if isinstance(tree, nodes.ShowStatement):
            return self._show(stmt, tree)
        if isinstance(tree, nodes.DescribeStatement):
            if tree.text("kind") == "JOB":
                return Outcome(Kind.JOBS, stmt, tree)
            return self._describe(stmt, tree)
        if isinstance(tree, nodes.StopJob):
            return Outcome(Kind.JOBS, stmt, tree)
        if isinstance(tree, nodes.UseStatement):
            name = tree.this.sql(dialect=Flink) if tree.this is not None else ""
            if tree.text("kind") == "MODULES" or name.strip("`") in (DEFAULT_CATALOG, DEFAULT_DATABASE, f"{DEFAULT_CATALOG}.{DEFAULT_DATABASE}"):
                return self._info(stmt, tree, "Execute statement succeeded.", Kind.USE)
            raise DefinitionError(f"There is only {DEFAULT_CATALOG}.{DEFAULT_DATABASE}; `{name}` does not exist", tree)
        if isinstance(tree, nodes.ClientCommand):
            return Outcome(Kind(tree.name.lower()), stmt, tree)
        raise BindError("This statement is not supported", tree)

    def _binder(self) -> Binder:
        return Binder(self.catalog, search_path(self.settings, self._script), self.run_user_code)

    def udf_paths(self) -> tuple[str, ...]:
        """Where the modules of Python functions are imported from, for the statement last run."""
        return search_path(self.settings, self._script)

    # -- analysis ------------------------------------------------------------------------------

    def analyze(self, plans: list[Node], stmt: Statement, settings: dict[str, str] | None = None) -> Analysis:
        """Under the session's settings, or ``settings`` (those a statement was planned with)."""
        return analyze_plans(
            plans, {**self.environment, **(self.settings if settings is None else settings)}, stats=self.stats,
            source=stmt.source, span=stmt.span, horizon_days=self.horizon_days, changes_shown=self.results_as_changes,
        )

    def batch_analysis(self, outcome: Outcome) -> Analysis:
        """A planned job's analysis in batch mode, under the settings it was planned with: for a
        bounded job that runs as one batch (planner.analysis.one_batch)."""
        return self.analyze(list(outcome.plans), outcome.statement, {**outcome.settings, RUNTIME_MODE: "batch"})

    # -- DDL -----------------------------------------------------------------------------------

    def _info(self, stmt: Statement, tree: exp.Expr, message: str, kind: Kind = Kind.DDL) -> Outcome:
        return Outcome(kind, stmt, tree, message=message)

    def _create(self, stmt: Statement, tree: exp.Create) -> Outcome:
        kind = tree.text("kind").upper()
        props = tree.args.get("properties")
        replace_only = props is not None and any(isinstance(p, nodes.ReplaceOnlyProperty) for p in props.expressions)
        if kind == "VIEW":
            view = view_from_create(tree)
            plan = self._binder().plan_query(tree.expression.copy())  # validate, with positions in this statement
            if view.column_names and len(view.column_names) != len(plan.fields):
                raise DefinitionError(
                    f"View `{view.name}` names {len(view.column_names)} column{'s' if len(view.column_names) != 1 else ''} "
                    f"but its query has {len(plan.fields)}",
                    tree.this,
                )
            if self._same_definition(view):
                return self._info(stmt, tree, "View already exists with this definition; kept.")
            created = self.catalog.create(view, if_not_exists=bool(tree.args.get("exists")), or_replace=bool(tree.args.get("replace")))
            return self._info(stmt, tree, "View has been created." if created else "View already exists; kept.")
        if kind != "TABLE":
            raise DefinitionError(f"CREATE {kind} is not supported", tree)
        if tree.expression is not None:
            return self._create_table_as(stmt, tree, replace_only)
        table = table_from_create(tree, self.catalog.get_relation)
        if replace_only and self.catalog.get_table(table.name) is None:
            raise DefinitionError(f"REPLACE TABLE: table `{table.name}` does not exist", tree)
        if self._same_definition(table):
            # re-running a file: the same definition again is not an error (its jobs then resume)
            return self._info(stmt, tree, "Table already exists with this definition; kept.")
        created = self.catalog.create(table, if_not_exists=bool(tree.args.get("exists")), or_replace=bool(tree.args.get("replace")))
        return self._info(stmt, tree, "Table has been created." if created else "Table already exists; kept.")

    def _same_definition(self, obj: TableDef | ViewDef) -> bool:
        existing = self.catalog.get_relation(obj.name)
        return existing is not None and existing == obj

    def _create_table_as(self, stmt: Statement, tree: exp.Create, replace_only: bool) -> Outcome:
        """CREATE TABLE t WITH (...) AS SELECT: the schema comes from the query, then an INSERT."""
        from catalog import Column

        query = self._binder().plan_query(tree.expression)
        declared = table_from_create(exp.Create(this=tree.this, kind="TABLE", properties=tree.args.get("properties")), self.catalog.get_relation)
        columns = tuple(Column(f.name, f.type_sql if f.type.this != exp.DType.UNKNOWN else "STRING", nullable=f.nullable) for f in query.fields)
        if declared.columns:
            names = [c.name for c in declared.columns]
            if names != [c.name for c in columns[: len(names)]]:
                raise DefinitionError("The declared columns of CREATE TABLE AS must match the query's columns", tree)
        table = replace(declared, columns=columns)
        if replace_only and self.catalog.get_table(table.name) is None:
            raise DefinitionError(f"REPLACE TABLE: table `{table.name}` does not exist", tree)
        self.catalog.create(table, if_not_exists=bool(tree.args.get("exists")), or_replace=bool(tree.args.get("replace")) or replace_only)
        insert = exp.Insert(this=exp.Table(this=exp.to_identifier(table.name, quoted=True)), expression=tree.expression)
        plan = self._binder().plan_insert(insert)
        return Outcome(Kind.INSERT, stmt, insert, message="Table has been created.", plans=(plan,), analysis=self.analyze([plan], stmt))

    def _drop(self, stmt: Statement, tree: exp.Drop) -> Outcome:
        kind = tree.text("kind").lower()
        if kind not in ("table", "view"):
            raise DefinitionError(f"DROP {kind.upper()} is not supported", tree)
        temporary = bool(tree.args.get("temporary"))
        dropped, absent = [], []
        for target in tree.args.get("tables") or []:
            name = object_name(target)
            if self.catalog.drop(kind, name, if_exists=bool(tree.args.get("exists")), temporary=temporary):
                dropped.append(name)
            else:  # IF EXISTS, and nothing of that name and kind
                absent.append(self._absent(kind, name, temporary))
        if not absent:
            return self._info(stmt, tree, f"{kind.capitalize()}s have been removed." if len(dropped) > 1 else f"{kind.capitalize()} has been removed.")
        if not dropped:
            return self._info(stmt, tree, "; ".join(absent) + "; nothing to drop.")
        removed = ", ".join(f"`{n}`" for n in dropped)
        return self._info(stmt, tree, f"{kind.capitalize()} {removed} {'have' if len(dropped) > 1 else 'has'} been removed; " + "; ".join(a[0].lower() + a[1:] for a in absent) + ".")

    def _absent(self, kind: str, name: str, temporary: bool = False) -> str:
        """Why ``kind`` ``name`` is not there, for the info line of an IF EXISTS that did nothing."""
        if kind != "function":
            other = self.catalog.get_relation(name)
            if other is not None and other.kind != kind:
                return f"`{name}` is a {other.kind}, not a {kind}"
        return f"{'Temporary ' + kind if temporary else kind.capitalize()} `{name}` does not exist"

    def _alter(self, stmt: Statement, tree: nodes.AlterTable) -> Outcome:
        kind = tree.text("kind").lower()
        name = object_name(tree.this)
        action = tree.text("action")
        exists = bool(tree.args.get("exists"))
        if kind == "catalog":
            raise DefinitionError("sqlengine has one catalog; ALTER CATALOG is not supported", tree)
        if kind == "view" and action not in ("AS", "COMMENT", "RENAME"):
            raise DefinitionError(f"ALTER VIEW ... {action} is not supported", tree)
        if kind == "view" and action == "AS":
            self._binder().plan_query(tree.expression)  # the new query must bind
        try:
            if action == "RENAME":
                if not self.catalog.rename(kind, name, object_name(tree.expression), if_exists=exists):
                    return self._info(stmt, tree, f"{self._absent(kind, name)}; nothing to rename.")
                return self._info(stmt, tree, f"{kind.capitalize()} has been renamed.")
            # read, change and write back in one transaction: concurrent ALTERs lose nothing
            change = (lambda v: alter_view(v, tree)) if kind == "view" else (lambda t: alter_table(t, tree))
            if self.catalog.update(kind, name, change, if_exists=exists) is None:
                return self._info(stmt, tree, f"{self._absent(kind, name)}; nothing to alter.")
        except ObjectNotFound:
            raise BindError(f"{kind.capitalize()} `{name}` does not exist", tree.this, self._did_you_mean(name)) from None
        return self._info(stmt, tree, f"{kind.capitalize()} has been altered.")

    # -- SET / SHOW / DESCRIBE -----------------------------------------------------------------

    def _set(self, stmt: Statement, tree: nodes.SetOption) -> Outcome:
        if tree.this is None:
            rows = tuple(sorted((k, mask_value(k, v)) for k, v in self.settings.items()))
            return Outcome(Kind.SET, stmt, tree, columns=("key", "value"), rows=rows)
        key, value = tree.this.name, tree.args["value"].name
        allowed = KNOWN_SETTINGS.get(key)
        if allowed is not None and value.lower() not in allowed:
            raise DefinitionError(f"'{key}' takes one of {', '.join(allowed)}; got '{value}'", tree)
        if key == "table.exec.state.ttl":
            from planner.durations import parse_duration

            try:
                parse_duration(value)
            except ValueError as err:
                raise DefinitionError(str(err), tree) from None
        if key == time_zone.SETTING and time_zone.normalized(value) is None:
            raise DefinitionError(time_zone.INVALID.format(zone=value), tree.args["value"])
        if key == PYTHON_FILES:  # relative to the file that sets it, wherever the functions are called
            value = absolute_files(value, self._script)
        self.settings[key] = value.lower() if allowed else value
        return self._info(stmt, tree, "Session property has been set.", Kind.SET)

    def _show(self, stmt: Statement, tree: nodes.ShowStatement) -> Outcome:
        what = tree.name.upper()
        like = tree.args.get("like")
        keep = like_filter(
            like.name if like is not None else None,
            negate=bool(tree.args.get("not_like")),
            ignore_case=any(t.token_type == TokenType.ILIKE for t in stmt.tokens),  # [NOT] ILIKE
        )
        if what in ("TABLES", "VIEWS", "FUNCTIONS", "USER FUNCTIONS"):
            kind = {"TABLES": "table", "VIEWS": "view"}.get(what, "function")
            names = self.catalog.names(kind)
            if what == "TABLES":
                names = sorted(set(names) | set(self.catalog.names("view")))  # Flink lists views too
            if what == "FUNCTIONS":  # the built-in and the user functions, as in Flink
                names = sorted(set(names) | set(BUILTIN_FUNCTIONS))
            col = {"TABLES": "table name", "VIEWS": "view name"}.get(what, "function name")
            return Outcome(Kind.SHOW, stmt, tree, columns=(col,), rows=tuple((n,) for n in names if keep(n)))
        if what in ("CREATE TABLE", "CREATE VIEW"):
            name = object_name(tree.args["target"])
            obj = self.catalog.get_relation(name)
            if obj is None:
                raise BindError(f"`{name}` does not exist", tree.args["target"], self._did_you_mean(name))
            text = show_create_table(obj) if isinstance(obj, TableDef) else show_create_view(obj)
            return Outcome(Kind.SHOW, stmt, tree, text=text)
        if what == "COLUMNS":
            outcome = self._describe(stmt, nodes.DescribeStatement(this=tree.args["target"]))
            rows = tuple(r for r in outcome.rows if keep(str(r[0])))
            return replace(outcome, kind=Kind.SHOW, tree=tree, rows=rows)
        if what in ("JOBS", "STATE"):
            return Outcome(Kind.JOBS, stmt, tree)
        if what in ("CATALOGS", "CURRENT CATALOG"):
            return Outcome(Kind.SHOW, stmt, tree, columns=("catalog name",), rows=((DEFAULT_CATALOG,),))
        if what in ("DATABASES", "CURRENT DATABASE"):
            return Outcome(Kind.SHOW, stmt, tree, columns=("database name",), rows=((DEFAULT_DATABASE,),))
        if what in ("MODULES", "FULL MODULES"):
            return Outcome(Kind.SHOW, stmt, tree, columns=("module name",), rows=(("core",),))
        raise DefinitionError(f"SHOW {what} is not supported", tree)

    def _did_you_mean(self, name: str) -> str | None:
        s = self.catalog.suggest("table", name)
        return f"did you mean `{s}`?" if s else None

    def _describe(self, stmt: Statement, tree: nodes.DescribeStatement) -> Outcome:
        name = object_name(tree.this)
        obj = self.catalog.get_relation(name)
        if obj is None:
            raise BindError(f"Table or view `{name}` does not exist", tree.this, self._did_you_mean(name))
        columns = ("name", "type", "null", "key", "extras", "watermark")
        rows = []
        if isinstance(obj, ViewDef):
            plan = self._binder().plan_query(exp.maybe_parse(obj.query, dialect=Flink))
            for f, name in zip(plan.fields, obj.column_names or [f.name for f in plan.fields], strict=True):
                f = f.renamed(name)
                attr = f" *{f.time.value.upper()}*" if f.time else ""
                rows.append((f.name, f.type_sql + attr, str(f.nullable).upper(), "", "", ""))
            return Outcome(Kind.DESCRIBE, stmt, tree, columns=columns, rows=tuple(rows))
        wm = obj.watermark
        for c in obj.columns:
            key = f"PRI({', '.join(obj.primary_key)})" if c.name in obj.primary_key else ""
            if c.kind == "computed":
                extras, ctype = f"AS {c.expr}", "(computed)"
                if c.expr and "PROCTIME()" in c.expr.upper():
                    ctype = "TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*"
            elif c.kind == "metadata":
                extras = "METADATA" + (f" FROM '{c.metadata_key}'" if c.metadata_key else "") + (" VIRTUAL" if c.virtual else "")
                ctype = c.type or ""
            else:
                extras, ctype = "", c.type or ""
            if wm is not None and wm.column.strip("`") == c.name:
                ctype += " *ROWTIME*"
            wm_text = wm.expr if wm is not None and wm.column.strip("`") == c.name else ""
            rows.append((c.name, ctype, str(c.nullable).upper(), key, extras, wm_text))
        return Outcome(Kind.DESCRIBE, stmt, tree, columns=columns, rows=tuple(rows))
