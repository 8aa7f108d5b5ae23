"""The test suite runs on two pytest-xdist workers (the README's `-n 2`), each taking whole
groups (tests/conftest.py): a module, or a directory whose modules share a session fixture. A
session fixture added under a directory that is not such a group would start once per worker."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import LONG_FIRST, SHARED_GROUPS, xdist_group_of

ROOT = Path(__file__).resolve().parents[1]


def test_a_directory_with_session_fixtures_is_one_group() -> None:
    for conftest in sorted((ROOT / "tests").rglob("conftest.py")):
        directory = conftest.parent.relative_to(ROOT).as_posix() + "/"
        if directory != "tests/" and 'scope="session"' in conftest.read_text():
            assert directory in SHARED_GROUPS, f"{directory} has session fixtures: add it to SHARED_GROUPS"


def test_a_module_is_a_group_unless_its_directory_shares_one() -> None:
    assert xdist_group_of("tests/planner/test_fmt.py::test_x[q5.sql]") == "tests/planner/test_fmt.py"
    assert xdist_group_of("tests/kafka/test_broker.py::test_y") == "tests/kafka/"
    assert xdist_group_of("tests/kafka/test_upsert_source.py::test_z") == "tests/kafka/"


def test_the_long_groups_listed_first_exist() -> None:
    for group in LONG_FIRST:
        assert (ROOT / group).exists(), f"{group} is listed in LONG_FIRST but is gone"
