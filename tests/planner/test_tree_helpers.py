"""The expression helpers lint's speed rests on give exactly what sqlglot's own do: a copy is the
same tree (positions, comments, parents, indexes), and find_all finds the same nodes in the same
order, over every statement of the Nexmark suite and the Flink documentation's examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlglot import exp

from planner.binder.expressions import col
from planner.logical.copying import copy_expr
from planner.logical.walk import find_all
from planner.statements.script import parse_script

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FILES = sorted(FIXTURES.glob("nexmark/*.sql")) + sorted(FIXTURES.glob("flink_docs/*.sql"))


def _trees() -> list[exp.Expr]:
    return [s.tree for f in FILES for s in parse_script(f.read_text()).statements]


def _same(a: exp.Expr, b: exp.Expr) -> None:
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        assert type(x) is type(y)
        assert (x.comments, x._meta, x.arg_key, x.index) == (y.comments, y._meta, y.arg_key, y.index)
        assert x._meta is None or x._meta is not y._meta  # not shared: a change to one is not the other's
        assert (x._type is None) == (y._type is None)
        assert list(x.args) == list(y.args)
        for key, vx in x.args.items():
            vy = y.args[key]
            pairs = list(zip(vx, vy, strict=True)) if isinstance(vx, list) else [(vx, vy)]
            for p, q in pairs:
                if isinstance(p, exp.Expr):
                    assert q.parent is y
                    todo.append((p, q))
                else:
                    assert p == q


@pytest.mark.parametrize("subtrees", [False, True])
def test_copy_expr_is_sqlglots_copy(subtrees):
    trees = _trees()
    assert len(trees) > 100
    for tree in trees:
        for node in tree.walk() if subtrees else [tree]:
            mine, theirs = copy_expr(node), node.copy()
            _same(mine, theirs)
            assert mine == theirs and mine.parent is None and mine is not node


def test_find_all_is_sqlglots_in_the_same_order():
    kinds = [(exp.Identifier,), (exp.Anonymous, exp.Split), (exp.Window,), (exp.Expr,)]
    for tree in _trees():
        for types in kinds:
            mine, theirs = find_all(tree, *types), list(tree.find_all(*types))
            assert len(mine) == len(theirs) and all(m is t for m, t in zip(mine, theirs, strict=True))


def test_col_is_sqlglots_column():
    for name in ("a", "EXPR$0", "$agg1", "with space"):
        mine, theirs = col(name), exp.column(exp.to_identifier(name, quoted=True), copy=False)
        assert mine == theirs and list(mine.args) == list(theirs.args) and mine.sql() == theirs.sql()


def test_renamed_and_materialized_keep_every_other_attribute_of_a_field():
    import dataclasses

    from planner.logical import typing as T
    from planner.logical.fields import Field, TimeKind, WindowRole, WindowTag

    f = Field("a", T.BIGINT, TimeKind.ROWTIME, False, WindowTag(3, WindowRole.END))
    names = [x.name for x in dataclasses.fields(Field)]
    assert names == ["name", "type", "time", "nullable", "window"]  # a new attribute: renamed() must carry it
    r, m = f.renamed("b"), f.materialized()
    assert (r.name, r.type, r.time, r.nullable, r.window) == ("b", f.type, f.time, f.nullable, f.window)
    assert (m.name, m.type, m.time, m.nullable, m.window) == ("a", f.type, None, f.nullable, f.window)


def test_copy_replacing_is_a_copy_then_transform():
    from planner.logical.copying import copy_replacing

    def new_node(n: exp.Expr, is_root: bool) -> exp.Expr | None:
        if isinstance(n, exp.Column) and len(n.name) % 2 == 0:
            return exp.Paren(this=exp.Literal.number(len(n.name))) if not is_root else exp.Literal.string(n.name)
        if isinstance(n, exp.Literal) and n.is_string:
            return exp.Literal.string(n.this.upper())
        return None

    def fun(n: exp.Expr) -> exp.Expr:
        return new_node(n, n.parent is None) or n

    for tree in _trees():
        for node in [tree, *find_all(tree, exp.Column, exp.Where, exp.Condition)]:
            mine, theirs = copy_replacing(node, new_node), node.copy().transform(fun, copy=False)
            _same(mine, theirs)
            assert mine == theirs
