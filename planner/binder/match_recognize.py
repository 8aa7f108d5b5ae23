"""MATCH_RECOGNIZE bound: its partition and order, its pattern (``planner.logical.match``), and its
DEFINE conditions and MEASURES as expressions over the values they read from the match.

A reference to a pattern variable's column (``A.price``), FIRST/LAST/PREV, an aggregate over a
variable's rows and MATCH_ROWTIME() each become one ``Nav`` and a column ``__navI``
in the expression, which is then bound as any expression over those columns (so its type and
its functions are checked as everywhere else). A part of a DEFINE the operator cannot evaluate
itself (``planner.logical.evaluate``: beyond comparisons, arithmetic, boolean logic, ABS,
COALESCE, CASE, IF) that reads the row tried only (``A.name LIKE 'a%'`` in A's DEFINE), and the
argument of an aggregate that is an expression of one variable's columns (``SUM(A.price * 2)``),
become a value of each row computed by Spark before the match (``MatchSpec.derived``), read as
one more column of it. A measure the operator cannot evaluate comes out of the match as the
values it reads, one measure each, and Spark computes it from them after the match
(``MatchSpec.after``).

The meaning follows Flink's: in DEFINE a column of the variable being defined, or an unqualified
one, is the row being tried; elsewhere a variable's column is its last row so far; an aggregate
runs over the rows mapped so far (with the row being tried, in its own variable's DEFINE). What
Flink's planner refuses is refused here in its words.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from sqlglot import exp

from planner.binder.expressions import ExprBinder
from planner.binder.intervals import interval_ms
from planner.binder.scope import Relation, Scope
from planner.binder.types import type_of
from planner.logical import evaluate  # (a module: evaluate imports the binder's joins)
from planner.logical import typing as T
from planner.logical.fields import Field, TimeKind
from planner.logical.match import MatchExpr, MatchSpec, Nav, NavKind, PatternError, PatternTerm, Skip, parse_pattern
from planner.logical.operators import MatchRecognize, Node
from planner.problems import BindError

AGGREGATES: dict[type[exp.Expr], str] = {exp.Count: "COUNT", exp.Sum: "SUM", exp.Avg: "AVG", exp.Min: "MIN", exp.Max: "MAX"}


def bind_match_recognize(source: Relation, input_node: Node, node: exp.MatchRecognize) -> tuple[MatchRecognize, list[Field]]:
    """``source``: the input as the FROM clause names it; ``input_node``: its plan."""
    scope = Scope()
    scope.add(source)
    partition = tuple(scope.resolve(p)[0] for p in node.args.get("partition_by") or [] if isinstance(p, exp.Column))
    order = node.args.get("order")
    if order is None or not order.expressions:
        raise BindError("MATCH_RECOGNIZE needs ORDER BY a time attribute", node)
    first = order.expressions[0]
    not_time = "MATCH_RECOGNIZE: You must specify either rowtime or proctime for order by as the first one"
    if not isinstance(first.this, exp.Column):
        raise BindError(not_time, first)
    order_name, order_field, _ = scope.resolve(first.this)
    if order_field.time is None:
        raise BindError(not_time, first)
    if first.args.get("desc"):
        raise BindError("MATCH_RECOGNIZE: Primary sort order of a streaming table must be ascending on time", first)
    terms = _pattern(node)
    variables = {t.var for t in terms}
    # a DEFINE may name a variable the PATTERN lacks (Flink ignores it): its columns read as NULL
    named = variables | {item.alias for item in node.args.get("define") or []}
    # MATCH_ROWTIME(): the order's time; ordered by processing time, a TIMESTAMP(3) as Flink types it
    reader = _Reader(scope, named, T.TIMESTAMP3 if order_field.time == TimeKind.PROCTIME else order_field.type)
    defines: list[tuple[str, MatchExpr]] = []
    for item in node.args.get("define") or []:
        var = item.alias
        if any(v == var for v, _ in defines):
            raise BindError(f"`{var}` is defined twice", item)
        cond = reader.read(item.this, define=var)
        if not T.is_type(cond.type, exp.DType.BOOLEAN, exp.DType.UNKNOWN):
            raise BindError(f"The DEFINE condition of `{var}` is not a boolean", item.this)
        if var not in variables:
            continue  # Flink accepts a DEFINE of a variable the PATTERN does not have, and ignores it
        defines.append((var, cond))
    fields = [scope.by_internal[p] for p in partition]
    measures: list[tuple[str, MatchExpr]] = []
    after: list[tuple[str, exp.Expr]] = []
    for measure in node.args.get("measures") or []:
        expr = measure.this
        if not isinstance(expr, exp.Alias) or not expr.alias:
            raise BindError("Each MEASURES item needs a name (AS ...)", measure)
        if any(f.name == expr.alias for f in fields):
            raise BindError(f"`{expr.alias}` is named twice in the output of MATCH_RECOGNIZE", expr)
        value = reader.read(expr.this, define=None)
        if evaluate.unsupported(value.tree, MatchExpr.slot_fields(value.nav_types)) is None:
            measures.append((expr.alias, value))
        else:  # a function the operator cannot evaluate: each read comes out of the match, Spark computes the rest
            taken = {f.name for f in fields} | {n for n, _ in measures} | {m.this.alias for m in node.args.get("measures") or []}
            reads, computed = _split(expr.alias, value, taken)
            measures += reads
            after.append((expr.alias, computed))
        # MATCH_ROWTIME() of a match on event time is a time attribute, as in Flink: a window or an
        # OVER can follow it (the watermark is the input's)
        rowtime = order_field.time == TimeKind.ROWTIME and _is_call(expr.this, "MATCH_ROWTIME")
        fields.append(Field(expr.alias, value.type, TimeKind.ROWTIME if rowtime else None))
    skip, skip_var = _skip(node, variables)
    within = node.args.get("within")
    rows = node.args.get("rows")
    spec = MatchSpec(
        terms, tuple(defines), tuple(measures), skip, skip_var,
        within_ms=interval_ms(within) if within is not None else None, derived=tuple(reader.derived), after=tuple(after),
    )
    mr = MatchRecognize(
        tuple(fields),
        input=input_node,
        partition_keys=partition,
        order_field=order_name,
        within_ms=spec.within_ms,
        pattern=node.text("pattern"),
        spec=spec,
        then_by=tuple(_then_by(scope, order.expressions[1:])),
        all_rows=rows is not None and "ALL" in rows.name.upper(),
        origin=node,
    )
    return mr, fields


def _then_by(scope: Scope, keys: list[exp.Expr]) -> list[tuple[str, bool]]:
    """The ORDER BY keys after the time attribute: they order the rows of one time."""
    out = []
    for key in keys:
        if not isinstance(key.this, exp.Column):
            raise BindError("MATCH_RECOGNIZE orders the rows of one time by columns here", key)
        out.append((scope.resolve(key.this)[0], bool(key.args.get("desc"))))
    return out


def _is_call(node: exp.Expr, name: str) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.upper() == name


def _pattern(node: exp.MatchRecognize) -> tuple[PatternTerm, ...]:
    text = node.text("pattern")
    if not text:
        raise BindError("MATCH_RECOGNIZE needs a PATTERN", node)
    try:
        terms = parse_pattern(text)
    except PatternError as err:
        raise BindError(f"{err.message} (at `{text[err.offset:err.offset + 12].strip()}` in PATTERN ({text}))", node) from None
    if all(t.min == 0 for t in terms):
        raise BindError(
            "MATCH_RECOGNIZE: Patterns that can produce empty matches are not supported. There must be at least one "
            "non-optional state", node,
        )
    last = terms[-1]
    if last.greedy_loop:
        # Flink's NFA ends a greedy quantifier only on a row it cannot take: at the end of the
        # pattern no match would ever be complete
        raise BindError(
            f"MATCH_RECOGNIZE: Greedy quantifiers are not allowed as the last element of a Pattern yet ({last}). Finish "
            f"your pattern with either a simple variable or reluctant quantifier ({last}?)",
            node,
        )
    for before, after in itertools.pairwise(terms):
        if before.greedy_loop and after.min == 0:
            raise BindError(
                f"MATCH_RECOGNIZE: Optional pattern cannot be preceded by greedy pattern ({before} {after}); make "
                f"{before.var}'s quantifier reluctant ({before}?)", node,
            )
    seen: set[str] = set()
    for t in terms:
        if t.var in seen:
            raise BindError(f"MATCH_RECOGNIZE: Pattern variables must be unique (`{t.var}` appears twice)", node)
        seen.add(t.var)
    return terms


def _skip(node: exp.MatchRecognize, variables: set[str]) -> tuple[Skip, str | None]:
    after = node.args.get("after")
    text = after.name.upper() if after is not None else "AFTER MATCH SKIP TO NEXT ROW"  # Flink's default
    for skip in (Skip.PAST_LAST_ROW, Skip.TO_NEXT_ROW):
        if text.endswith(skip.value):
            return skip, None
    for skip in (Skip.TO_FIRST, Skip.TO_LAST):
        if f" {skip.value} " in text:
            var = after.name.split()[-1] if after is not None else ""
            if var not in variables:
                raise BindError(f"AFTER MATCH SKIP {skip.value} `{var}`: `{var}` is not a variable of the PATTERN", node)
            return skip, var
    raise BindError(f"Unknown AFTER MATCH strategy: {text}", node)


class _Reader:
    """Turns a DEFINE condition or a measure into a ``MatchExpr``."""

    def __init__(self, scope: Scope, variables: set[str], rowtime_type: exp.DataType) -> None:
        self.scope, self.variables, self.rowtime_type = scope, variables, rowtime_type
        self.position = {name: i for i, name in enumerate(scope.by_internal)}
        self.names = list(scope.by_internal)
        self.derived: list[exp.Expr] = []  # MatchSpec.derived: at positions len(names) + i

    def read(self, expr: exp.Expr, define: str | None) -> MatchExpr:
        navs: list[Nav] = []
        types: list[exp.DataType] = []

        def slot(nav: Nav, typ: exp.DataType) -> exp.Expr:
            if nav in navs:
                return exp.column(MatchExpr.slot(navs.index(nav)))
            navs.append(nav)
            types.append(typ)
            return exp.column(MatchExpr.slot(len(navs) - 1))

        def walk(node: exp.Expr) -> exp.Expr:
            got = self._nav(node, define)
            if got is not None:
                nav, typ = got
                return slot(nav, typ)
            return _map_children(node, walk)

        tree = walk(expr.copy())
        slots = MatchExpr.slot_fields(types)
        local = Scope()
        local.add(Relation(None, slots, [f.name for f in slots]))
        bound = ExprBinder(local).bind(tree)
        typed = {f.name: f for f in slots}

        def lift(node: exp.Expr) -> exp.Expr:
            """The parts the operator cannot evaluate that read the row tried only: its derived value."""
            if evaluate.unsupported(node, slots) is None:
                return node
            if self._of_row_tried(node, navs):
                derived = MatchExpr.replace_slots(node, lambda i: self._input_column(navs[i]))
                return slot(Nav(NavKind.LAST, None, self._derived_at(derived)), type_of(node, typed))
            return _map_children(node, lift)

        # in DEFINE only: the row tried always exists, where another row read may not, and a function
        # such as COALESCE gives a value for a missing row's NULLs, not NULL as a missing derived
        # value would (MEASURES are computed after the match instead: bind_match_recognize)
        if define is not None:
            bound = lift(bound)
        # the reads a lifted part made unused are dropped (each read costs every evaluation)
        used = sorted({MatchExpr.slot_index(c.name) for c in bound.find_all(exp.Column)})
        bound = MatchExpr.replace_slots(bound, lambda i: exp.column(MatchExpr.slot(used.index(i))))
        kept = tuple(types[i] for i in used)
        return MatchExpr(bound, tuple(navs[i] for i in used), type_of(bound, {f.name: f for f in MatchExpr.slot_fields(kept)}), kept)

    def _aggregate_of_expression(self, func: str, arg: exp.Expr, define: str | None) -> tuple[Nav, exp.DataType]:
        """SUM(A.price * A.qty): as in Flink, an aggregate of an expression of one variable's
        columns, each row's value computed before the match (a derived column)."""
        cols = list(arg.find_all(exp.Column))
        variables = {self._column(c, define)[0] for c in cols}
        if len(variables) != 1 or any(isinstance(n, (exp.First, exp.Last, exp.AggFunc)) or _is_call(n, "PREV") for n in arg.walk()):
            raise BindError(f"{func} in MATCH_RECOGNIZE must be applied to a single pattern variable: an expression of one variable's columns "
                            "(SUM(A.price * A.qty), as in Flink)", arg)
        plain = arg.copy().transform(lambda n: exp.column(n.name, quoted=True) if isinstance(n, exp.Column) else n)
        bound = ExprBinder(self.scope).bind(plain)
        typ = type_of(bound, {f.name: f for f in self.scope.by_internal.values()})
        return Nav(NavKind.AGG, variables.pop(), self._derived_at(bound), func=func), T.agg_type(func, typ)

    def _input_column(self, nav: Nav) -> exp.Column:
        assert nav.column is not None, "a read of one row's column"
        return exp.column(self.names[nav.column], quoted=True)

    def _derived_at(self, expr: exp.Expr) -> int:
        """The input row's position of a derived value (each expression computed once)."""
        sql = expr.sql()
        at = next((i for i, d in enumerate(self.derived) if d.sql() == sql), None)
        if at is None:
            at = len(self.derived)
            self.derived.append(expr)
        return len(self.names) + at

    @staticmethod
    def _of_row_tried(node: exp.Expr, navs: list[Nav]) -> bool:
        """Whether ``node`` reads the columns of the row a DEFINE tries and nothing else (not a read
        itself, nor a CASE's branch, which has no value of its own)."""
        if isinstance(node, exp.Column) or (isinstance(node, exp.If) and isinstance(node.parent, exp.Case)):
            return False
        reads = {navs[MatchExpr.slot_index(c.name)] for c in node.find_all(exp.Column)}
        return bool(reads) and all(n.kind == NavKind.LAST and n.var is None and n.offset == 0 and n.column is not None for n in reads)

    def _column(self, col: exp.Column, define: str | None) -> tuple[str | None, int, Field]:
        """(variable or None, input position, field) of a column reference in a pattern expression."""
        var = col.table or None
        if var is not None and var not in self.variables:
            raise BindError(f"`{var}` is not a variable of the PATTERN ({', '.join(sorted(self.variables))})", col)
        if isinstance(col.this, exp.Star):
            raise BindError("`*` is only allowed in COUNT", col)
        name, field, _ = self.scope.resolve(exp.column(col.name))
        return var, self.position[name], field

    def _nav(self, node: exp.Expr, define: str | None) -> tuple[Nav, exp.DataType] | None:
        if isinstance(node, exp.Column):
            var, pos, field = self._column(node, define)
            # in DEFINE, the defined variable's column and an unqualified one are the row tried
            return Nav(NavKind.LAST, None if var == define else var, pos), field.type
        if isinstance(node, (exp.First, exp.Last)):
            arg = node.this
            if not isinstance(arg, exp.Column):
                raise BindError(f"{type(node).__name__.upper()} reads a column of a pattern variable here (A.col)", node)
            var, pos, field = self._column(arg, define)
            kind = NavKind.FIRST if isinstance(node, exp.First) else NavKind.LAST
            return Nav(kind, var, pos, _offset(node.args.get("expression"), 0)), field.type
        if isinstance(node, exp.Anonymous):
            name = node.name.upper()
            if name == "PREV":
                if define is None:
                    raise BindError("PREV is not allowed in MEASURES (as in Flink); use LAST(A.col, n)", node)
                args = node.expressions
                if not args or not isinstance(args[0], exp.Column):
                    raise BindError("PREV reads a column: PREV(col) or PREV(A.col, n)", node)
                var, pos, field = self._column(args[0], define)
                if var is not None and var == define:
                    raise BindError(
                        f"PREV({args[0].sql()}) in the DEFINE of `{define}`: Flink does not support physical offsets within "
                        "partition; write PREV(col) for the row before in the match, or LAST(" + f"{define}.col, 1)",
                        node,
                    )
                # Flink's PREV reads within the rows matched so far: PREV(A.x, n) is LAST(A.x, n)
                return Nav(NavKind.LAST, var, pos, _offset(args[1] if len(args) > 1 else None, 1)), field.type
            if name == "NEXT":
                raise BindError("NEXT is not supported by Flink's MATCH_RECOGNIZE (its rows come in order); use PREV", node)
            if name in ("MATCH_ROWTIME", "MATCH_PROCTIME"):
                if define is not None:
                    raise BindError(f"{name}() is a measure: it is not allowed in DEFINE", node)
                # the time of the row that completes the match (on processing time, when it was read)
                return Nav(NavKind.ROWTIME, None, None), self.rowtime_type if name == "MATCH_ROWTIME" else T.TIMESTAMP_LTZ3
            if name in ("CLASSIFIER", "MATCH_NUMBER", "RUNNING", "FINAL"):
                raise BindError(f"{name}() is not supported by Flink's MATCH_RECOGNIZE", node)
        func = AGGREGATES.get(type(node))
        if func is not None:
            if node.args.get("distinct") or isinstance(node.this, exp.Distinct):
                raise BindError(f"{func}(DISTINCT ...) is not supported in MATCH_RECOGNIZE (Flink refuses it too)", node)
            arg = node.this
            if isinstance(arg, exp.Star):
                return Nav(NavKind.AGG, None, None, func="COUNT"), T.BIGINT
            if isinstance(arg, exp.Column) and isinstance(arg.this, exp.Star):
                var = arg.table
                if var not in self.variables:
                    raise BindError(f"`{var}` is not a variable of the PATTERN", arg)
                return Nav(NavKind.AGG, var, None, func="COUNT"), T.BIGINT
            if not isinstance(arg, exp.Column):
                return self._aggregate_of_expression(func, arg, define)
            var, pos, field = self._column(arg, define)
            return Nav(NavKind.AGG, var, pos, func=func), T.agg_type(func, field.type)
        return None


