"""Flink SQL's grammar as overrides of sqlglot's parser.

Standard SQL stays with sqlglot; this adds Flink DDL (computed, metadata and watermark columns,
``PRIMARY KEY .. NOT ENFORCED``, ``WITH`` options, ``LIKE``), window table functions
(``TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ..))``), table hints after a table name,
``FOR SYSTEM_TIME AS OF``, ``${var}`` variables and the SQL client's statements.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TypeVar

from sqlglot import Token, TokenType, exp
from sqlglot.helper import seq_get
from sqlglot.parsers.base import BaseParser

from planner.dialect import json_syntax, nodes
from planner.dialect.client_parser import ClientStatementsMixin
from planner.dialect.ddl_parser import DdlMixin
from planner.dialect.functions import FLINK_FUNCTIONS, WINDOW_TVFS
from planner.dialect.match_recognize import MatchRecognizeMixin
from planner.dialect.type_parser import TypesMixin

# Flink built-ins that stay plain calls, although sqlglot has a node for the name: the node would
# print another name (DAY_OF_MONTH, STARTS_WITH, SHA, TRUNC, VARIANCE_POP, APPROX_DISTINCT,
# ARRAY_TO_STRING, LOG(10, x), POSITION(..), TRIM(LEADING ..), COALESCE), drop arguments Flink
# takes (ARRAY_SORT, INITCAP, PARSE_JSON) or read them differently (RAND, TIMESTAMPDIFF's unit,
# Oracle's DECODE, CHR(n USING cs)).
_PLAIN_BUILTINS = frozenset(
    {
        "APPROX_COUNT_DISTINCT", "ARRAY_JOIN", "ARRAY_SORT", "CHR", "DAYOFMONTH", "DAYOFWEEK",
        "DAYOFYEAR", "DECODE", "ENDSWITH", "IFNULL", "INITCAP", "INSTR", "LOG10", "LOG2", "LTRIM",
        "PARSE_JSON", "RAND", "RTRIM", "SHA1", "STARTSWITH", "TIMESTAMPDIFF", "TRUNCATE", "VAR_POP",
        "VAR_SAMP",
    }
)


E = TypeVar("E", bound=exp.Expr)


def _closed_parser(parse: Callable[[Any], exp.Expr | None]) -> Callable[[Any], exp.Expr | None]:
    """A special-form call's parser that insists on its closing ')'."""
    return lambda self: self._closed(parse)


def _typed_literal(cast: exp.Cast) -> exp.Cast:
    cast.meta["typed_literal"] = True
    return cast


def _with_unit(name: str, args: list[exp.Expr]) -> exp.Anonymous:
    unit = seq_get(args, 0)
    if isinstance(unit, exp.Column) and not unit.table and not unit.this.quoted:
        args = [exp.var(unit.name.upper()), *args[1:]]
    return exp.Anonymous(this=name, expressions=args)


