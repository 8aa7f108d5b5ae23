"""The catalog: persistent across processes, transactional under kill -9, safe with concurrent
writers, and secrets masked wherever definitions are shown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from catalog import Catalog, CatalogError, Column, FunctionDef, ObjectExists, ObjectNotFound, TableDef, ViewDef, Watermark
from catalog.store import DB_NAME

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _table(name: str, n: int = 3, **options: str) -> TableDef:
    return TableDef(
        name,
        tuple(Column(f"c{i}", "BIGINT") for i in range(n)) + (Column("ts", "TIMESTAMP(3)"),),
        watermark=Watermark("ts", "ts - INTERVAL '5' SECOND"),
        primary_key=("c0",),
        options={"connector": "datagen", **options},
    )


def test_a_table_created_in_one_session_exists_in_the_next(tmp_path):
    first = Catalog.open(tmp_path)
    first.create(_table("orders"))
    first.create(ViewDef("v", "SELECT c0 FROM orders"))
    first.create(FunctionDef("f", "com.example.F"))
    first.close()
    second = Catalog.open(tmp_path)
    assert second.get_table("orders") == _table("orders")
    assert second.get_view("v").query == "SELECT c0 FROM orders"
    assert second.get_function("f").class_name == "com.example.F"
    assert second.names("table") == ["orders"]


def test_tables_and_views_share_a_namespace_functions_do_not(tmp_path):
    cat = Catalog.open(tmp_path)
    cat.create(_table("x"))
    with pytest.raises(ObjectExists):
        cat.create(ViewDef("x", "SELECT 1"))
    cat.create(FunctionDef("x", "com.example.X"))  # a function may share the name
    assert cat.create(_table("x"), if_not_exists=True) is False


def test_function_names_are_case_insensitive_table_names_are_not(tmp_path):
    cat = Catalog.open(tmp_path)
    cat.create(FunctionDef("count_char", "com.example.CountChar"))
    cat.create(_table("orders"))
    assert cat.get_function("COUNT_CHAR").class_name == "com.example.CountChar"
    assert cat.get_function("Count_Char").name == "count_char"
    assert cat.get_function("count") is None
    assert cat.get_table("ORDERS") is None  # Flink identifiers of tables are case-sensitive


def test_temporary_objects_shadow_and_vanish(tmp_path):
    cat = Catalog.open(tmp_path)
    cat.create(_table("t", 2))
    cat.create(TableDef("t", (Column("only", "INT"),), temporary=True))
    assert cat.get_table("t").column_names == ["only"]
    cat.close()
    assert Catalog.open(tmp_path).get_table("t").column_names == ["c0", "c1", "ts"]


def test_drop_rename_and_did_you_mean(tmp_path):
    cat = Catalog.open(tmp_path)
    cat.create(_table("orders"))
    cat.rename("table", "orders", "orders2")
    assert cat.get_table("orders") is None and cat.get_table("orders2") is not None
    with pytest.raises(ObjectNotFound) as err:
        cat.drop("table", "Orders2")
    assert "Did you mean `orders2`?" in str(err.value)
    assert cat.drop("table", "nope", if_exists=True) is False
    cat.drop("table", "orders2")
    assert cat.names("table") == []


def test_secrets_are_masked_in_repr_and_show_create(tmp_path):
    from planner.statements.ddl import show_create_table

    t = _table("k", **{"properties.sasl.jaas.config": "org.x required password='p4ss';", "password": "hunter2"})
    for text in (repr(t), str(t), show_create_table(t)):
        assert "hunter2" not in text and "p4ss" not in text
        assert "******" in text
    assert t.options["password"] == "hunter2"  # the definition itself keeps the value


def test_update_is_a_read_modify_write_that_a_refusal_leaves_untouched(tmp_path):
    cat = Catalog.open(tmp_path)
    cat.create(_table("t"))
    new = cat.update("table", "t", lambda t: t.with_options({**t.options, "k": "v"}))
    assert new.options["k"] == "v" and Catalog.open(tmp_path).get_table("t").options["k"] == "v"

    def refuse(t):
        raise ValueError("no")

    with pytest.raises(ValueError):
        cat.update("table", "t", refuse)
    assert Catalog.open(tmp_path).get_table("t") == new
    assert cat.update("table", "nope", refuse, if_exists=True) is None
    with pytest.raises(ObjectNotFound):
        cat.update("table", "nope", refuse)
    cat.create(ViewDef("v", "SELECT 1"))
    with pytest.raises(CatalogError, match="`v` is a view, not a table"):
        cat.update("table", "v", refuse)
    assert cat.rename("table", "nope", "x", if_exists=True) is False


def test_the_catalog_file_is_created_owner_only(tmp_path):
    import stat

    old = os.umask(0o022)
    try:
        cat = Catalog.open(tmp_path)
        cat.create(_table("t", password="hunter2"))
        for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"):  # SQLite gives its files the db's mode
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
        cat.close()
    finally:
        os.umask(old)
    existing = tmp_path / "other"
    existing.mkdir()
    (existing / DB_NAME).touch(mode=0o640)
    os.chmod(existing / DB_NAME, 0o640)
    Catalog.open(existing).close()  # an existing file keeps the mode its owner gave it
    assert stat.S_IMODE((existing / DB_NAME).stat().st_mode) == 0o640


def test_the_home_and_its_logs_are_created_owner_only(tmp_path, monkeypatch):
    import stat

    from catalog.home import ENV_VAR, resolve_home

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "a" / "home"))
    old = os.umask(0o022)
    try:
        home = resolve_home()
    finally:
        os.umask(old)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "logs").stat().st_mode) == 0o700
    assert stat.S_IMODE(home.parent.stat().st_mode) == 0o755  # parents: the default mode


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from catalog import Catalog, Column, TableDef
    cat = Catalog.open({home!r})
    prefix, count, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print("ready", flush=True)
    for i in range(count):
        cols = tuple(Column(f"c{{j}}", "STRING", comment="x" * 200) for j in range(width))
        cat.create(TableDef(f"{{prefix}}{{i}}", cols, options={{"connector": "datagen"}}))
    """
)


def _writer(tmp_path, prefix: str, count: int, width: int = 5) -> subprocess.Popen:
    script = WRITER.format(root=ROOT, home=str(tmp_path))
    return subprocess.Popen([sys.executable, "-c", script, prefix, str(count), str(width)], stdout=subprocess.PIPE, text=True)


@pytest.mark.timeout(120)
def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    Catalog.open(tmp_path).close()
    a, b = _writer(tmp_path, "a", 150), _writer(tmp_path, "b", 150)
    assert a.wait(90) == 0 and b.wait(90) == 0
    names = Catalog.open(tmp_path).names("table")
    assert len(names) == 300
    assert {f"a{i}" for i in range(150)} | {f"b{i}" for i in range(150)} == set(names)


@pytest.mark.timeout(120)
def test_a_process_killed_during_ddl_leaves_the_catalog_whole(tmp_path):
    import sqlite3

    Catalog.open(tmp_path).close()
    for round_ in range(6):
        proc = _writer(tmp_path, f"k{round_}_", 10_000, width=40)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.2 + 0.15 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with sqlite3.connect(tmp_path / DB_NAME) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        cat = Catalog.open(tmp_path)
        for name in cat.names("table"):
            t = cat.get_table(name)  # every stored definition reads back whole
            assert len(t.columns) == 40 and all(c.comment == "x" * 200 for c in t.columns)
        cat.close()
    assert len(Catalog.open(tmp_path).names("table")) > 0
