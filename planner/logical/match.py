"""What a MATCH_RECOGNIZE is made of once bound: its pattern as a sequence of quantified
variables, its DEFINE conditions and MEASURES as expressions over values read from the match
(``Nav``), and its AFTER MATCH strategy. The binder builds it (``planner.binder.match_recognize``);
the changelog operator runs it (``sqlengine.changelog.match_recognize``); both read the same
dataclasses, so a fact about the pattern is decided once.

Flink's row pattern language is a flat sequence: each variable with a quantifier (``*``, ``+``,
``?``, ``{n}``, ``{n,}``, ``{n,m}``, ``{,m}``), greedy unless followed by ``?``. Groups,
alternation, PERMUTE and exclusion are not in Flink's language and are refused here as there.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlglot import exp

from planner.logical.fields import Field


@dataclass(frozen=True)
class PatternTerm:
    var: str
    min: int
    max: int | None  # None: no upper bound
    greedy: bool

    def __str__(self) -> str:
        if (self.min, self.max) == (1, 1):
            q = ""
        elif (self.min, self.max) == (0, None):
            q = "*"
        elif (self.min, self.max) == (1, None):
            q = "+"
        elif (self.min, self.max) == (0, 1):
            q = "?"
        elif self.max is None:
            q = f"{{{self.min},}}"
        elif self.min == self.max:
            q = f"{{{self.min}}}"
        else:
            q = f"{{{self.min},{self.max}}}"
        return f"{self.var}{q}{'' if self.greedy or not q else '?'}"

    @property
    def looping(self) -> bool:
        """Takes a varying number of rows."""
        return self.max is None or self.max > self.min

    @property
    def greedy_loop(self) -> bool:
        """Greedy as Flink's NFA is: a looping quantifier (not ``?``, which Flink compiles as a
        plain optional variable) keeps every row it can take from the variable after it, and so
        ends only on a later row it cannot take."""
        return self.greedy and self.looping and (self.min, self.max) != (0, 1)


class PatternError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset


_TOKEN = re.compile(
    r"\s*(?:(?P<var>[A-Za-z_][A-Za-z0-9_]*|`[^`]+`)"
    r"(?P<q>\*|\+|\?|\{\s*(?P<lo>\d*)\s*(?P<comma>,)?\s*(?P<hi>\d*)\s*\})?(?P<reluctant>\?)?)"
)


def parse_pattern(text: str) -> tuple[PatternTerm, ...]:
    """The terms of a PATTERN's text (between its parentheses). PatternError (with the offset in
    ``text``) on what Flink's pattern language does not have."""
    terms: list[PatternTerm] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.group("var") is None:
            at = pos + len(text[pos:]) - len(text[pos:].lstrip())
            ch = text[at]
            what = {
                "(": "a group of variables", ")": "a group of variables", "|": "an alternation (|)",
                "{": "an exclusion ({- -})", "^": "an anchor (^)", "$": "an anchor ($)",
            }.get(ch, f"`{ch}`")
            raise PatternError(
                f"MATCH_RECOGNIZE: {what} is not in Flink's pattern language, which is a sequence of variables, each "
                "with an optional quantifier (*, +, ?, {n}, {n,}, {n,m}, {,m}; a ? after it makes it reluctant)",
                at,
            )
        var = m.group("var").strip("`")
        if var.upper() == "PERMUTE":
            raise PatternError("MATCH_RECOGNIZE: PERMUTE is not in Flink's pattern language", m.start("var"))
        q = m.group("q")
        lo: int = 1
        hi: int | None = 1
        if q == "*":
            lo, hi = 0, None
        elif q == "+":
            lo, hi = 1, None
        elif q == "?":
            lo, hi = 0, 1
        elif q:
            low, high = m.group("lo"), m.group("hi")
            if not low and m.group("comma"):
                raise PatternError("MATCH_RECOGNIZE: The from should be a positive number greater than 0 ({,m} is not in Flink; write {0,m})", m.start("q"))
            lo = int(low) if low else 0
            hi = (int(high) if high else None) if m.group("comma") else lo
            if not low and not m.group("comma"):
                raise PatternError("MATCH_RECOGNIZE: a quantifier {n} needs its number", m.start("q"))
            if hi is not None and (hi < lo or hi == 0):
                raise PatternError(f"MATCH_RECOGNIZE: the quantifier {q} of {var} takes no row", m.start("q"))
        if m.group("reluctant") and (lo, hi) == (0, 1):
            raise PatternError(f"MATCH_RECOGNIZE: Reluctant optional variables are not supported yet ({var}??)", m.start("q"))
        terms.append(PatternTerm(var, lo, hi, greedy=m.group("reluctant") is None))
        pos = m.end()
    if not terms:
        raise PatternError("MATCH_RECOGNIZE: the PATTERN is empty", 0)
    return tuple(terms)


