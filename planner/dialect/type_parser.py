"""Flink's types on sqlglot's type parser: INTERVAL DAY(2) TO SECOND(3) and RAW('class', ..)
as types, the postfix collection forms ``INT ARRAY`` / ``INT MULTISET``, NOT NULL on an element
type, ROW fields with a description, TIMESTAMP WITH TIME ZONE as TIMESTAMP_LTZ and a bare
VARBINARY as VARBINARY(1)."""

from __future__ import annotations

from sqlglot import Token, TokenType, exp

from planner.dialect import nodes
from planner.dialect.parser_base import ParserBase


class TypesMixin(ParserBase):
    """Mixed into FlinkParser."""

    def _parse_types(
        self, check_func: bool = False, schema: bool = False, allow_identifiers: bool = True, with_collation: bool = False
    ) -> exp.Expr | None:
        # INTERVAL DAY(2) TO SECOND(3) and RAW('class', 'snapshot') are Flink's own; only where a
        # type is expected (check_func is set when sqlglot tries a type inside an expression)
        this: exp.Expr | None = None if check_func else (self._parse_interval_type() or self._parse_raw_type())
        if this is None:
            this = self._parse_sqlglot_types(check_func, schema, allow_identifiers, with_collation)
        if isinstance(this, exp.DataType) and self._match_pair(
            TokenType.NOT, TokenType.NULL, advance=False
        ) and self._in_nested_type():
            self._advance(2)
            this.set("nullable", False)
        return this

    def _parse_sqlglot_types(self, check_func: bool, schema: bool, allow_identifiers: bool, with_collation: bool) -> exp.Expr | None:
        start = self._curr
        # Flink's postfix forms `INT ARRAY` / `INT MULTISET` would hit sqlglot's Postgres-style
        # `INT ARRAY[n]` branch; retype a bare postfix ARRAY as LIST (our MULTISET) for sqlglot's
        # postfix loop, then give each wrapper back its real kind.
        postfix = self._postfix_collection_tokens()
        for tok in postfix:
            tok.token_type = TokenType.LIST
        try:
            this = super()._parse_types(
                check_func=check_func,
                schema=schema,
                allow_identifiers=allow_identifiers,
                with_collation=with_collation,
            )
        finally:
            for tok in postfix:
                tok.token_type = TokenType.ARRAY
        if not isinstance(this, exp.DataType):
            return this
        if postfix:
            self._restore_postfix_arrays(this, postfix)
        if this.this == exp.DType.TIMESTAMPTZ:
            # Flink has no TIMESTAMP WITH TIME ZONE; it is read as WITH LOCAL TIME ZONE (TIMESTAMP_LTZ)
            this.set("this", exp.DType.TIMESTAMPLTZ)
        elif (
            this.this == exp.DType.VARBINARY
            and not this.expressions
            and start is not None
            and start.text.upper() == "VARBINARY"
        ):
            # a bare VARBINARY is VARBINARY(1) in Flink; BYTES (the same token type) is the maximum
            this.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(1))])
        return this

    def _parse_interval_type(self) -> exp.DataType | None:
        """INTERVAL YEAR(p) [TO MONTH] | DAY(p) [TO HOUR | MINUTE | SECOND(p)] | ... as a type."""
        if not (
            self._curr is not None
            and self._curr.token_type == TokenType.INTERVAL
            and self._next is not None
            and self._next.text.upper() in self.dialect.VALID_INTERVAL_UNITS
        ):
            return None
        self._advance()
        unit = self._parse_interval_unit()
        if self._match_text_seq("TO"):
            if self._curr is None or self._curr.text.upper() not in self.dialect.VALID_INTERVAL_UNITS:
                self.raise_error("Expected an interval unit after TO")
            unit = self.expression(exp.IntervalSpan(this=unit, expression=self._parse_interval_unit()))
        return self.expression(exp.DataType(this=self.expression(exp.Interval(unit=unit))))

    def _parse_interval_unit(self) -> exp.Expr:
        """DAY or DAY(2): the unit, with a precision when one follows in parentheses."""
        unit = self._expect(self._parse_var(any_token=True, upper=True), "Expected an interval unit")
        if self._curr is None or self._curr.token_type != TokenType.L_PAREN:
            return unit
        self._advance()
        precision = self._parse_number()
        if precision is None:
            self.raise_error("Expected the precision of the interval unit, a number")
        self._match_r_paren()
        return self.expression(nodes.IntervalUnit(this=unit, precision=precision))

    def _parse_raw_type(self) -> exp.DataType | None:
        """RAW('class', 'snapshot'): an opaque Java type."""
        if not (
            self._curr is not None
            and self._curr.token_type == TokenType.VAR
            and self._curr.text.upper() == "RAW"
            and self._next is not None
            and self._next.token_type == TokenType.L_PAREN
        ):
            return None
        self._advance(2)
        args = self._parse_csv(self._parse_string)
        if not args:
            self.raise_error("Expected RAW('class', 'serializer snapshot')")
        self._match_r_paren()
        return self.expression(exp.DataType(this=exp.DType.USERDEFINED, kind="RAW", expressions=args))

    def _parse_struct_types(self, type_required: bool = False) -> exp.Expr | None:
        # ROW<name TYPE 'description', ...>: a field may end with its description
        field = super()._parse_struct_types(type_required=type_required)
        if isinstance(field, exp.ColumnDef) and self._curr is not None and self._curr.token_type == TokenType.STRING:
            description = exp.CommentColumnConstraint(this=self._parse_string())
            field.append("constraints", self.expression(exp.ColumnConstraint(kind=description)))
        return field

    def _postfix_collection_tokens(self) -> list[Token]:
        found = []
        depth = 0
        i = self._index
        tokens = self._tokens
        while i < len(tokens):
            tok = tokens[i]
            tt = tok.token_type
            if tt in (TokenType.L_PAREN, TokenType.LT):
                depth += 1
            elif tt in (TokenType.R_PAREN, TokenType.GT):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and tt == TokenType.ARRAY and i > self._index:
                nxt = tokens[i + 1].token_type if i + 1 < len(tokens) else None
                if nxt in (TokenType.LT, TokenType.L_BRACKET, TokenType.L_PAREN):
                    break
                found.append(tok)
            elif depth == 0 and tt == TokenType.LIST:
                pass
            elif (depth == 0 and i > self._index and tt not in self.TYPE_TOKENS and tt not in (
                TokenType.VAR, TokenType.NUMBER, TokenType.COMMA
            )) or (depth == 0 and tt == TokenType.COMMA):
                break
            i += 1
        return found

    def _restore_postfix_arrays(self, this: exp.DataType, postfix: list[Token]) -> None:
        # wrappers from the outside in match the postfix tokens from last to first
        node: exp.Expr | None = this
        chain = []
        while isinstance(node, exp.DataType) and node.is_type(exp.DType.LIST):
            chain.append(node)
            node = node.expressions[0] if node.expressions else None
        texts = [t.text.upper() for t in self._tokens[: self._index] if t.token_type in (TokenType.ARRAY, TokenType.LIST)]
        kinds = [("ARRAY" if x == "ARRAY" else "MULTISET") for x in texts[-len(chain):]] if chain else []
        for wrapper, kind in zip(chain, reversed(kinds), strict=False):  # fewer kinds than wrappers: the outer ones
            if kind == "ARRAY":
                wrapper.set("this", exp.DType.ARRAY)

    def _in_nested_type(self) -> bool:
        # NOT NULL directly inside ROW<..>/ARRAY<..>/MAP<..> belongs to the element type
        nxt = self._tokens[self._index + 2] if self._index + 2 < len(self._tokens) else None
        return nxt is not None and nxt.token_type in (TokenType.GT, TokenType.COMMA, TokenType.STRING)
