"""MATCH_RECOGNIZE as Flink writes it: sqlglot's clause plus ``PATTERN (...) WITHIN INTERVAL ..``."""

from __future__ import annotations

from sqlglot import TokenType, exp

from planner.dialect.parser_base import ParserBase


class FlinkMatchRecognize(exp.MatchRecognize):
    arg_types = {**exp.MatchRecognize.arg_types, "within": False}


class MatchRecognizeMixin(ParserBase):
    """Mixed into FlinkParser."""

    def _parse_match_recognize(self) -> exp.MatchRecognize | None:
        if not self._match(TokenType.MATCH_RECOGNIZE):
            return None
        self._match_l_paren()
        partition = self._parse_partition_by()
        order = self._parse_order()
        measures = (
            self._parse_csv(self._parse_match_recognize_measure)
            if self._match_text_seq("MEASURES")
            else None
        )
        rows = None
        if self._match_text_seq("ONE", "ROW", "PER", "MATCH"):
            rows = exp.var("ONE ROW PER MATCH")
        elif self._match_text_seq("ALL", "ROWS", "PER", "MATCH"):
            rows = exp.var("ALL ROWS PER MATCH")
        after = None
        if self._match_text_seq("AFTER", "MATCH", "SKIP"):
            text = "AFTER MATCH SKIP"
            if self._match_text_seq("PAST", "LAST", "ROW"):
                text += " PAST LAST ROW"
            elif self._match_text_seq("TO", "NEXT", "ROW"):
                text += " TO NEXT ROW"
            elif self._match_text_seq("TO", "FIRST") or self._match_text_seq("TO", "LAST"):
                direction = self._prev.text.upper()
                var = self._parse_id_var(any_token=True)
                if var is None:
                    self.raise_error(f"Expected a pattern variable after AFTER MATCH SKIP TO {direction}")
                text += f" TO {direction} {var.name}"
            elif self._match_text_seq("TO"):  # SKIP TO x is SKIP TO LAST x
                var = self._parse_id_var(any_token=True)
                if var is None:
                    self.raise_error("Expected a pattern variable after AFTER MATCH SKIP TO")
                text += f" TO LAST {var.name}"
            else:
                self.raise_error("Expected PAST LAST ROW, TO NEXT ROW, TO FIRST x or TO LAST x")
            after = exp.var(text)
        pattern = within = None
        if self._match_text_seq("PATTERN"):
            self._match_l_paren()
            depth, start, end = 1, self._curr, None
            while not self._at_end() and depth > 0:
                if self._curr.token_type == TokenType.L_PAREN:
                    depth += 1
                elif self._curr.token_type == TokenType.R_PAREN:
                    depth -= 1
                end = self._prev if depth == 0 else self._curr
                self._advance()
            if depth > 0 or end is None:
                self.raise_error("Expected ) to close PATTERN (...)")
            pattern = exp.var(self._find_sql(start, end))
            if self._match_text_seq("WITHIN"):
                within = self._parse_interval()
                if within is None:
                    self.raise_error("Expected an interval after WITHIN, e.g. WITHIN INTERVAL '1' HOUR")
        define = (
            self._parse_csv(self._parse_name_as_expression) if self._match_text_seq("DEFINE") else None
        )
        self._match_r_paren()
        return self.expression(
            FlinkMatchRecognize(
                partition_by=partition,
                order=order,
                measures=measures,
                rows=rows,
                after=after,
                pattern=pattern,
                within=within,
                define=define,
                alias=self._parse_table_alias(),
            )
        )
