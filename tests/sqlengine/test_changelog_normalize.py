"""ChangelogNormalize on its own (plain Python over Arrow): upserts and tombstones of a key, in
random micro-batches with the state pickled in between, become a well-formed changelog whose
final table is the last row of every key not deleted; and Flink's cases: an identical upsert
and a delete of an unknown key emit nothing, a delete retracts the whole row held."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.kinds import DELETE, INSERT
from sqlengine.changelog.normalize import ChangelogNormalize
from tests.sqlengine.test_changelog_operators import apply_changelog, out_schema, run, table

FIELDS = [("id", pa.int64()), ("name", pa.string())]
UPSERT = INSERT  # an upsert source marks upserts 0 (+I) and tombstones 3 (-D)


def normalize(ttl_ms: int | None = None) -> ChangelogNormalize:
    return ChangelogNormalize([0], out_schema(FIELDS), ttl_ms=ttl_ms)


def batch(*records: tuple[int, tuple[Any, ...]]) -> list[pa.Table | None]:
    return [table(FIELDS, list(records))]


def test_upserts_become_inserts_and_updates_and_tombstones_deletes_of_the_whole_row():
    out = run(normalize(), [
        batch((UPSERT, (1, "a")), (UPSERT, (2, "b"))),
        batch((UPSERT, (1, "c"))),
        batch((DELETE, (2, None))),  # a tombstone: only the key
    ])
    assert out == [("+I", (1, "a")), ("+I", (2, "b")), ("-U", (1, "a")), ("+U", (1, "c")), ("-D", (2, "b"))]


def test_a_repeated_row_and_a_delete_of_an_unknown_key_emit_nothing():
    out = run(normalize(), [batch((UPSERT, (1, "a"))), batch((UPSERT, (1, "a")), (DELETE, (7, None)))])
    assert out == [("+I", (1, "a"))]


def test_changes_of_one_batch_are_folded_per_key():
    out = run(normalize(), [
        batch((UPSERT, (1, "a"))),
        batch((UPSERT, (1, "b")), (DELETE, (1, None)), (UPSERT, (1, "c")), (UPSERT, (2, "x")), (DELETE, (2, None))),
    ])
    assert out == [("+I", (1, "a")), ("-U", (1, "a")), ("+U", (1, "c"))]


def test_with_a_ttl_a_forgotten_key_comes_again_and_its_delete_is_passed_on():
    op = normalize(ttl_ms=1000)
    state = op.new_state()
    op.apply(state, batch((UPSERT, (1, "a"))), now_ms=0)
    again = op.apply(state, batch((UPSERT, (1, "b"))), now_ms=5000)  # forgotten: no -U of "a"
    assert again.kinds == [INSERT] and again.rows == [(1, "b")]
    gone = op.apply(state, batch((DELETE, (1, None))), now_ms=9000)
    assert gone.kinds == [DELETE] and gone.rows == [(1, None)]
    assert op.entries(state) == 0


records = st.lists(
    st.tuples(st.sampled_from([UPSERT, UPSERT, DELETE]), st.integers(0, 4), st.sampled_from(["a", "b", None])),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(records, st.lists(st.integers(1, 6), max_size=10))
def test_the_changelog_ends_in_the_last_row_of_every_key(recs, cuts):
    final: dict[int, tuple[Any, ...]] = {}
    changes: list[tuple[int, tuple[Any, ...]]] = []
    for kind, key, name in recs:
        row = (key, name if kind == UPSERT else None)
        changes.append((kind, row))
        if kind == UPSERT:
            final[key] = row
        else:
            final.pop(key, None)
    batches, i = [], 0
    for n in [*cuts, len(changes)]:
        if i < len(changes):
            batches.append(batch(*changes[i:i + n]))
        i += n
    out = run(normalize(), batches)
    assert apply_changelog(out) == dict.fromkeys(final.values(), 1)
