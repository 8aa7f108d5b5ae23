"""Where jobs keep their checkpoints (sqlengine/checkpoint_root.py): under the home, or under
Flink's 'execution.checkpointing.dir' (--checkpoint-root), a directory a cluster's machines share.
Another file system's URI is refused before a job starts; a cluster's job whose checkpoint is on
this machine only says so. The jobs themselves: tests/sqlengine/test_state_backend.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine import checkpoint_root


def test_a_path_or_a_file_uri_names_the_directory(tmp_path: Path) -> None:
    assert checkpoint_root.directory(f"file://{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.directory(f"file:{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.root({}, tmp_path / "home") == tmp_path / "home" / "checkpoints"
    assert checkpoint_root.root({"state.checkpoints.dir": str(tmp_path / "old")}, tmp_path) == tmp_path / "old"
    assert checkpoint_root.setting(str(tmp_path)) == {"execution.checkpointing.dir": str(tmp_path)}


def test_another_file_system_is_refused_with_what_to_do() -> None:
    with pytest.raises(checkpoint_root.NotLocal, match=r"'execution.checkpointing.dir' = 'hdfs://nn:8020/ck': checkpoints and savepoints "
                       r"must be on a file system mounted here .* cannot do on hdfs://"):
        checkpoint_root.setting("hdfs://nn:8020/ck")


def test_a_cluster_elsewhere_with_checkpoints_on_this_machine_is_told(tmp_path: Path) -> None:
    note = checkpoint_root.local_only_note("spark://10.0.0.5:7077", {}, tmp_path)
    assert note is not None and f"under {tmp_path / 'checkpoints'}, on this machine only" in note
    assert checkpoint_root.local_only_note("yarn", {}, tmp_path) is not None
    # local mode, a cluster on this machine, or a directory given: nothing to say
    assert checkpoint_root.local_only_note("local[2]", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("spark://127.0.0.1:7077", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("yarn", {"execution.checkpointing.dir": "/shared"}, tmp_path) is None
