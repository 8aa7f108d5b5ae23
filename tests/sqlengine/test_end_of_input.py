"""The end-of-input strategy (sqlengine.end_of_input), without Spark: which markers a job writes,
when, and what its session is set to for the run that reads them."""

from __future__ import annotations

import json
from pathlib import Path

from sqlengine.end_of_input import EOS_TIME, EXCLUDED_RULES, NO_PUSHDOWN, EndOfInput
from sqlengine.translate.core import SourceInfo


def _source(tmp_path: Path, name: str, one_batch: bool, marked: bool = True) -> SourceInfo:
    marker_dir = tmp_path / name
    marker_dir.mkdir()
    if not marked:
        return SourceInfo(name, bounded=True, one_batch=one_batch)
    return SourceInfo(name, True, marker_dir=marker_dir, time_column="ts", marker_column="__eos7", one_batch=one_batch)


def test_every_marker_is_written_once_and_the_marker_run_goes_without_pushdown(tmp_path):
    eoi = EndOfInput.of([_source(tmp_path, "bids", False), _source(tmp_path, "items", False)])
    assert eoi.needed and not eoi.one_phase
    assert eoi.session_conf() == {EXCLUDED_RULES: None}  # the input run keeps Spark's pushdown
    assert eoi.write() is True
    assert all(m.written for m in eoi.markers)  # both sides of a join end
    row = json.loads(eoi.markers[1].path.read_text())
    assert row == {"ts": EOS_TIME, "__eos7": True}
    assert eoi.session_conf() == {EXCLUDED_RULES: NO_PUSHDOWN}
    assert eoi.write() is False  # nothing new: no second marker run


def test_one_phase_only_when_every_source_delivers_its_input_in_one_batch(tmp_path):
    assert EndOfInput.of([_source(tmp_path, "gen", True), _source(tmp_path, "files", False, marked=False)]).one_phase is False
    both = EndOfInput.of([_source(tmp_path, "gen2", True), _source(tmp_path, "gen3", True, marked=False)])
    assert both.one_phase and len(both.markers) == 1