def _map_children(node: exp.Expr, fn: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """``node``, each of its child expressions replaced by ``fn`` of it (in place)."""
    for key, value in list(node.args.items()):
        if isinstance(value, exp.Expr):
            node.set(key, fn(value))
        elif isinstance(value, list):
            node.set(key, [fn(v) if isinstance(v, exp.Expr) else v for v in value])
    return node


def _split(name: str, value: MatchExpr, taken: set[str]) -> tuple[list[tuple[str, MatchExpr]], exp.Expr]:
    """A measure the operator cannot evaluate: a measure of its own for each value it reads (named
    apart from ``taken``), and the expression over them that Spark computes after the match (on a
    missing row's NULLs, as Flink computes it)."""
    stem = f"__{name}"
    while any(t.startswith(stem) for t in taken):
        stem += "_"
    names = [f"{stem}${i}" for i in range(len(value.navs))]
    reads = [(n, MatchExpr(exp.column(MatchExpr.slot(0)), (nav,), typ, (typ,)))
             for n, nav, typ in zip(names, value.navs, value.nav_types, strict=True)]
    computed = MatchExpr.replace_slots(value.tree, lambda i: exp.column(names[i], quoted=True))
    return reads, computed


def _offset(node: exp.Expr | None, default: int) -> int:
    if node is None:
        return default
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    raise BindError("The offset of FIRST, LAST or PREV is a non-negative integer literal", node)
