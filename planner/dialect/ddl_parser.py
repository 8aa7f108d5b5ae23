"""Flink's DDL as a parser mixin: CREATE TABLE (physical, computed, metadata and watermark
columns, ``PRIMARY KEY .. NOT ENFORCED``, ``PARTITIONED BY``, ``DISTRIBUTED BY``, ``WITH`` options,
``LIKE``), CREATE VIEW / FUNCTION / CATALOG, DROP and ALTER."""

from __future__ import annotations

from sqlglot import TokenType, exp

from planner.dialect import nodes
from planner.dialect.parser_base import ParserBase


class DdlMixin(ParserBase):
    """Mixed into FlinkParser; uses sqlglot's parser helpers."""

    def _parse_flink_create(self) -> exp.Expr:
        start_index = self._index
        replace = self._match_pair(TokenType.OR, TokenType.REPLACE)
        temporary = self._match(TokenType.TEMPORARY)
        system = bool(temporary and self._match_text_seq("SYSTEM"))
        if self._match(TokenType.TABLE):
            return self._parse_create_table(temporary=bool(temporary), replace=bool(replace))
        if self._match(TokenType.VIEW):
            return self._parse_create_view(temporary=bool(temporary), replace=bool(replace))
        if self._match(TokenType.FUNCTION):
            return self._parse_create_function(temporary=bool(temporary), system=system)
        if not temporary and not replace and self._match_texts(("CATALOG", "DATABASE")):
            return self._parse_create_catalog(self._prev.text.upper())
        self._retreat(start_index)
        self.raise_error("Expected TABLE, VIEW, FUNCTION, CATALOG or DATABASE after CREATE")

    def _parse_replace_table(self) -> exp.Create:
        if not self._match(TokenType.TABLE):
            self.raise_error("Expected TABLE after REPLACE (REPLACE TABLE t AS SELECT ...)")
        create = self._parse_create_table(temporary=False, replace=True)
        props = create.args.get("properties") or exp.Properties(expressions=[])
        props.append("expressions", nodes.ReplaceOnlyProperty())
        create.set("properties", props)
        return create

    def _parse_create_catalog(self, kind: str) -> nodes.CreateCatalog:
        exists = self._parse_exists(not_=True)
        name = self._parse_table_parts(schema=True)
        comment = self._match(TokenType.COMMENT) and self._parse_string()
        options = self._match(TokenType.WITH) and self._parse_with_options()
        return self.expression(
            nodes.CreateCatalog(
                this=name, kind=kind, exists=exists or None, comment=comment or None, options=options or None
            )
        )

    def _parse_create_table(self, temporary: bool, replace: bool) -> exp.Create:
        exists = self._parse_exists(not_=True)
        table = self._expect(self._parse_table_parts(schema=True), "Expected the table's name")
        this: exp.Expr = table
        if self._match(TokenType.L_PAREN, advance=False):
            self._advance()
            items = self._parse_csv(self._parse_schema_item)
            self._match_r_paren()
            this = self.expression(exp.Schema(this=table, expressions=items))

        props: list[exp.Expr] = []
        if temporary:
            props.append(exp.TemporaryProperty())
        while True:
            if self._match(TokenType.COMMENT):
                props.append(self.expression(exp.SchemaCommentProperty(this=self._parse_string())))
            elif self._match_text_seq("DISTRIBUTED"):
                props.append(self._parse_distribution())
            elif self._match(TokenType.PARTITION_BY) or self._match_text_seq("PARTITIONED", "BY"):
                cols = self._parse_wrapped_csv(self._parse_id_var)
                props.append(
                    self.expression(
                        exp.PartitionedByProperty(this=exp.Schema(expressions=cols))
                    )
                )
            elif self._match(TokenType.WITH):
                props.append(self._parse_with_options())
            elif self._match(TokenType.LIKE):
                props.append(self._parse_like_clause())
            else:
                break

        expression = None
        if self._match(TokenType.ALIAS):
            expression = self._parse_select(nested=True) or self._parse_set_operations(None)
            if expression is None:
                self.raise_error("Expected a query after AS")
        return self._create(this, "TABLE", exists, replace, props, expression)

    def _parse_distribution(self) -> nodes.DistributedBy:
        # after DISTRIBUTED / DISTRIBUTION: BY [HASH|RANGE|..](cols) [INTO n BUCKETS] | INTO n BUCKETS
        kind = cols = buckets = None
        if self._match_text_seq("BY"):
            if self._curr.token_type != TokenType.L_PAREN:
                kind = self._parse_var(any_token=True, upper=True)
            cols = self._parse_wrapped_csv(self._parse_id_var)
        if self._match(TokenType.INTO):
            buckets = self._parse_number()
            if not self._match_text_seq("BUCKETS"):
                self.raise_error("Expected BUCKETS after INTO n")
        if cols is None and buckets is None:
            self.raise_error("Expected BY (columns) or INTO n BUCKETS")
        return self.expression(nodes.DistributedBy(kind=kind, expressions=cols, buckets=buckets))

    def _parse_partition_spec(self) -> nodes.PartitionSpec:
        spec = self._parse_wrapped_csv(self._parse_disjunction)
        options = self._match(TokenType.WITH) and self._parse_with_options()
        return self.expression(nodes.PartitionSpec(expressions=spec, options=options or None))

    def _parse_with_options(self) -> nodes.WithOptions:
        self._match_l_paren()
        options = self._parse_csv(self._parse_option)
        self._match_r_paren()
        return self.expression(nodes.WithOptions(expressions=options))

    def _parse_option(self) -> exp.Property | None:
        # 'key' = 'value', both quoted (Flink's parser takes no other form)
        if self._at_end() or self._curr.token_type in (TokenType.R_PAREN, TokenType.COMMA):
            return None
        key = self._parse_quoted_option("key", "'key' = 'value'")
        if not self._match(TokenType.EQ):
            self.raise_error("Expected '=' between an option's key and its value")
        value = self._parse_quoted_option("value", "'key' = 'value'")
        return self.expression(exp.Property(this=key, value=value))

    def _parse_like_clause(self) -> nodes.LikeClause:
        source = self._parse_table_parts(schema=True)
        options = None
        if self._match(TokenType.L_PAREN):
            options = self._parse_csv(self._parse_like_option)
            self._match_r_paren()
        return self.expression(nodes.LikeClause(this=source, expressions=options))

    def _parse_like_option(self) -> nodes.LikeOption | None:
        if not self._match_texts(("INCLUDING", "EXCLUDING", "OVERWRITING")):
            return None
        kind = self._prev.text.upper()
        if not self._match_texts(
            ("ALL", "CONSTRAINTS", "DISTRIBUTION", "GENERATED", "METADATA", "OPTIONS", "PARTITIONS", "WATERMARKS")
        ):
            self.raise_error("Expected ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS or WATERMARKS")
        return self.expression(nodes.LikeOption(this=self._prev.text.upper(), kind=kind))

    def _parse_schema_item(self) -> exp.Expr | None:
        if self._match_text_seq("WATERMARK"):
            if not self._match(TokenType.FOR):
                self.raise_error("Expected FOR after WATERMARK (WATERMARK FOR ts AS ts - INTERVAL ...)")
            column = self._parse_column()
            if not self._match(TokenType.ALIAS):
                self.raise_error("Expected AS after the watermark's time column")
            return self.expression(
                exp.WatermarkColumnConstraint(this=column, expression=self._parse_disjunction())
            )
        name = None
        if self._match(TokenType.CONSTRAINT):
            name = self._parse_id_var()
        if self._match(TokenType.PRIMARY_KEY):
            cols = self._parse_wrapped_csv(self._parse_id_var)
            return self.expression(
                exp.PrimaryKey(this=name, expressions=cols, options=self._parse_enforced())
            )
        if name is not None:
            self.raise_error("Expected PRIMARY KEY after CONSTRAINT name")
        return self._parse_flink_column_def()

    def _parse_enforced(self) -> list[str] | None:
        if self._match_text_seq("NOT", "ENFORCED"):
            return ["NOT ENFORCED"]
        if self._match_text_seq("ENFORCED"):
            return ["ENFORCED"]
        return None

    def _parse_flink_column_def(self) -> exp.ColumnDef:
        name = self._parse_id_var(any_token=True)
        if name is None:
            self.raise_error("Expected a column name")
        constraints: list[exp.Expr] = []
        kind = None
        if self._match(TokenType.ALIAS):
            computed = exp.ComputedColumnConstraint(this=self._parse_disjunction())
            constraints.append(self.expression(exp.ColumnConstraint(kind=computed)))
        else:
            kind = self._parse_types(schema=True)
            if kind is None:
                self.raise_error(f"Expected a data type for column {name.name}")
        while True:
            if self._match_text_seq("METADATA"):
                key = self._match(TokenType.FROM) and self._parse_string()
                virtual = self._match_text_seq("VIRTUAL")
                constraint: exp.Expr = nodes.MetadataColumnConstraint(this=key or None, virtual=virtual or None)
            elif self._match_pair(TokenType.NOT, TokenType.NULL):
                constraint = exp.NotNullColumnConstraint()
            elif self._match(TokenType.NULL):
                constraint = exp.NotNullColumnConstraint(allow_null=True)
            elif self._match(TokenType.PRIMARY_KEY):
                constraint = exp.PrimaryKeyColumnConstraint(options=self._parse_enforced())
            elif self._match(TokenType.COMMENT):
                constraint = exp.CommentColumnConstraint(this=self._parse_string())
            else:
                break
            constraints.append(self.expression(exp.ColumnConstraint(kind=constraint)))
        position = None
        if self._match_texts(("FIRST", "AFTER")):
            where = self._prev.text.upper()
            after = self._parse_column() if where == "AFTER" else None
            position = self.expression(exp.ColumnPosition(this=after, position=where))
        return self.expression(
            exp.ColumnDef(this=name, kind=kind, constraints=constraints or None, position=position)
        )

    def _parse_create_view(self, temporary: bool, replace: bool) -> exp.Create:
        exists = self._parse_exists(not_=True)
        table = self._expect(self._parse_table_parts(schema=True), "Expected the view's name")
        this: exp.Expr = table
        if self._match(TokenType.L_PAREN):
            cols = self._parse_csv(self._parse_id_var)
            self._match_r_paren()
            this = self.expression(exp.Schema(this=table, expressions=cols))
        props: list[exp.Expr] = [exp.TemporaryProperty()] if temporary else []
        if self._match(TokenType.COMMENT):
            props.append(self.expression(exp.SchemaCommentProperty(this=self._parse_string())))
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expected AS and the view's query")
        query = self._parse_select(nested=True)
        if query is None:
            self.raise_error("Expected the view's query after AS")
        query = self._parse_set_operations(query)
        return self._create(this, "VIEW", exists, replace, props, query)

    def _parse_create_function(self, temporary: bool, system: bool) -> nodes.CreateFunction:
        exists = self._parse_exists(not_=True)
        name = self._parse_table_parts(schema=True)
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expected AS 'class.Name' after the function name")
        class_name = self._parse_string()
        if class_name is None:
            self.raise_error("Expected the function's class name as a quoted string")
        language = self._match_text_seq("LANGUAGE") and self._parse_var(upper=True)
        jars = None
        if self._match_text_seq("USING"):
            jars = self._parse_csv(lambda: self._match_text_seq("JAR") and self._parse_string())
        return self.expression(
            nodes.CreateFunction(
                this=name,
                class_name=class_name,
                language=language or None,
                temporary=temporary or None,
                system=system or None,
                exists=exists or None,
                jars=jars,
            )
        )

    # -- DROP / ALTER --------------------------------------------------------------------------

    def _parse_flink_drop(self) -> exp.Expr:
        index = self._index
        temporary = self._match(TokenType.TEMPORARY)
        system = bool(temporary and self._match_text_seq("SYSTEM"))
        if self._match(TokenType.FUNCTION):
            exists = self._parse_exists()
            return self.expression(
                nodes.DropFunction(
                    this=self._parse_table_parts(schema=True),
                    temporary=bool(temporary) or None,
                    system=system or None,
                    exists=exists or None,
                )
            )
        if not temporary and self._match_texts(("CATALOG", "DATABASE")):
            kind = self._prev.text.upper()
            exists = self._parse_exists()
            name = self._parse_table_parts(schema=True)
            cascade = self._match_texts(("CASCADE", "RESTRICT")) and self._prev.text.upper()
            return self.expression(
                nodes.DropCatalog(this=name, kind=kind, exists=exists or None, cascade=cascade or None)
            )
        self._retreat(index)
        return self._parse_drop()

    def _parse_flink_alter(self) -> exp.Expr:
        if not self._match_set((TokenType.TABLE, TokenType.VIEW)) and not self._match_texts(("CATALOG",)):
            self.raise_error("Expected TABLE, VIEW or CATALOG after ALTER")
        kind = self._prev.text.upper()
        exists = self._parse_exists()
        this = self._parse_table_parts(schema=True)
        args: dict[str, object] = {"this": this, "kind": kind, "exists": exists or None}
        if self._match_text_seq("RENAME", "TO"):
            args.update(action="RENAME", expression=self._parse_table_parts(schema=True))
        elif self._match_text_seq("RENAME"):
            old = self._parse_id_var()
            if not self._match_text_seq("TO"):
                self.raise_error("Expected TO in RENAME old TO new")
            args.update(action="RENAME COLUMN", expressions=[old, self._parse_id_var()])
        elif self._match(TokenType.SET):
            self._match_l_paren()
            args.update(action="SET", expressions=self._parse_csv(self._parse_option))
            self._match_r_paren()
        elif self._match_text_seq("RESET"):
            self._match_l_paren()
            args.update(action="RESET", expressions=self._parse_csv(self._parse_string))
            self._match_r_paren()
        elif self._match_texts(("ADD", "MODIFY")):
            args.update(action=self._prev.text.upper(), expressions=self._parse_alter_items())
        elif self._match(TokenType.DROP):
            if self._match_text_seq("WATERMARK"):
                args.update(action="DROP", target="WATERMARK")
            elif self._match(TokenType.PRIMARY_KEY):
                args.update(action="DROP", target="PRIMARY KEY")
            elif self._match_text_seq("DISTRIBUTION"):
                args.update(action="DROP", target="DISTRIBUTION")
            elif self._match_text_seq("PARTITION"):
                specs: list[exp.Expr] = [self._parse_partition_spec()]
                while self._match(TokenType.COMMA) and self._match_text_seq("PARTITION"):
                    specs.append(self._parse_partition_spec())
                args.update(action="DROP", expressions=specs)
            elif self._match(TokenType.L_PAREN):
                cols = self._parse_csv(self._parse_id_var)
                self._match_r_paren()
                args.update(action="DROP", expressions=cols)
            else:
                args.update(action="DROP", expressions=[self._parse_id_var()])
        elif kind == "VIEW" and self._match(TokenType.ALIAS):
            query = self._parse_set_operations(self._parse_select(nested=True))
            args.update(action="AS", expression=query)
        elif self._match(TokenType.COMMENT):
            args.update(action="COMMENT", expression=self._parse_string())
        else:
            self.raise_error(
                f"Expected RENAME TO, SET (...), RESET (...), ADD, MODIFY, DROP or AS after ALTER {kind}"
            )
        return self.expression(nodes.AlterTable(**args))

    def _parse_alter_items(self) -> list[exp.Expr]:
        if self._match_text_seq("DISTRIBUTION"):
            return [self._parse_distribution()]
        if self._match_text_seq("PARTITION"):
            specs: list[exp.Expr] = [self._parse_partition_spec()]
            while self._match_text_seq("PARTITION"):
                specs.append(self._parse_partition_spec())
            return specs
        if self._match(TokenType.L_PAREN):
            items = self._parse_csv(self._parse_schema_item)
            self._match_r_paren()
            return items
        return [self._expect(self._parse_schema_item(), "Expected a column, WATERMARK or PRIMARY KEY")]

    def _create(
        self, this: exp.Expr | None, kind: str, exists: bool | None, replace: bool, props: list[exp.Expr], expression: exp.Expr | None
    ) -> exp.Create:
        properties = exp.Properties(expressions=props) if props else None
        return self.expression(
            exp.Create(this=this, kind=kind, exists=exists, replace=replace, properties=properties, expression=expression)
        )
