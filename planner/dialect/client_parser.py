"""The SQL client's statements (SHOW, DESCRIBE, SET, RESET, EXPLAIN, STOP JOB, USE, HELP, QUIT),
dispatched on the statement's first word before sqlglot's own statement parsers."""

from __future__ import annotations

from sqlglot import TokenType, exp

from planner.dialect import nodes
from planner.dialect.parser_base import ParserBase

SHOW_KINDS = (
    "TABLES",
    "VIEWS",
    "FUNCTIONS",
    "USER FUNCTIONS",
    "JOBS",
    "CATALOGS",
    "DATABASES",
    "MODULES",
    "FULL MODULES",
    "CURRENT CATALOG",
    "CURRENT DATABASE",
    "JARS",
)

EXPLAIN_DETAILS = ("ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN")


class ClientStatementsMixin(ParserBase):
    """Mixed into FlinkParser; uses sqlglot's parser helpers."""

    CLIENT_STATEMENTS = {
        "SHOW": lambda self: self._parse_show_statement(),
        "DESCRIBE": lambda self: self._parse_describe_statement(),
        "DESC": lambda self: self._parse_describe_statement(),
        "SET": lambda self: self._parse_set_option(),
        "RESET": lambda self: self._parse_reset_option(),
        "EXPLAIN": lambda self: self._parse_explain(),
        "STOP": lambda self: self._parse_stop_job(),
        "USE": lambda self: self._parse_use_statement(),
        "HELP": lambda self: self._parse_client_command("HELP"),
        "QUIT": lambda self: self._parse_client_command("QUIT"),
        "EXIT": lambda self: self._parse_client_command("QUIT"),
        "CLEAR": lambda self: self._parse_client_command("CLEAR"),
    }

    def _parse_statement(self) -> exp.Expr | None:
        curr = self._curr
        if curr is not None and curr.token_type not in (TokenType.STRING, TokenType.IDENTIFIER):
            handler = self.CLIENT_STATEMENTS.get(curr.text.upper())
            if handler is not None:
                comments = curr.comments
                self._advance()
                stmt: exp.Expr = handler(self)
                if comments:
                    stmt.add_comments(comments, prepend=True)
                return stmt
        start = self._index
        parsed = super()._parse_statement()
        if (
            parsed is not None
            and curr is not None
            and curr.token_type not in self.STATEMENT_PARSERS
            and self._at_end()  # otherwise the token after the expression is the error
            and not isinstance(parsed, (exp.Query, exp.Values))
        ):
            # sqlglot takes any expression as a statement (`db1`, `SELEC x` as `SELEC AS x`)
            if curr.token_type == TokenType.END:
                self.raise_error("`END` without `BEGIN STATEMENT SET;` before it", curr)
            self.raise_error(
                f"`{curr.text}` does not start a statement: expected SELECT, INSERT, CREATE, ALTER, DROP, "
                "SET, SHOW, EXPLAIN, ...",
                self._tokens[start],
            )
        return parsed

    def _parse_client_command(self, name: str) -> nodes.ClientCommand:
        return self.expression(nodes.ClientCommand(this=name))

    def _parse_show_statement(self) -> nodes.ShowStatement:
        if self._match(TokenType.CREATE):
            if not self._match_texts(("TABLE", "VIEW", "FUNCTION", "CATALOG")):
                self.raise_error("Expected TABLE, VIEW, FUNCTION or CATALOG after SHOW CREATE")
            kind = f"CREATE {self._prev.text.upper()}"
            return self.expression(
                nodes.ShowStatement(this=kind, target=self._parse_table_parts(schema=True))
            )
        if self._match_texts(("COLUMNS", "PARTITIONS")):
            kind = self._prev.text.upper()
            self._match_texts(("FROM", "IN"))
            target = self._parse_table_parts(schema=True)
            partition = None
            if kind == "PARTITIONS" and self._match_text_seq("PARTITION"):
                partition = self._parse_wrapped_csv(self._parse_disjunction)
            show = self._finish_show(kind, target)
            show.set("partition", partition)
            return show
        if self._match_text_seq("STATE"):  # ours: a job's state, read from its checkpoint
            ref = self._parse_string()
            if ref is None:
                self.raise_error("Expected a job id or checkpoint name, a quoted string, after SHOW STATE")
            return self.expression(nodes.ShowStatement(this="STATE", target=ref))
        for phrase in sorted(SHOW_KINDS, key=len, reverse=True):
            if self._match_text_seq(*phrase.split()):
                target = None
                if self._match_texts(("FROM", "IN")):
                    target = self._parse_table_parts(schema=True)
                return self._finish_show(phrase, target)
        self.raise_error("Expected TABLES, VIEWS, FUNCTIONS, JOBS, STATE or CREATE TABLE|VIEW after SHOW")

    def _finish_show(self, kind: str, target: exp.Expr | None) -> nodes.ShowStatement:
        args: dict[str, object] = {"this": kind, "target": target}
        if self._match_text_seq("NOT", "LIKE") or self._match_text_seq("NOT", "ILIKE"):
            args["not_like"] = True
            args["like"] = self._expect(self._parse_string(), "Expected a pattern, a quoted string, after LIKE")
        elif self._match_texts(("LIKE", "ILIKE")):
            args["like"] = self._expect(self._parse_string(), "Expected a pattern, a quoted string, after LIKE")
        return self.expression(nodes.ShowStatement(**args))

    def _parse_describe_statement(self) -> nodes.DescribeStatement:
        if self._match_text_seq("JOB"):
            return self.expression(
                nodes.DescribeStatement(this=self._parse_string() or self._parse_id_var(), kind="JOB")
            )
        kind = self._match_texts(("CATALOG", "TABLE", "VIEW", "FUNCTION")) and self._prev.text.upper()
        extended = self._match_text_seq("EXTENDED")
        target = self._parse_table_parts(schema=True)
        return self.expression(
            nodes.DescribeStatement(this=target, kind=kind or None, extended=extended or None)
        )

    def _parse_set_option(self) -> nodes.SetOption:
        # Flink: `SET` alone, or `SET 'key' = 'value'` with both quoted
        if self._at_end():
            return self.expression(nodes.SetOption())
        key = self._parse_quoted_option("key", "SET 'key' = 'value'")
        if not self._match(TokenType.EQ):
            self.raise_error("Expected '=' in SET 'key' = 'value'")
        value = self._parse_quoted_option("value", "SET 'key' = 'value'")
        return self.expression(nodes.SetOption(this=key, value=value))

    def _parse_reset_option(self) -> nodes.ResetOption:
        # Flink: `RESET` alone, or `RESET 'key'`
        if self._at_end():
            return self.expression(nodes.ResetOption())
        return self.expression(nodes.ResetOption(this=self._parse_quoted_option("key", "RESET 'key'")))

    def _parse_explain(self) -> nodes.Explain:
        plan_for = self._match_text_seq("PLAN", "FOR")
        details: list[str] = []
        while not plan_for and self._match_texts(EXPLAIN_DETAILS):
            details.append(self._prev.text.upper())
            if not self._match(TokenType.COMMA):
                break
        if self._curr is not None and self._curr.text.upper() == "EXPLAIN":
            self.raise_error("Unexpected `EXPLAIN`: EXPLAIN takes a query, an INSERT or a statement set")
        stmt = self._parse_statement()
        if stmt is None:
            self.raise_error("Expected a statement to explain")
        return self.expression(
            nodes.Explain(this=stmt, details=details or None, plan_for=plan_for or None)
        )

    def _parse_stop_job(self) -> nodes.StopJob:
        if not self._match_text_seq("JOB"):
            self.raise_error("Expected JOB after STOP (STOP JOB 'id')")
        job = self._parse_string()
        if job is None:
            self.raise_error("Expected the job id as a quoted string: STOP JOB 'id'")
        savepoint = drain = None
        while self._match(TokenType.WITH):
            if self._match_text_seq("SAVEPOINT"):
                savepoint = True
            elif self._match_text_seq("DRAIN"):
                drain = True
            else:
                self.raise_error("Expected SAVEPOINT or DRAIN after WITH")
        return self.expression(nodes.StopJob(this=job, savepoint=savepoint, drain=drain))

    def _parse_use_statement(self) -> nodes.UseStatement:
        if self._match_text_seq("MODULES"):
            return self.expression(
                nodes.UseStatement(kind="MODULES", expressions=self._parse_csv(self._parse_id_var))
            )
        kind = self._match_text_seq("CATALOG") and "CATALOG"
        return self.expression(
            nodes.UseStatement(this=self._parse_table_parts(schema=True), kind=kind or None)
        )
