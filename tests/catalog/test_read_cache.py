"""An in-memory catalog keeps what it read until its next write: every write (create, replace,
drop, alter, rename, temporary objects) is seen by the next read, and a catalog on disk keeps
nothing (another process may write it)."""

from __future__ import annotations

import pytest

from catalog import Catalog, Column, FunctionDef, TableDef, ViewDef


def _table(name: str, *cols: str, temporary: bool = False) -> TableDef:
    return TableDef(name, tuple(Column(c, "BIGINT") for c in cols), options={"connector": "datagen"}, temporary=temporary)


@pytest.fixture
def cat() -> Catalog:
    c = Catalog.in_memory()
    c.create(_table("t", "a"))
    c.create(ViewDef("v", "SELECT a FROM t"))
    # read everything once, absent names too, so that what follows reads from what was kept
    assert c.get_relation("t") is not None and c.get_relation("v") is not None
    assert c.get_relation("nowhere") is None and c.get_function("f") is None
    assert c.names("table") == ["t"] and c.names("view") == ["v"]
    return c


def test_reads_are_kept_and_equal_to_a_fresh_read(cat):
    assert cat.get_relation("t") is cat.get_relation("t")
    assert cat.get_relation("t") == _table("t", "a")


def test_create_or_replace_and_a_new_object_are_seen(cat):
    cat.create(ViewDef("v", "SELECT a + 1 AS b FROM t"), or_replace=True)
    cat.create(_table("nowhere", "x"))
    assert cat.get_view("v").query == "SELECT a + 1 AS b FROM t"
    assert cat.get_table("nowhere") == _table("nowhere", "x")
    assert cat.names("table") == ["nowhere", "t"]


def test_drop_is_seen(cat):
    cat.drop("view", "v")
    assert cat.get_relation("v") is None
    assert cat.names("view") == []
    assert cat.suggest("table", "V") is None


def test_alter_is_seen_even_when_the_change_reads_the_catalog(cat):
    def change(old):
        assert cat.get_relation("t") is not None  # a read during the write
        return TableDef(old.name, old.columns + (Column("b", "STRING"),), options=old.options)

    cat.update("table", "t", change)
    assert [c.name for c in cat.get_table("t").columns] == ["a", "b"]


def test_rename_is_seen(cat):
    cat.rename("table", "t", "u")
    assert cat.get_relation("t") is None
    assert cat.get_table("u").name == "u"
    assert cat.names("table") == ["u"]


def test_temporary_objects_shadow_and_vanish(cat):
    cat.create(_table("t", "z", temporary=True))
    assert [c.name for c in cat.get_table("t").columns] == ["z"]
    cat.drop("table", "t")
    assert [c.name for c in cat.get_table("t").columns] == ["a"]


def test_functions_are_seen_in_any_case(cat):
    cat.create(FunctionDef("f", "com.example.F"))
    assert cat.get_function("F").class_name == "com.example.F"
    cat.drop("function", "f")
    assert cat.get_function("F") is None


def test_a_catalog_on_disk_keeps_nothing(tmp_path):
    first, second = Catalog.open(tmp_path), Catalog.open(tmp_path)
    assert first.get_relation("t") is None and first.names("table") == []
    second.create(_table("t", "a"))  # another connection, as another process would
    assert first.get_relation("t") == _table("t", "a")
    assert first.names("table") == ["t"]
