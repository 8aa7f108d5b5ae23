"""The catalog: permanent objects in SQLite under the home, temporary ones in this process.

Every write is one SQLite transaction (``BEGIN IMMEDIATE``), so a process killed during DDL leaves
the catalog as it was before or after, and concurrent writers from several processes queue on
SQLite's lock instead of overwriting each other. An ALTER reads, changes and writes back the
definition inside one such transaction (``update``), so concurrent ALTERs of one object lose
nothing. The file is created owner-only (0600): it holds secret option values in plain text.
Tables and views share one namespace, functions have their own, as in Flink. Temporary objects
shadow permanent ones of the same name.

An in-memory catalog (lint, explain: one per file) is read far more often than written: every
reference to a table, view or function looks it up. Nothing but this object can write to its
database, so it keeps what it read (and what is absent) until its next write.
"""

from __future__ import annotations

import difflib
import functools
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any, TypeVar

from catalog.errors import CatalogError, ObjectExists, ObjectNotFound
from catalog.home import private_file
from catalog.model import KINDS, CatalogObject, FunctionDef, TableDef, ViewDef

SCHEMA_VERSION = 1
DB_NAME = "catalog.db"

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS objects (
    namespace  TEXT NOT NULL,          -- 'relation' (tables, views) or 'function'
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,          -- table | view | function
    definition TEXT NOT NULL,          -- the dataclass as JSON
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (namespace, name)
);
"""


def _namespace(kind: str) -> str:
    return "function" if kind == "function" else "relation"


F = TypeVar("F", bound=Callable[..., Any])


def _writes(method: F) -> F:
    """A write: what was read before is forgotten, and again after (a read inside the write,
    such as an ALTER's change reading another object, saw the catalog before it)."""

    @functools.wraps(method)
    def wrapper(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        self._forget()
        try:
            return method(self, *args, **kwargs)
        finally:
            self._forget()

    return wrapper  # type: ignore[return-value]  # same signature as method


def _wrong_kind(name: str, found: str, wanted: str) -> CatalogError:
    return CatalogError(f"`{name}` is a {found}, not a {wanted}; use ALTER {found.upper()}.")


class Catalog:
    """Dynamic tables, views and functions. ``Catalog.in_memory()`` keeps nothing on disk."""

    def __init__(self, path: str | Path | None = None):
        self.path = str(path) if path is not None else ":memory:"
        self._lock = threading.RLock()
        if self.path != ":memory:":
            private_file(Path(self.path))  # created 0600: it holds secret option values as they are
        self._conn = sqlite3.connect(
            self.path, timeout=60.0, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA busy_timeout = 60000")
        if self.path != ":memory:":
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
        with self._transaction() as cur:
            for stmt in filter(str.strip, _DDL.split(";")):
                cur.execute(stmt)
            row = cur.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                cur.execute(
                    "INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
            elif int(row[0]) > SCHEMA_VERSION:
                raise CatalogError(
                    f"The catalog at {self.path} was written by a newer sqlengine "
                    f"(schema {row[0]} > {SCHEMA_VERSION}); upgrade sqlengine to use it."
                )
        self._temporary: dict[tuple[str, str], CatalogObject] = {}
        # reads of an in-memory catalog, kept until the next write (None: absent); a file may
        # be written by other processes, so nothing read from one is kept
        self._memory = self.path == ":memory:"
        self._read: dict[tuple[str, str], CatalogObject | None] = {}
        self._names: dict[str, list[str]] = {}

    def _forget(self) -> None:
        self._read.clear()
        self._names.clear()

    @classmethod
    def open(cls, home: str | Path) -> Catalog:
        return cls(Path(home) / DB_NAME)

    @classmethod
    def in_memory(cls) -> Catalog:
        return cls(None)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")

    # -- reads ---------------------------------------------------------------------------------

    def _load(self, namespace: str, name: str) -> CatalogObject | None:
        temp = self._temporary.get((namespace, name))
        if temp is not None:
            return temp
        if self._memory and (namespace, name) in self._read:
            return self._read[(namespace, name)]
        with self._lock:
            row = self._conn.execute(
                "SELECT kind, definition FROM objects WHERE namespace = ? AND name = ?",
                (namespace, name),
            ).fetchone()
        obj = KINDS[row[0]].from_json(row[1]) if row else None
        if self._memory:
            self._read[(namespace, name)] = obj
        return obj

    def get_relation(self, name: str) -> TableDef | ViewDef | None:
        obj = self._load("relation", name)
        return obj if isinstance(obj, (TableDef, ViewDef)) else None

    def get_table(self, name: str) -> TableDef | None:
        obj = self.get_relation(name)
        return obj if isinstance(obj, TableDef) else None

    def get_view(self, name: str) -> ViewDef | None:
        obj = self.get_relation(name)
        return obj if isinstance(obj, ViewDef) else None

    def get_function(self, name: str) -> FunctionDef | None:
        """Function names are case-insensitive, as in Flink: an exact match first, then any case."""
        obj = self._load("function", name)
        if obj is None:
            same = [n for n in self.names("function") if n.lower() == name.lower()]
            obj = self._load("function", same[0]) if same else None
        return obj if isinstance(obj, FunctionDef) else None

    def names(self, kind: str) -> list[str]:
        """Sorted names of all objects of ``kind`` (table, view or function)."""
        if self._memory and kind in self._names:
            return list(self._names[kind])
        ns = _namespace(kind)
        with self._lock:
            rows = self._conn.execute(
                "SELECT name FROM objects WHERE namespace = ? AND kind = ?", (ns, kind)
            ).fetchall()
        found = {r[0] for r in rows}
        for (tns, name), obj in self._temporary.items():
            if tns == ns:
                (found.add if obj.kind == kind else found.discard)(name)
        names = sorted(found)
        if self._memory:
            self._names[kind] = names
        return list(names)

    def objects(self, kind: str) -> list[CatalogObject]:
        out = []
        for name in self.names(kind):
            obj = self._load(_namespace(kind), name)
            if obj is not None:
                out.append(obj)
        return out

    def suggest(self, namespace_or_kind: str, name: str) -> str | None:
        """The closest existing name, for "did you mean" (case-insensitive match first)."""
        ns = _namespace(namespace_or_kind)
        kinds = ("function",) if ns == "function" else ("table", "view")
        candidates = [n for k in kinds for n in self.names(k)]
        for cand in candidates:
            if cand.lower() == name.lower():
                return cand
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
        return close[0] if close else None

    # -- writes --------------------------------------------------------------------------------

    @_writes
    def create(
        self, obj: CatalogObject, *, if_not_exists: bool = False, or_replace: bool = False
    ) -> bool:
        """Store ``obj``; returns False when it existed and ``if_not_exists`` kept the old one."""
        ns = _namespace(obj.kind)
        if obj.temporary:
            existing = self._temporary.get((ns, obj.name))
            if existing is not None and not or_replace:
                if if_not_exists:
                    return False
                raise ObjectExists(obj.kind, obj.name, existing.kind)
            self._temporary[(ns, obj.name)] = obj
            return True
        now = time.time()
        with self._transaction() as cur:
            row = cur.execute(
                "SELECT kind FROM objects WHERE namespace = ? AND name = ?", (ns, obj.name)
            ).fetchone()
            if row is not None:
                if if_not_exists and not or_replace:
                    return False
                if not or_replace:
                    raise ObjectExists(obj.kind, obj.name, row[0])
                cur.execute(
                    "UPDATE objects SET kind = ?, definition = ?, updated_at = ? "
                    "WHERE namespace = ? AND name = ?",
                    (obj.kind, obj.to_json(), now, ns, obj.name),
                )
            else:
                cur.execute(
                    "INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)",
                    (ns, obj.name, obj.kind, obj.to_json(), now, now),
                )
        return True

    @_writes
    def drop(self, kind: str, name: str, *, if_exists: bool = False, temporary: bool = False) -> bool:
        """Remove a table, view or function; False when absent and ``if_exists``."""
        ns = _namespace(kind)
        temp = self._temporary.get((ns, name))
        if temp is not None and temp.kind == kind:
            del self._temporary[(ns, name)]
            return True
        if temporary:
            if if_exists:
                return False
            raise ObjectNotFound(f"temporary {kind}", name, self.suggest(kind, name))
        with self._transaction() as cur:
            row = cur.execute(
                "SELECT kind FROM objects WHERE namespace = ? AND name = ?", (ns, name)
            ).fetchone()
            if row is None or row[0] != kind:
                if if_exists:
                    return False
                if row is not None:
                    raise CatalogError(f"`{name}` is a {row[0]}, not a {kind}; use DROP {row[0].upper()}.")
                raise ObjectNotFound(kind, name, self.suggest(kind, name))
            cur.execute("DELETE FROM objects WHERE namespace = ? AND name = ?", (ns, name))
        return True

    @_writes
    def update(
        self, kind: str, name: str, change: Callable[[CatalogObject], CatalogObject], *, if_exists: bool = False
    ) -> CatalogObject | None:
        """Read ``name``, apply ``change`` to it and store the result, all in one transaction (ALTER).

        Concurrent updates of one object from several processes queue on SQLite's write lock, so
        none is lost. ``change`` may raise to refuse the change: nothing is written. Returns the new
        definition, or None when the object is absent and ``if_exists``."""
        ns = _namespace(kind)
        with self._lock:
            temp = self._temporary.get((ns, name))
            if temp is not None:
                if temp.kind != kind:
                    raise _wrong_kind(name, temp.kind, kind)
                new = change(temp)
                self._temporary[(ns, name)] = new
                return new
        with self._transaction() as cur:
            row = self._stored(cur, kind, name, if_exists)
            if row is None:
                return None
            new = change(KINDS[kind].from_json(row[0]))
            if new.name != name or new.kind != kind:
                raise CatalogError(f"ALTER cannot change the name or kind of `{name}`; use RENAME TO.")
            cur.execute(
                "UPDATE objects SET definition = ?, updated_at = ? WHERE namespace = ? AND name = ?",
                (new.to_json(), time.time(), ns, name),
            )
        return new

    @_writes
    def rename(self, kind: str, old: str, new: str, *, if_exists: bool = False) -> bool:
        """ALTER TABLE|VIEW|FUNCTION old RENAME TO new, as one transaction; False when ``old`` is
        absent and ``if_exists``."""
        ns = _namespace(kind)
        temp = self._temporary.get((ns, old))
        if temp is not None:
            if temp.kind != kind:
                raise _wrong_kind(old, temp.kind, kind)
            if self._load(ns, new) is not None:
                raise ObjectExists(kind, new)
            del self._temporary[(ns, old)]
            self._temporary[(ns, new)] = dc_replace(temp, name=new)
            return True
        with self._transaction() as cur:
            row = self._stored(cur, kind, old, if_exists)
            if row is None:
                return False
            if cur.execute(
                "SELECT 1 FROM objects WHERE namespace = ? AND name = ?", (ns, new)
            ).fetchone() or (ns, new) in self._temporary:
                raise ObjectExists(kind, new)
            obj = dc_replace(KINDS[kind].from_json(row[0]), name=new)
            cur.execute("DELETE FROM objects WHERE namespace = ? AND name = ?", (ns, old))
            cur.execute(
                "INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)",
                (ns, new, kind, obj.to_json(), row[1], time.time()),
            )
        return True

    def _stored(self, cur: sqlite3.Cursor, kind: str, name: str, if_exists: bool) -> tuple[str, float] | None:
        """(definition, created_at) of the stored ``kind`` ``name``, read inside the caller's
        transaction; None when it is absent and ``if_exists``."""
        row = cur.execute(
            "SELECT kind, definition, created_at FROM objects WHERE namespace = ? AND name = ?",
            (_namespace(kind), name),
        ).fetchone()
        if row is None:
            if if_exists:
                return None
            raise ObjectNotFound(kind, name, self.suggest(kind, name))
        if row[0] != kind:
            raise _wrong_kind(name, row[0], kind)
        return row[1], row[2]

