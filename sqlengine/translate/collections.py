"""Flink's array and map functions where Spark's namesake differs, each found by the function
suite (tests/functions/cases/collection.txt, against Flink 2.3's values):

- ``arr[i]`` is 1-based in Flink, NULL outside the array (Spark's ``arr[i]`` is 0-based); a
  VARIANT's members are read through Spark's casts of it to an array or a map;
- ARRAY_CONTAINS compares NULLs as equal and is never NULL for a non-NULL array (Spark's is NULL
  when the value or an element is NULL and nothing else matched);
- ARRAY_SORT puts NULLs first ascending and last descending (Spark's array_sort: last always);
- ARRAY_SLICE(a, start [, end]) takes an inclusive end, counts negative offsets from the end and
  is empty when start is past end (Spark's slice takes a length);
- ARRAY_REVERSE and ELEMENT have no Spark namesake;
- STR_TO_MAP's default delimiters are ',' and '=' (Spark's ',' and ':');
- CAST(array AS STRING) writes a NULL element as NULL (Spark as null), its elements as Flink
  casts them.

Lambda variables are named so that no column can be shadowed by them.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from planner.binder.structured import fields as structured_fields
from sqlengine.translate.calls import call as _call

_X, _I = "sqe_elem", "sqe_idx"

# array functions whose result is an array of their first argument's element type
SAME_ARRAY = (exp.ArrayAppend, exp.ArrayPrepend, exp.ArrayConcat, exp.ArrayDistinct, exp.ArrayExcept,
              exp.ArrayRemove, exp.ArrayReverse, exp.ArraySlice)
# ... and those sqlglot keeps as their argument list, or as a call by name
SAME_ARRAY_LISTED = (exp.ArrayIntersect,)
SAME_ARRAY_NAMED = ("ARRAY_SORT", "ARRAY_UNION")



def _n(v: int) -> exp.Expr:
    return exp.Literal.number(v)


def _lambda(body: exp.Expr, *names: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(n) for n in names])


def element_at(arr: exp.Expr, idx: exp.Expr) -> exp.Expr:
    """``arr[idx]``, 1-based; NULL for an index below 1 or past the end (a BIGINT index too,
    which Spark's element_at does not take)."""
    as_int = exp.TryCast(this=idx.copy(), to=exp.DataType.build("INT"))
    return exp.Case(ifs=[exp.If(this=exp.GTE(this=idx.copy(), expression=_n(1)), true=_call("try_element_at", arr, as_int))])


def structured(name: str, args: list[exp.Expr], base: exp.DataType | None) -> exp.Expr:
    """OBJECT_OF(class, k1, v1, ...) as a struct of those fields (planner.binder.structured);
    OBJECT_UPDATE(obj, k, v, ...) as the struct of obj's fields with those replaced (NULL for a
    NULL object)."""
    if name == "OBJECT_OF":
        pairs = [x for i in range(1, len(args) - 1, 2) for x in (args[i], args[i + 1])]
        return _call("named_struct", *pairs) if pairs else _call("struct")
    assert base is not None
    obj, new = args[0], {args[i].name: args[i + 1] for i in range(1, len(args) - 1, 2)}
    pairs = [x for f, _ in structured_fields(base) for x in (exp.Literal.string(f), new.get(f) or exp.Dot(this=obj.copy(), expression=exp.to_identifier(f, quoted=True)))]
    return exp.If(this=exp.Is(this=obj.copy(), expression=exp.Null()), true=exp.Null(), false=_call("named_struct", *pairs))


def variant_member(v: exp.Expr, at: exp.Expr, index: bool) -> exp.Expr:
    """``v[i]`` (1-based; NULL below 1 or past the end) or ``v['key']`` (NULL when absent) of a
    VARIANT, as Flink reads them: an index into an object, or a key into an array, fails the job
    (Spark's cast of the VARIANT to an array or a map fails there)."""
    member = "ARRAY<VARIANT>" if index else "MAP<STRING, VARIANT>"
    cast = exp.Cast(this=v, to=exp.DataType.build(member, dialect="spark"))
    return element_at(cast, at) if index else _call("try_element_at", cast, at)


def contains(arr: exp.Expr, value: exp.Expr) -> exp.Expr:
    same = exp.NullSafeEQ(this=exp.column(_X), expression=value)
    return _call("exists", arr, _lambda(same, _X))


def sort(args: list[exp.Expr]) -> exp.Expr:
    """ARRAY_SORT(a [, ascending [, nulls_first]]): Spark's sort_array puts NULLs where Flink's
    default does (first ascending, last descending); a third argument puts them apart."""
    arr, ascending = args[0], (args[1] if len(args) > 1 else exp.true())
    if len(args) < 3:
        return _by(ascending, lambda asc: _call("sort_array", arr.copy(), asc))
    is_null = exp.Is(this=exp.column(_X), expression=exp.Null())
    nulls = _call("filter", arr.copy(), _lambda(is_null, _X))
    values = _by(ascending, lambda asc: _call("sort_array", _call("filter", arr.copy(), _lambda(exp.Not(this=is_null.copy()), _X)), asc))
    return exp.If(this=args[2], true=_call("concat", nulls, values), false=_call("concat", values.copy(), nulls.copy()))


def _by(ascending: exp.Expr, sorted_: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """Spark's sort_array takes its direction as a constant only: a direction computed per row
    (a column, an expression) chooses between the two sorts; NULL gives NULL."""
    if isinstance(ascending, exp.Boolean):
        return sorted_(ascending)
    return exp.Case(ifs=[exp.If(this=exp.Is(this=ascending.copy(), expression=exp.Null()), true=exp.Null()),
                         exp.If(this=ascending.copy(), true=sorted_(exp.true()))], default=sorted_(exp.false()))


def element(arr: exp.Expr) -> exp.Expr:
    """The sole element, NULL for an empty array; more than one element fails the job, as in Flink."""
    size = _call("size", arr.copy())
    fail = _call("raise_error", exp.Literal.string("ELEMENT: the array has more than one element"))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=arr.copy(), expression=exp.Null()), true=exp.Null()),  # size(NULL) is -1
                         exp.If(this=exp.EQ(this=size.copy(), expression=_n(0)), true=exp.Null()),
                         exp.If(this=exp.EQ(this=size, expression=_n(1)), true=_call("element_at", arr, _n(1)))],
                    default=fail)


