"""Flink SQL text from a tree: the inverse of FlinkParser (parse -> generate -> parse is stable).

With ``pretty=True`` this is the canonical style of ``sqlengine fmt``: keywords upper case, one
clause per line, one column or option per line with the ``=`` of options aligned.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.generator import Generator

from planner.dialect import json_syntax, nodes
from planner.dialect.functions import is_flink_function
from planner.dialect.match_recognize import FlinkMatchRecognize


class FlinkGenerator(Generator):
    TABLE_HINTS = False  # printed right after the table name by table_sql below
    QUERY_HINTS = True
    NVL2_SUPPORTED = False
    LIMIT_FETCH = "LIMIT"
    INTERVAL_ALLOWS_PLURAL_FORM = True
    SUPPORTS_TO_NUMBER = False
    PARAMETER_TOKEN = "$"
    INSERT_OVERWRITE = " OVERWRITE"  # Flink: INSERT OVERWRITE t ..., no TABLE keyword
    SUPPORTS_BETWEEN_FLAGS = True  # BETWEEN SYMMETRIC stays, not an OR of two BETWEENs

    TYPE_MAPPING = {
        **Generator.TYPE_MAPPING,
        exp.DType.STRUCT: "ROW",
        exp.DType.TEXT: "STRING",
        exp.DType.VARBINARY: "VARBINARY",  # BYTES without a length: datatype_sql
        exp.DType.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
        exp.DType.LIST: "MULTISET",
        exp.DType.NCHAR: "CHAR",
        exp.DType.NVARCHAR: "VARCHAR",
    }

    TRANSFORMS = {
        **Generator.TRANSFORMS,
        **json_syntax.TRANSFORMS,
        nodes.Descriptor: lambda self, e: f"DESCRIPTOR({self.expressions(e, flat=True)})",
        nodes.TableFunction: lambda self, e: f"TABLE({self.sql(e, 'this')})",
        nodes.ClientCommand: lambda self, e: e.name,
        exp.Parameter: lambda self, e: f"${{{self.sql(e, 'this')}}}",
        # ARRAY_AGG(x IGNORE NULLS): Flink writes the clause inside the call's parentheses
        exp.IgnoreNulls: lambda self, e: _inside(self.sql(e, "this"), "IGNORE NULLS"),
        exp.RespectNulls: lambda self, e: _inside(self.sql(e, "this"), "RESPECT NULLS"),
        exp.Mod: lambda self, e: self.func("MOD", e.this, e.expression),
        exp.RegexpExtract: lambda self, e: self.func("REGEXP_EXTRACT", e.this, e.expression, e.args.get("group")),
        exp.CurrentTimestamp: lambda self, e: self.func("CURRENT_TIMESTAMP", e.this) if e.this else "CURRENT_TIMESTAMP",
        exp.Length: lambda self, e: self.func("CHAR_LENGTH", e.this, e.args.get("binary"), e.args.get("encoding")),
        # Flink's IF(condition, true_value, false_value), not sqlglot's CASE WHEN rewrite
        exp.If: lambda self, e: self.func("IF", e.this, e.args.get("true"), e.args.get("false")),
        exp.VariancePop: lambda self, e: self.func("VAR_POP", e.this),
        exp.StrPosition: lambda self, e: (
            f"POSITION({self.sql(e, 'substr')} IN {self.sql(e, 'this')})"
            if not e.args.get("position")
            else self.func("LOCATE", e.args.get("substr"), e.this, e.args.get("position"))
        ),
        # the value constructors ARRAY[a, b] and MAP[k1, v1, ...], as Flink writes them (sqlglot
        # writes ARRAY(a, b), Flink's form for a subquery only, and MAP(ARRAY(keys), ARRAY(values)))
        exp.Array: lambda self, e: (
            f"ARRAY({self.expressions(e, flat=True)})" if len(e.expressions) == 1 and isinstance(e.expressions[0], exp.Query) and not isinstance(e.expressions[0], exp.Subquery)
            else f"ARRAY[{self.expressions(e, flat=True)}]"
        ),
        exp.VarMap: lambda self, e: "MAP[" + ", ".join(
            f"{self.sql(k)}, {self.sql(v)}" for k, v in zip(e.args["keys"].expressions, e.args["values"].expressions, strict=True)
        ) + "]",
        exp.WatermarkColumnConstraint: lambda self, e: (
            f"WATERMARK FOR {self.sql(e, 'this')} AS {self.sql(e, 'expression')}"
        ),
    }

    def maybe_comment(
        self, sql: str, expression: exp.Expr | None = None, comments: list[str] | None = None, separated: bool = False
    ) -> str:
        # In pretty output a comment on its own line before a statement keeps the `--` form;
        # anywhere else a comment must stay /* */ since code may follow it on the same line.
        own_line = separated or isinstance(expression, self.WITH_SEPARATED_COMMENTS)
        source = (expression.comments if expression is not None else None) if comments is None else comments
        if self.pretty and own_line and self.comments and source and all("\n" not in c for c in source if c):
            lines = [f"--{c.rstrip()}" if c.startswith(" ") else f"-- {c.strip()}" for c in source if c]
            if isinstance(expression, self.EXCLUDE_COMMENTS) or not lines:
                return sql
            block = "\n".join(lines)
            return f"\n{block}{sql}" if sql and sql[0].isspace() else f"{block}\n{sql}"
        return super().maybe_comment(sql, expression, comments, separated)

    # -- types and columns ---------------------------------------------------------------------

    def datatype_sql(self, expression: exp.DataType) -> str:
        # each type as Flink's parser reads it back: VARBINARY(n) (BYTES takes no length),
        # INTERVAL DAY(2) TO SECOND(3), RAW('class', 'snapshot'), TIMESTAMP_LTZ(p)
        kind = expression.this
        if isinstance(kind, exp.Interval):
            sql = f"INTERVAL {self.sql(kind, 'unit')}" if kind.args.get("unit") else "INTERVAL"
        elif kind == exp.DType.VARBINARY and not expression.expressions:
            sql = "BYTES"
        else:
            if kind == exp.DType.TIMESTAMPTZ:
                # Flink has no TIMESTAMP WITH TIME ZONE; WITH LOCAL TIME ZONE is TIMESTAMP_LTZ
                expression = expression.copy()
                expression.set("this", exp.DType.TIMESTAMPLTZ)
            sql = super().datatype_sql(expression)
        if expression.args.get("nullable") is False:
            sql = f"{sql} NOT NULL"
        return sql

    def intervalunit_sql(self, expression: nodes.IntervalUnit) -> str:
        return f"{self.sql(expression, 'this')}({self.sql(expression, 'precision')})"

    def columndef_sql(self, expression: exp.ColumnDef, sep: str = " ") -> str:
        name = self.sql(expression, "this")
        kind = self.sql(expression, "kind")
        if isinstance(expression.parent, exp.DataType):
            # a field of ROW<name TYPE [NOT NULL] ['description']>
            parts = [name, kind]
            for c in expression.args.get("constraints") or []:
                inner = c.args.get("kind")
                parts.append(self.sql(inner, "this") if isinstance(inner, exp.CommentColumnConstraint) else self.sql(c))
            return " ".join(p for p in parts if p)
        parts = [name]
        constraints = expression.args.get("constraints") or []
        computed = [c for c in constraints if isinstance(c.args.get("kind"), exp.ComputedColumnConstraint)]
        if computed:
            parts.append(f"AS {self.sql(computed[0].args['kind'], 'this')}")
        elif kind:
            parts.append(kind)
        for c in constraints:
            if c in computed:
                continue
            parts.append(self.sql(c))
        position = expression.args.get("position")
        if position is not None:
            where = position.text("position")
            parts.append(f"AFTER {self.sql(position, 'this')}" if where == "AFTER" else where)
        return " ".join(p for p in parts if p)

    def metadatacolumnconstraint_sql(self, expression: nodes.MetadataColumnConstraint) -> str:
        key = self.sql(expression, "this")
        key = f" FROM {key}" if key else ""
        virtual = " VIRTUAL" if expression.args.get("virtual") else ""
        return f"METADATA{key}{virtual}"

    def notnullcolumnconstraint_sql(self, expression: exp.NotNullColumnConstraint) -> str:
        return "NULL" if expression.args.get("allow_null") else "NOT NULL"

    def primarykey_sql(self, expression: exp.PrimaryKey) -> str:
        name = self.sql(expression, "this")
        name = f"CONSTRAINT {name} " if name else ""
        cols = self.expressions(expression, flat=True)
        options = " ".join(expression.args.get("options") or [])
        return f"{name}PRIMARY KEY ({cols}){' ' + options if options else ''}"

    def primarykeycolumnconstraint_sql(self, expression: exp.PrimaryKeyColumnConstraint) -> str:
        options = " ".join(expression.args.get("options") or [])
        return f"PRIMARY KEY{' ' + options if options else ''}"

    # -- CREATE / ALTER / DROP -----------------------------------------------------------------

    def create_sql(self, expression: exp.Create) -> str:
        kind = expression.text("kind").upper()
        if kind not in ("TABLE", "VIEW"):
            return super().create_sql(expression)
        props = expression.args.get("properties")
        prop_list = props.expressions if props else []
        temporary = any(isinstance(p, exp.TemporaryProperty) for p in prop_list)
        replace_only = any(isinstance(p, nodes.ReplaceOnlyProperty) for p in prop_list)
        head = "REPLACE " if replace_only else "CREATE "
        if expression.args.get("replace") and not replace_only:
            head += "OR REPLACE "
        if temporary:
            head += "TEMPORARY "
        head += kind + " "
        if expression.args.get("exists"):
            head += "IF NOT EXISTS "
        this = expression.this
        if isinstance(this, exp.Schema):
            name = self.sql(this, "this")
            items = [self.sql(item) for item in this.expressions]
            if self.pretty:
                body = f"{name} (" + self.sep("") + self.indent(
                    ("," + self.sep("")).join(items), skip_first=False
                ) + self.sep("") + ")"
            else:
                body = f"{name} ({', '.join(items)})"
        else:
            body = self.sql(this)
        clauses = [head + body]
        for p in prop_list:
            if isinstance(p, (exp.TemporaryProperty, nodes.ReplaceOnlyProperty)):
                continue
            clauses.append(self.sql(p))
        query = expression.args.get("expression")
        if query is not None:
            clauses.append(f"AS{self.sep()}{self.sql(query)}" if self.pretty else f"AS {self.sql(query)}")
        return self.sep().join(clauses)

    def schemacommentproperty_sql(self, expression: exp.SchemaCommentProperty) -> str:
        return f"COMMENT {self.sql(expression, 'this')}"

    def partitionedbyproperty_sql(self, expression: exp.PartitionedByProperty) -> str:
        return f"PARTITIONED BY ({self.expressions(expression.this, flat=True)})"

    def withoptions_sql(self, expression: nodes.WithOptions) -> str:
        pairs = [(self.sql(p, "this"), self.sql(p, "value")) for p in expression.expressions]
        if not self.pretty:
            return "WITH (" + ", ".join(f"{k} = {v}" for k, v in pairs) + ")"
        width = max((len(k) for k, _ in pairs), default=0)
        lines = [f"{k.ljust(width)} = {v}" for k, v in pairs]
        return "WITH (" + self.sep("") + self.indent(("," + self.sep("")).join(lines), skip_first=False) + self.sep("") + ")"

    def distributedby_sql(self, expression: nodes.DistributedBy, keyword: str = "DISTRIBUTED") -> str:
        sql = keyword
        if expression.expressions:
            kind = self.sql(expression, "kind")
            sql += f" BY {kind + ' ' if kind else ''}({self.expressions(expression, flat=True)})"
        buckets = self.sql(expression, "buckets")
        if buckets:
            sql += f" INTO {buckets} BUCKETS"
        return sql

    def partitionspec_sql(self, expression: nodes.PartitionSpec) -> str:
        sql = f"PARTITION ({self.expressions(expression, flat=True)})"
        options = expression.args.get("options")
        return f"{sql} {self.sql(options)}" if options else sql

    def createcatalog_sql(self, expression: nodes.CreateCatalog) -> str:
        exists = " IF NOT EXISTS" if expression.args.get("exists") else ""
        sql = f"CREATE {expression.text('kind')}{exists} {self.sql(expression, 'this')}"
        comment = self.sql(expression, "comment")
        if comment:
            sql += f" COMMENT {comment}"
        options = expression.args.get("options")
        return f"{sql}{self.sep()}{self.sql(options)}" if options else sql

    def dropcatalog_sql(self, expression: nodes.DropCatalog) -> str:
        exists = " IF EXISTS" if expression.args.get("exists") else ""
        cascade = expression.text("cascade")
        return f"DROP {expression.text('kind')}{exists} {self.sql(expression, 'this')}{' ' + cascade if cascade else ''}"

    def likeclause_sql(self, expression: nodes.LikeClause) -> str:
        options = self.expressions(expression, flat=True, sep=" ")
        source = self.sql(expression, "this")
        if not options:
            return f"LIKE {source}"
        if self.pretty:
            opts = [self.sql(o) for o in expression.expressions]
            inner = self.indent(self.sep("").join(opts), skip_first=False)
            return f"LIKE {source} ({self.sep('')}{inner}{self.sep('')})"
        return f"LIKE {source} ({options})"

    def likeoption_sql(self, expression: nodes.LikeOption) -> str:
        return f"{expression.text('kind')} {expression.name}"

    def createfunction_sql(self, expression: nodes.CreateFunction) -> str:
        temporary = " TEMPORARY" if expression.args.get("temporary") else ""
        system = " SYSTEM" if expression.args.get("system") else ""
        exists = " IF NOT EXISTS" if expression.args.get("exists") else ""
        sql = f"CREATE{temporary}{system} FUNCTION{exists} {self.sql(expression, 'this')} AS {self.sql(expression, 'class_name')}"
        language = self.sql(expression, "language")
        if language:
            sql += f" LANGUAGE {language}"
        jars = expression.args.get("jars")
        if jars:
            sql += " USING " + ", ".join(f"JAR {self.sql(j)}" for j in jars)
        return sql

    def dropfunction_sql(self, expression: nodes.DropFunction) -> str:
        temporary = " TEMPORARY" if expression.args.get("temporary") else ""
        system = " SYSTEM" if expression.args.get("system") else ""
        exists = " IF EXISTS" if expression.args.get("exists") else ""
        return f"DROP{temporary}{system} FUNCTION{exists} {self.sql(expression, 'this')}"

    def altertable_sql(self, expression: nodes.AlterTable) -> str:
        exists = " IF EXISTS" if expression.args.get("exists") else ""
        head = f"ALTER {expression.text('kind')}{exists} {self.sql(expression, 'this')}"
        action = expression.text("action")
        items = expression.expressions
        if action == "RENAME":
            return f"{head} RENAME TO {self.sql(expression, 'expression')}"
        if action == "RENAME COLUMN":
            return f"{head} RENAME {self.sql(items[0])} TO {self.sql(items[1])}"
        if action == "SET":
            pairs = ", ".join(f"{self.sql(p, 'this')} = {self.sql(p, 'value')}" for p in items)
            return f"{head} SET ({pairs})"
        if action == "RESET":
            return f"{head} RESET ({self.expressions(expression, flat=True)})"
        if action in ("ADD", "MODIFY"):
            first = items[0] if items else None
            if isinstance(first, nodes.DistributedBy):
                return f"{head} {action} {self.distributedby_sql(first, 'DISTRIBUTION')}"
            if isinstance(first, nodes.PartitionSpec):
                return f"{head} {action} " + " ".join(self.sql(i) for i in items)
            return f"{head} {action} ({self.expressions(expression, flat=True)})"
        if action == "DROP":
            target = expression.text("target")
            if target:
                return f"{head} DROP {target}"
            if items and isinstance(items[0], nodes.PartitionSpec):
                return f"{head} DROP " + ", ".join(self.sql(i) for i in items)
            return f"{head} DROP ({self.expressions(expression, flat=True)})"
        if action == "AS":
            return f"{head} AS{self.sep()}{self.sql(expression, 'expression')}"
        return f"{head} COMMENT {self.sql(expression, 'expression')}"

    # -- queries -------------------------------------------------------------------------------

    def table_sql(self, expression: exp.Table, sep: str = " AS ") -> str:
        hints = expression.args.get("hints")
        if not hints:
            return super().table_sql(expression, sep)
        plain = expression.copy()
        plain.set("hints", None)
        name = self.table_parts(plain)
        hint_sql = " ".join(self.sql(h).strip() for h in hints)
        rest = super().table_sql(plain, sep)
        return f"{name} {hint_sql}{rest[len(name):]}"

    def flinkmatchrecognize_sql(self, expression: FlinkMatchRecognize) -> str:
        sql = self.matchrecognize_sql(expression)
        within = expression.args.get("within")
        if within is None:
            return sql
        pattern = f"PATTERN ({self.sql(expression, 'pattern')})"
        return sql.replace(pattern, f"{pattern} WITHIN {self.sql(within)}", 1)

    def hint_sql(self, expression: exp.Hint) -> str:
        # leading space: sqlglot writes a query hint straight after SELECT; hint names
        # (OPTIONS, STATE_TTL, LOOKUP, BROADCAST ...) in upper case, as Flink documents them
        items = [
            self.func(e.name.upper(), *e.expressions, normalize=False) if isinstance(e, exp.Anonymous) else self.sql(e)
            for e in expression.expressions
        ]
        return f" /*+ {' '.join(items)} */"

    def trim_sql(self, expression: exp.Trim) -> str:
        # Flink's TRIM([BOTH | LEADING | TRAILING] [chars] FROM s); sqlglot would write
        # TRIM(s, chars) or LTRIM(s, chars) (LTRIM and RTRIM calls stay plain calls)
        position = self.sql(expression, "position")
        chars = self.sql(expression, "expression")
        if not position and not chars:
            return self.func("TRIM", expression.this)
        head = " ".join(p for p in (position, chars) if p)
        return f"TRIM({head} FROM {self.sql(expression, 'this')})"

    def anonymous_sql(self, expression: exp.Anonymous) -> str:
        # A built-in's name in upper case; a user function's name exactly as written, since
        # catalog names are case-sensitive (the parser gives a user function that is named like a
        # built-in an Identifier, which is printed as written too).
        name = expression.this
        if isinstance(name, str):
            text = name.upper() if is_flink_function(name) else name
        else:
            text = self.sql(name)
        return self.func(text, *expression.expressions, normalize=False)

    def version_sql(self, expression: exp.Version) -> str:
        return f"FOR SYSTEM_TIME AS OF {self.sql(expression, 'expression')}"

    def tableargument_sql(self, expression: nodes.TableArgument) -> str:
        sql = f"TABLE {self.sql(expression, 'this')}"
        partition = expression.args.get("partition_by")
        if partition:
            sql += " PARTITION BY " + ", ".join(self.sql(p) for p in partition)
        order = self.sql(expression, "order")
        return f"{sql}{' ' + order.strip() if order else ''}"

    def kwarg_sql(self, expression: exp.Kwarg) -> str:
        return f"{self.sql(expression, 'this')} => {self.sql(expression, 'expression')}"

    # -- statement sets and client statements -------------------------------------------------

    def statementset_sql(self, expression: nodes.StatementSet) -> str:
        inner = [self.sql(e) + ";" for e in expression.expressions]
        if expression.args.get("client_form"):
            return "BEGIN STATEMENT SET;\n" + "\n".join(inner) + "\nEND"
        body = "\n".join(self.indent(s, skip_first=False) if self.pretty else s for s in inner)
        return f"EXECUTE STATEMENT SET\nBEGIN\n{body}\nEND"

    def explain_sql(self, expression: nodes.Explain) -> str:
        details = expression.args.get("details") or []
        head = "EXPLAIN PLAN FOR" if expression.args.get("plan_for") else "EXPLAIN"
        if details:
            head += " " + ", ".join(details)
        return f"{head}{self.sep()}{self.sql(expression, 'this')}"

    def showstatement_sql(self, expression: nodes.ShowStatement) -> str:
        sql = f"SHOW {expression.name}"
        target = self.sql(expression, "target")
        if target:
            sql += f" FROM {target}" if expression.name in ("COLUMNS", "FUNCTIONS", "TABLES", "VIEWS", "DATABASES") else f" {target}"
        partition = expression.args.get("partition")
        if partition:
            sql += " PARTITION (" + ", ".join(self.sql(p) for p in partition) + ")"
        like = self.sql(expression, "like")
        if like:
            sql += f" {'NOT ' if expression.args.get('not_like') else ''}LIKE {like}"
        return sql

    def describestatement_sql(self, expression: nodes.DescribeStatement) -> str:
        kind = expression.text("kind")
        extended = " EXTENDED" if expression.args.get("extended") else ""
        return f"DESCRIBE{' ' + kind if kind else ''}{extended} {self.sql(expression, 'this')}"

    def setoption_sql(self, expression: nodes.SetOption) -> str:
        if not expression.this:
            return "SET"
        return f"SET {self.sql(expression, 'this')} = {self.sql(expression, 'value')}"

    def resetoption_sql(self, expression: nodes.ResetOption) -> str:
        return f"RESET {self.sql(expression, 'this')}" if expression.this else "RESET"

    def stopjob_sql(self, expression: nodes.StopJob) -> str:
        sql = f"STOP JOB {self.sql(expression, 'this')}"
        if expression.args.get("savepoint"):
            sql += " WITH SAVEPOINT"
        if expression.args.get("drain"):
            sql += " WITH DRAIN"
        return sql

    def usestatement_sql(self, expression: nodes.UseStatement) -> str:
        if expression.text("kind") == "MODULES":
            return f"USE MODULES {self.expressions(expression, flat=True)}"
        kind = expression.text("kind")
        return f"USE{' ' + kind if kind else ''} {self.sql(expression, 'this')}"


# sqlglot dispatches `<key>_sql` methods only for its own node classes; register ours.
for _node in (*nodes.FLINK_NODES, FlinkMatchRecognize):
    _method = getattr(FlinkGenerator, f"{_node.key}_sql", None)
    if _method is not None:
        FlinkGenerator.TRANSFORMS[_node] = _method


def _inside(call: str, clause: str) -> str:
    return f"{call[:-1]} {clause})" if call.endswith(")") else f"{call} {clause}"