class NavKind(enum.Enum):
    """How a value is read from a (partial) match."""

    LAST = "LAST"  # the n-th row from the last mapped to the variable (A.x is LAST(A.x, 0), PREV(A.x) LAST(A.x, 1))
    FIRST = "FIRST"  # the n-th row from the first
    AGG = "AGG"  # an aggregate over the rows mapped to the variable
    ROWTIME = "MATCH_ROWTIME"  # the time the match came out at (its last row's, as a rule)


@dataclass(frozen=True)
class Nav:
    """One value an expression reads from the match: ``var`` None is every row of the match;
    ``column`` the input column's position (None: COUNT(*), MATCH_ROWTIME). Flink's PREV(A.x, n)
    is LAST(A.x, n) (it never reads a row outside the match), so it is one."""

    kind: NavKind
    var: str | None
    column: int | None
    offset: int = 0
    func: str | None = None  # AGG: COUNT, SUM, AVG, MIN, MAX

    def __str__(self) -> str:
        col = "*" if self.column is None else f"${self.column}"
        ref = f"{self.var}.{col}" if self.var else col
        if self.kind == NavKind.AGG:
            return f"{self.func}({ref})"
        if self.kind == NavKind.ROWTIME:
            return f"{self.kind.value}()"
        return f"{self.kind.value}({ref}, {self.offset})"


@dataclass(frozen=True)
class MatchExpr:
    """A DEFINE condition or a measure: ``tree`` reads column ``__navI`` for ``navs[I]``."""

    tree: exp.Expr
    navs: tuple[Nav, ...]
    type: exp.DataType
    nav_types: tuple[exp.DataType, ...] = ()  # the type of each read

    @staticmethod
    def slot(i: int) -> str:
        return f"__nav{i}"

    @staticmethod
    def slot_index(name: str) -> int:
        """The ``I`` of a column ``__navI``."""
        return int(name[len("__nav"):])

    @staticmethod
    def slot_fields(types: Sequence[exp.DataType]) -> list[Field]:
        """The columns ``__nav0``, ``__nav1``... of the given types, as an expression over the
        reads is bound and evaluated."""
        return [Field(MatchExpr.slot(i), t) for i, t in enumerate(types)]

    @staticmethod
    def replace_slots(tree: exp.Expr, fn: Callable[[int], exp.Expr]) -> exp.Expr:
        """``tree`` with each column ``__navI`` replaced by ``fn(I)``."""
        return tree.transform(lambda n: fn(MatchExpr.slot_index(n.name)) if isinstance(n, exp.Column) else n)


class Skip(enum.Enum):
    PAST_LAST_ROW = "PAST LAST ROW"
    TO_NEXT_ROW = "TO NEXT ROW"
    TO_FIRST = "TO FIRST"
    TO_LAST = "TO LAST"


@dataclass(frozen=True)
class MatchSpec:
    terms: tuple[PatternTerm, ...]
    defines: tuple[tuple[str, MatchExpr], ...]  # per defined variable (undefined: always true)
    measures: tuple[tuple[str, MatchExpr], ...]
    skip: Skip
    skip_var: str | None = None  # TO FIRST / TO LAST
    within_ms: int | None = None
    # values of one input row the operator cannot compute itself (a function of the row a DEFINE
    # tries: A.name LIKE 'a%' in A's; an aggregate's argument: the A.price * 2 of SUM(A.price * 2)),
    # computed by Spark before the match and read as the row's columns after its fields, in this
    # order (a Nav's ``column`` past the fields)
    derived: tuple[exp.Expr, ...] = ()
    # measures the operator cannot evaluate (CONCAT(A.x, B.x), UPPER(B.x)): the operator emits each
    # read as a measure of its own (``measures``), and Spark computes each of these (name,
    # expression over those measures' names) from them after the match
    after: tuple[tuple[str, exp.Expr], ...] = ()

    def pattern_sql(self) -> str:
        return " ".join(str(t) for t in self.terms)