def slice_(arr: exp.Expr, start: exp.Expr, end: exp.Expr | None) -> exp.Expr:
    """The elements from ``start`` to ``end`` inclusive (1-based; 0 is the first; negative from the
    end; no end: to the last), by position, so offsets outside the array need no clamping."""
    size = _call("size", arr.copy())

    def position(offset: exp.Expr) -> exp.Expr:
        return exp.Case(ifs=[exp.If(this=exp.LT(this=offset.copy(), expression=_n(0)),
                                    true=exp.Add(this=exp.Add(this=size.copy(), expression=offset.copy()), expression=_n(1))),
                             exp.If(this=exp.EQ(this=offset.copy(), expression=_n(0)), true=_n(1))],
                        default=offset.copy())

    at = exp.Add(this=exp.column(_I), expression=_n(1))
    keep = exp.and_(exp.GTE(this=at.copy(), expression=position(start)),
                    exp.LTE(this=at.copy(), expression=position(end) if end is not None else size.copy()))
    offsets = [start, *([end] if end is not None else [])]
    unknown = exp.or_(*[exp.Is(this=o.copy(), expression=exp.Null()) for o in offsets])  # Flink: NULL, not []
    return exp.If(this=unknown, true=exp.Null(), false=_call("filter", arr, _lambda(keep, _X, _I)))


def str_to_map(args: list[exp.Expr]) -> exp.Expr:
    defaults = [exp.Literal.string(","), exp.Literal.string("=")]
    return _call("str_to_map", args[0], *(args[1:] + defaults[len(args) - 1:]))


def to_string(arr: exp.Expr, element_type: exp.DataType, cast_element: Callable[[exp.Cast, exp.DataType], exp.Expr]) -> exp.Expr:
    """'[a, b, NULL]': each element as Flink casts it to STRING."""
    text = cast_element(exp.Cast(this=exp.column(_X), to=exp.DataType.build("STRING")), element_type)
    each = _call("transform", arr, _lambda(exp.Coalesce(this=text, expressions=[exp.Literal.string("NULL")]), _X))
    return _call("concat", exp.Literal.string("["), _call("array_join", each, exp.Literal.string(", ")), exp.Literal.string("]"))


def map_to_string(m: exp.Expr, key_type: exp.DataType, value_type: exp.DataType,
                  cast_part: Callable[[exp.Cast, exp.DataType], exp.Expr]) -> exp.Expr:
    """'{k=v, k2=NULL}' (a MAP, or a MULTISET's value=count): each key and value as Flink casts it
    to STRING, in the map's order."""
    def text(part: str, t: exp.DataType) -> exp.Expr:
        field = exp.Dot(this=exp.column(_X), expression=exp.to_identifier(part))
        return exp.Coalesce(this=cast_part(exp.Cast(this=field, to=exp.DataType.build("STRING")), t), expressions=[exp.Literal.string("NULL")])

    entry = _call("concat", text("key", key_type), exp.Literal.string("="), text("value", value_type))
    each = _call("transform", _call("map_entries", m), _lambda(entry, _X))
    return _call("concat", exp.Literal.string("{"), _call("array_join", each, exp.Literal.string(", ")), exp.Literal.string("}"))


def struct_type(fields: list[tuple[str, exp.DataType]]) -> exp.DataType:
    columns = [exp.ColumnDef(this=exp.to_identifier(name, quoted=True), kind=t) for name, t in fields]
    return exp.DataType(this=exp.DType.STRUCT, expressions=columns, nested=True)


def row_to_string(row: exp.Expr, fields: list[tuple[str, exp.DataType]],
                  cast_field: Callable[[exp.Cast, exp.DataType], exp.Expr], named: bool = False) -> exp.Expr:
    """'(a, b, NULL)': each field as Flink casts it to STRING; NULL for a NULL row. ``named``: a
    structured object's fields with their names, '(name=a, age=NULL)'."""
    parts: list[exp.Expr] = []
    for name, t in fields:
        field = exp.Dot(this=row.copy(), expression=exp.to_identifier(name, quoted=True))
        text = cast_field(exp.Cast(this=field, to=exp.DataType.build("STRING")), t)
        value: exp.Expr = exp.Coalesce(this=text, expressions=[exp.Literal.string("NULL")])
        parts.append(_call("concat", exp.Literal.string(f"{name}="), value) if named else value)
    joined = _call("concat", exp.Literal.string("("), _call("concat_ws", exp.Literal.string(", "), *parts), exp.Literal.string(")"))
    return exp.If(this=exp.Is(this=row.copy(), expression=exp.Null()), true=exp.Null(), false=joined)