class FlinkParser(ClientStatementsMixin, DdlMixin, MatchRecognizeMixin, TypesMixin, BaseParser):
    SUPPORTS_TABLE_QUERY = False  # `TABLE t` is a table argument in Flink, not a query
    SUPPORTS_IMPLICIT_UNNEST = False

    VERSION_PHRASES = {("FOR", "SYSTEM_TIME"): "SYSTEM_TIME"}

    # DATE '...', TIME '...', TIMESTAMP '...' are literals, not casts: marked, so that the binder
    # checks their text as Flink's validator does (its parser accepts any string there)
    TYPE_LITERAL_PARSERS = {
        **BaseParser.TYPE_LITERAL_PARSERS,
        **{
            t: lambda self, this, to: _typed_literal(self.expression(exp.Cast(this=this, to=to)))
            for t in (exp.DType.DATE, exp.DType.TIME, exp.DType.TIMESTAMP)
        },
    }

    # Only Flink's built-ins become sqlglot's own nodes. Any other name is a user (catalog)
    # function: a plain exp.Anonymous call with its name as written (sqlglot's SPLIT, LENGTH,
    # NVL ... are not Flink's, and catalog names are case-sensitive).
    FUNCTIONS = {
        **{
            name: build
            for name, build in BaseParser.FUNCTIONS.items()
            if name in FLINK_FUNCTIONS and name not in _PLAIN_BUILTINS
        },
        # Flink: REGEXP_EXTRACT(str, regex[, group]); the third argument is the group index
        "REGEXP_EXTRACT": lambda args: exp.RegexpExtract(
            this=seq_get(args, 0), expression=seq_get(args, 1), group=seq_get(args, 2)
        ),
        # TIMESTAMPADD(unit, n, t) and TIMESTAMPDIFF(unit, a, b): the unit is a word, not a column
        "TIMESTAMPADD": lambda args: _with_unit("TIMESTAMPADD", args),
        "TIMESTAMPDIFF": lambda args: _with_unit("TIMESTAMPDIFF", args),
    }

    FUNCTION_PARSERS = {
        **{
            name: fn
            for name, fn in BaseParser.FUNCTION_PARSERS.items()
            if name in FLINK_FUNCTIONS and name not in _PLAIN_BUILTINS
        },
        "DESCRIPTOR": lambda self: self._parse_descriptor(),
        "TABLE": lambda self: self._parse_table_function(),
        **json_syntax.FUNCTION_PARSERS,
    }
    # sqlglot accepts CAST(a AS INT without its ')' (it closes such calls only if the ')' is
    # there); Flink does not, so every special-form call must end with ')'
    FUNCTION_PARSERS = {
        name: _closed_parser(fn) for name, fn in FUNCTION_PARSERS.items()
    }

    LAMBDAS = {
        **BaseParser.LAMBDAS,
        TokenType.FARROW: lambda self, expressions: self.expression(
            exp.Kwarg(
                this=exp.var(expressions[0].name),
                expression=self._parse_table_argument() or self._parse_disjunction(),
            )
        ),
    }

    NO_PAREN_FUNCTION_PARSERS = {
        name: fn for name, fn in BaseParser.NO_PAREN_FUNCTION_PARSERS.items() if name in ("ANY", "CASE", "IF")
    }

    STATEMENT_PARSERS = {
        **BaseParser.STATEMENT_PARSERS,
        TokenType.CREATE: lambda self: self._parse_flink_create(),
        TokenType.ALTER: lambda self: self._parse_flink_alter(),
        TokenType.DROP: lambda self: self._parse_flink_drop(),
        TokenType.REPLACE: lambda self: self._parse_replace_table(),
    }

    def reset(self) -> None:
        super().reset()
        self._table_hints: dict[int, tuple[exp.Expr, list[exp.Expr]]] = {}
        self._interval_units = 0  # > 0 while sqlglot reads the unit of an interval literal
        self._call_names: list[Token | None] = []  # the name tokens of the function calls being read

    def _parse_interval_span(self, this: exp.Expr, parse_function_unit: bool = True) -> exp.Interval:
        # sqlglot reads a literal's unit with _parse_function; see _parse_function below
        self._interval_units += 1
        start = self._index
        try:
            interval = super()._parse_interval_span(this, parse_function_unit=parse_function_unit)
        finally:
            self._interval_units -= 1
        unit = interval.args.get("unit")
        if isinstance(unit, exp.IntervalSpan) and (_unit_name(unit.this), _unit_name(unit.expression)) not in _QUALIFIERS:
            # no interval qualifier (`INTERVAL '1' MINUTE TO DAY`): the TO is not the interval's,
            # as in `CEIL(ts + INTERVAL '1' MINUTE TO DAY)`; Flink reads it so
            to = next(i for i in range(start, self._index) if self._tokens[i].text.upper() == "TO")
            self._retreat(to)
            interval.set("unit", unit.this)
        return interval

    def _parse_in(self, this: exp.Expr | None, alias: bool = False) -> exp.In:
        # Flink's grammar has no empty IN list: `x IN ()` is a syntax error at the `)`
        if self._curr is not None and self._curr.token_type == TokenType.L_PAREN and self._next is not None \
                and self._next.token_type == TokenType.R_PAREN:
            self.raise_error("Unexpected `)`: IN needs at least one value or a query", self._next)
        return super()._parse_in(this, alias)

    def _parse_as_command(self, start: Token) -> exp.Command:
        # sqlglot falls back to an opaque Command for syntax it does not know; Flink SQL has a
        # grammar, so this is a syntax error at the token where the known grammar stopped.
        self.raise_error(f"Unexpected `{self._curr.text or start.text}` in {start.text.upper()} statement")

    def _parse_projections(self) -> tuple[list[exp.Expr], list[exp.Expr] | None]:
        outer, self._csv_what = self._csv_what, "the select list"
        try:
            projections, exclude = super()._parse_projections()
        finally:
            self._csv_what = outer
        if not projections and not (self._curr is not None and self._curr.token_type == TokenType.FROM and not self._next):
            # sqlglot reads `SELECT FROM t` as SELECT * (its FROM-first form); Flink needs a list
            # (a bare `SELECT FROM` is left to FROM's own error: the table name is missing)
            token = None if self._at_end() else self._curr  # None: "at the end of the statement"
            self.raise_error("Expected the select list after SELECT" + (f", found `{token.text}`" if token else ""), token)
        return projections, exclude

    def _parse_primary(self) -> exp.Expr | None:
        if self._curr.token_type == TokenType.STRING and self._next.token_type == TokenType.STRING:
            # 'ab' 'c' in an expression is one literal, 'abc' (sqlglot made it CONCAT('ab', 'c'))
            return self._parse_continued_string()
        if self._curr.token_type == TokenType.TABLE and self._next.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            # `TABLE t` inside parentheses (Flink reads `f((TABLE t, x))`), without the PARTITION BY
            # that only a function's own argument takes
            self._advance()
            return self.expression(nodes.TableArgument(this=self._parse_table_parts()))
        if self._curr.token_type == TokenType.MAP and self._next.token_type == TokenType.L_BRACKET:
            return self._parse_map_constructor()
        return super()._parse_primary()

    def _parse_map_constructor(self) -> exp.Expr | None:
        """Flink's value constructor MAP[k1, v1, k2, v2, ...] (sqlglot read it as a column MAP
        subscripted); a subscript may follow it (MAP['a', 1]['a'])."""
        self._advance(2)
        items = self._parse_csv(self._parse_assignment)
        if not self._match(TokenType.R_BRACKET):
            self.raise_error("Expected `]` after the MAP[...] entries")
        if not items or len(items) % 2:
            # at the `]`, where the value of the last key was expected
            self.raise_error("MAP[...] takes key, value pairs: an even number of values, at least two", self._prev)
        keys, values = exp.Array(expressions=items[0::2]), exp.Array(expressions=items[1::2])
        return self._parse_bracket(self.expression(exp.VarMap(keys=keys, values=values)))

    def _parse_group(self, skip_group_by_token: bool = False) -> exp.Group | None:
        group = super()._parse_group(skip_group_by_token)
        if group is not None and not any(group.args.get(k) for k in ("expressions", "grouping_sets", "cube", "rollup", "totals", "all")):
            # sqlglot takes a GROUP BY with nothing after it
            token = None if self._at_end() else self._curr  # None: "at the end of the statement"
            self.raise_error("Expected an expression after GROUP BY" + (f", found `{token.text}`" if token else ""), token)
        return group

    def _parse_select_query(
        self,
        nested: bool = False,
        table: bool = False,
        parse_subquery_alias: bool = True,
        parse_set_operation: bool = True,
    ) -> exp.Expr | None:
        if self._curr is not None and self._curr.token_type == TokenType.FROM:
            # sqlglot's FROM-first query (`FROM t`, `SELECT * FROM FROM t`) is not Flink SQL
            self.raise_error("Unexpected `FROM`: Flink has no FROM-first queries (write SELECT ... FROM ...)")
        return super()._parse_select_query(
            nested=nested, table=table, parse_subquery_alias=parse_subquery_alias, parse_set_operation=parse_set_operation
        )

    def _parse_join(
        self, skip_join_token: bool = False, parse_bracket: bool = False, alias_tokens: Collection[TokenType] | None = None
    ) -> exp.Join | None:
        comma = self._curr if self._curr.token_type == TokenType.COMMA else None
        join = super()._parse_join(skip_join_token=skip_join_token, parse_bracket=parse_bracket, alias_tokens=alias_tokens)
        if join is None and comma is not None and self._prev is comma:
            # sqlglot drops a `,` with no table after it (`FROM t,`)
            self._empty_item(None if self._at_end() else self._curr, comma, "the FROM clause")
        return join

    # -- variables, descriptors, table functions ------------------------------------------------

    def _parse_parameter(self) -> exp.Parameter:
        # ${NAME}: a variable substituted before binding (``--define`` / SET of a variable)
        if not self._match(TokenType.L_BRACE):
            self.raise_error("Expected '{' after '$': variables are written ${name}")
        this = self._parse_var(any_token=True)
        self._match_r_paren_or(TokenType.R_BRACE, "Expected '}' to close ${...}")
        return self.expression(exp.Parameter(this=this))

    def _parse_descriptor(self) -> nodes.Descriptor:
        cols = self._parse_csv(self._parse_column)
        self._require_r_paren()
        return self.expression(nodes.Descriptor(expressions=cols))

    def _parse_table_function(self) -> exp.Expr:
        # TABLE(<call>) in FROM; the enclosing parens were consumed by the function-call parser.
        # The call is a table function whatever its name (LATERAL TABLE(split(s))): a window TVF
        # or a user function, never one of sqlglot's scalar nodes.
        name = self._curr
        call = self._parse_function(anonymous=True)
        if call is None:
            self.raise_error("Expected a table function call inside TABLE(...)")
        if isinstance(call, exp.Anonymous) and isinstance(call.this, str) and call.this.upper() not in WINDOW_TVFS:
            call.set("this", _user_function_name(name))
        self._require_r_paren()
        return self.expression(nodes.TableFunction(this=call))

    def _parse_table_argument(self) -> nodes.TableArgument | None:
        # TABLE t [PARTITION BY a, b] [ORDER BY ...] as a function argument
        if self._curr.token_type != TokenType.TABLE:
            return None
        if self._next.token_type == TokenType.L_PAREN:
            return None
        self._advance()
        table = self._parse_table_parts()
        partition_by = self._parse_argument_partition() if self._match(TokenType.PARTITION_BY) else None
        order = self._parse_order()
        return self.expression(
            nodes.TableArgument(this=table, partition_by=partition_by or None, order=order)
        )

    def _parse_argument_partition(self) -> list[exp.Expr]:
        """PARTITION BY of a table argument: `(a, b)` or `a, b` followed by the function's next
        argument (`SESSION(TABLE t PARTITION BY a, DESCRIPTOR(ts), ...)`): a column list that
        stops before anything that is not a plain column."""
        if self._match(TokenType.L_PAREN):
            cols = self._parse_csv(self._parse_column)
            self._match_r_paren()
            return cols
        cols = [self._expect(self._parse_column(), "Expected a column to partition by")]
        while self._curr is not None and self._curr.token_type == TokenType.COMMA:
            nxt = self._next
            after = self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
            plain = nxt.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and (
                after is None or after.token_type in (TokenType.COMMA, TokenType.R_PAREN, TokenType.DOT)
            )
            if not plain or nxt.text.upper() in ("DESCRIPTOR", "INTERVAL"):
                break
            self._advance()
            cols.append(self._expect(self._parse_column(), "Expected a column to partition by"))
        return cols

    # -- function calls ------------------------------------------------------------------------

    def _parse_function_call(
        self,
        functions: dict[str, Callable[..., Any]] | None = None,
        anonymous: bool = False,
        optional_parens: bool = True,
        any_token: bool = False,
    ) -> exp.Expr | None:
        if self._curr is not None and self._curr.token_type == TokenType.IDENTIFIER:
            anonymous = True  # a backquoted name is a catalog function's: kept as written
        self._call_names.append(self._curr)
        try:
            return super()._parse_function_call(
                functions=functions, anonymous=anonymous, optional_parens=optional_parens, any_token=any_token
            )
        finally:
            self._call_names.pop()

    def validate_expression(self, expression: E, args: list[Any] | None = None) -> E:
        # A built-in's name called with arguments the built-in cannot take (a one-argument
        # split(s), a UUID(x) whose x sqlglot would drop) is a user function of that name: keep
        # the call as written instead of failing or losing arguments.
        if (
            args is not None
            and self._call_names
            and self._call_names[-1] is not None
            and not isinstance(expression, exp.Anonymous)
            and not _keeps_arguments(expression, args)
        ):
            call = exp.Anonymous(this=_user_function_name(self._call_names[-1]), expressions=args)
            return super().validate_expression(call, args)  # type: ignore[return-value]  # a call in place of the node sqlglot chose
        return super().validate_expression(expression, args)

    def _parse_cast(self, strict: bool, safe: bool | None = None) -> exp.Expr:
        cast = super()._parse_cast(strict, safe)
        if isinstance(cast, exp.CastToStrType):
            # sqlglot's CAST(x, 'type') is not Flink's; it printed as CAST_TO_STR_TYPE(x, 'type')
            self.raise_error("Expected AS after CAST")
        return cast

    def _parse_function(
        self,
        functions: dict[str, Callable[..., Any]] | None = None,
        anonymous: bool = False,
        optional_parens: bool = True,
        any_token: bool = False,
    ) -> exp.Expr | None:
        if self._interval_units:
            # the unit of an interval literal (INTERVAL '1' DAY(3)) is never a function call
            if (
                self._curr is not None
                and self._curr.text.upper() in self.dialect.VALID_INTERVAL_UNITS
                and self._next is not None
                and self._next.token_type == TokenType.L_PAREN
            ):
                return self._parse_interval_unit()
            return None
        return super()._parse_function(
            functions=functions, anonymous=anonymous, optional_parens=optional_parens, any_token=any_token
        )

    def _parse_lambda(self, alias: bool = False) -> exp.Expr | None:
        return self._parse_table_argument() or super()._parse_lambda(alias=alias)

    # -- table references: hints right after the name ------------------------------------------

    def _parse_table_parts(
        self, schema: bool = False, is_db_reference: bool = False, wildcard: bool = False, fast: bool = False
    ) -> exp.Table | exp.Dot | None:
        table = super()._parse_table_parts(schema, is_db_reference, wildcard, fast)
        if table is not None and self._match(TokenType.HINT):
            hint = exp.maybe_parse(self._prev_comments[0], into=exp.Hint, dialect=self.dialect)
            # the hint's text is the HINT token's first comment: it is the hint, not a comment for
            # sqlglot to attach to the next node (fmt printed it again as `-- OPTIONS(...)`);
            # comments after the hint stay with the table
            table.add_comments(self._prev_comments[1:])
            self._prev_comments = []
            table.set("hints", [hint])
            self._table_hints[id(table)] = (table, [hint])
        return table

    def _parse_table_hints(self) -> list[exp.Expr] | None:
        return None  # Flink's hints follow the name; _parse_table_parts read them

    def _parse_table(
        self,
        schema: bool = False,
        joins: bool = False,
        alias_tokens: Collection[TokenType] | None = None,
        parse_bracket: bool = False,
        is_db_reference: bool = False,
        parse_partition: bool = False,
        consume_pipe: bool = False,
    ) -> exp.Expr | None:
        result = super()._parse_table(schema, joins, alias_tokens, parse_bracket, is_db_reference, parse_partition, consume_pipe)
        # sqlglot's _parse_table resets a table's hints after its alias; put ours back
        found = self._table_hints.pop(id(result), None) if result is not None else None
        if found is not None and found[0] is result and not result.args.get("hints"):
            result.set("hints", found[1])
        return result



def _keeps_arguments(expression: exp.Expr, args: list[Any]) -> bool:
    """Whether sqlglot's node for a call accepts the call's arguments and keeps every one."""
    if expression.error_messages(args):
        return False
    kept = {id(node) for node in expression.walk()}
    return all(id(arg) in kept for arg in args if isinstance(arg, exp.Expr))


def _user_function_name(token: Token) -> exp.Identifier:
    """The name of a user function's call as written: an Identifier, so that the generator does
    not upper-case it even when it is also the name of a built-in (split, session)."""
    return exp.Identifier(this=token.text, quoted=token.token_type == TokenType.IDENTIFIER)


# SQL's interval qualifiers: a larger unit TO a smaller one of the same kind
_QUALIFIERS = frozenset({("YEAR", "MONTH"), ("DAY", "HOUR"), ("DAY", "MINUTE"), ("DAY", "SECOND"), ("HOUR", "MINUTE"),
                         ("HOUR", "SECOND"), ("MINUTE", "SECOND")})


def _unit_name(unit: exp.Expr | None) -> str:
    return unit.name.upper() if unit is not None else ""
