"""FIRST_VALUE, LAST_VALUE and LISTAGG over a changelog, as Flink's ...WithRetract functions
compute them: after any sequence of values added and taken back, the result is that of the values
held in arrival order (a retraction takes back the earliest occurrence of its value), NULLs
ignored; the insert-only forms keep only what they need (the first or latest value)."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import AggCallSpec, accumulator

CHANGES = st.lists(st.tuples(st.booleans(), st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))), max_size=25)


def held_after(changes: list[tuple[bool, str | None]]) -> tuple[list[tuple[int, str | None]], list[tuple[int, str]]]:
    """Apply the changes to the accumulators and, alongside, to a list of (arrival, value)."""
    accs = {f: accumulator(AggCallSpec(f), None, True) for f in ("FIRST_VALUE", "LAST_VALUE", "LISTAGG")}
    slots = {f: a.new() for f, a in accs.items()}
    held: list[tuple[int, str]] = []
    applied = []
    for i, (add, v) in enumerate(changes):
        if not add and v is not None and not any(h == v for _, h in held):
            continue  # only what is held is taken back (as a changelog does)
        sign = 1 if add else -1
        for f, a in accs.items():
            slots[f] = pickle.loads(pickle.dumps(a.update(slots[f], [v], sign)))  # kept in state between changes
        if v is not None:
            if add:
                held.append((i, v))
            else:
                held.remove(next(h for h in held if h[1] == v))  # the earliest occurrence
        applied.append((i, v))
    values = [v for _, v in held]
    want = {"FIRST_VALUE": values[0] if values else None, "LAST_VALUE": values[-1] if values else None,
            "LISTAGG": ",".join(values) if values else None}
    assert {f: a.value(slots[f]) for f, a in accs.items()} == want
    return applied, held


@settings(max_examples=200, deadline=None)
@given(CHANGES)
def test_the_result_is_that_of_the_values_held_in_arrival_order(changes) -> None:
    held_after(changes)


def test_a_retraction_takes_back_the_earliest_occurrence() -> None:
    _, held = held_after([(True, "a"), (True, "b"), (True, "a"), (False, "a")])
    assert [v for _, v in held] == ["b", "a"]  # so FIRST_VALUE is b, LAST_VALUE a, LISTAGG "b,a"


def test_insert_only_forms_and_a_separator() -> None:
    first, last = (accumulator(AggCallSpec(f), None, False) for f in ("FIRST_VALUE", "LAST_VALUE"))
    f, la = first.new(), last.new()
    for v in (None, "x", None, "y"):
        f, la = first.update(f, [v], 1), last.update(la, [v], 1)
    assert (first.value(f), last.value(la)) == ("x", "y")
    listagg = accumulator(AggCallSpec("LISTAGG", args=2), None, True)
    acc = listagg.new()
    for v in ("1", None, "2"):
        acc = listagg.update(acc, [v, "; "], 1)
    assert listagg.value(acc) == "1; 2"
    assert listagg.value(listagg.update(listagg.update(acc, ["1", "; "], -1), ["2", "; "], -1)) is None
