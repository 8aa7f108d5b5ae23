"""The end-of-input strategy (sqlengine.end_of_input), without Spark: which markers a job writes,
when, behind how many empty files, and what its session is set to for the runs that read them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from sqlengine.end_of_input import EOS_TIME, EXCLUDED_RULES, NO_PUSHDOWN, EndOfInput
from sqlengine.translate.core import SourceInfo


def _source(tmp_path: Path, name: str, batches: Callable[[], int | None] | None, marked: bool = True) -> SourceInfo:
    marker_dir = tmp_path / name
    marker_dir.mkdir()
    if not marked:
        return SourceInfo(name, bounded=True, batches=batches)
    return SourceInfo(name, True, marker_dir=marker_dir, time_column="ts", marker_column="__eos7", batches=batches)


def _read_order(directory: Path) -> list[str]:
    """The files as Spark's file source reads them: oldest first."""
    return [p.name for p in sorted(directory.iterdir(), key=lambda p: p.stat().st_mtime)]


def test_sources_that_cannot_count_their_batches_get_their_markers_after_the_input(tmp_path):
    eoi = EndOfInput.of([_source(tmp_path, "bids", None), _source(tmp_path, "items", lambda: 3)])
    assert eoi.needed
    assert eoi.write_ahead() is False  # bids cannot count: nothing is written before the start
    assert not eoi.written()
    assert eoi.session_conf() == {EXCLUDED_RULES: None}  # the input run keeps Spark's pushdown
    assert eoi.write() is True
    assert all(m.written for m in eoi.markers)  # both sides of a join end
    assert _read_order(tmp_path / "items") == ["end-of-input.json"]  # no empty file before it
    row = json.loads(eoi.markers[1].path.read_text())
    assert row == {"ts": EOS_TIME, "__eos7": True}
    assert eoi.session_conf() == {EXCLUDED_RULES: NO_PUSHDOWN}
    assert eoi.write() is False  # nothing new: no second marker run


def test_counted_sources_get_their_markers_with_the_longest_sources_last_batch(tmp_path):
    asked = []

    def three() -> int:
        asked.append("files")
        return 3

    eoi = EndOfInput.of([_source(tmp_path, "gen", lambda: 1), _source(tmp_path, "files", three),
                         _source(tmp_path, "unmarked", lambda: 4, marked=False)])
    assert asked == []  # counted when the job starts, not when it is planned
    assert eoi.write_ahead() is True
    assert asked == ["files"]
    # the watermark is the least of the sources': every marker waits for the fourth batch
    for name in ("gen", "files"):
        assert _read_order(tmp_path / name) == ["empty-00000.json", "empty-00001.json", "empty-00002.json", "end-of-input.json"]
        assert (tmp_path / name / "empty-00000.json").read_text() == ""
    assert eoi.session_conf() == {EXCLUDED_RULES: NO_PUSHDOWN}
    assert eoi.write_ahead() is True and asked == ["files"]  # a resumed job: already in place
    assert eoi.write() is False


def test_a_source_whose_count_fails_leaves_the_markers_to_a_second_run(tmp_path):
    eoi = EndOfInput.of([_source(tmp_path, "files", lambda: None), _source(tmp_path, "gen", lambda: 1)])
    assert eoi.write_ahead() is False and not eoi.written()


def test_one_batch_sources_get_their_marker_alone_and_no_marker_needs_nothing(tmp_path):
    both = EndOfInput.of([_source(tmp_path, "gen2", lambda: 1), _source(tmp_path, "gen3", lambda: 1, marked=False)])
    assert len(both.markers) == 1 and both.write_ahead() is True
    assert _read_order(tmp_path / "gen2") == ["end-of-input.json"]
    assert EndOfInput.of([_source(tmp_path, "plain", None, marked=False)]).write_ahead() is True
