"""Shared setup is analysed once: many .sql files start with the same DDL (the tables a job
reads and writes, copied into every file). After the same text, the catalog and the settings are
the same, so lint keeps the session state after each leading setup statement (CREATE, DROP,
ALTER, SET, RESET, USE that succeeded) keyed by the exact text up to it, and a later file whose
text starts the same way resumes from there instead of parsing and binding that DDL again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from catalog import Catalog
from catalog.model import CatalogObject
from planner.statements.session import Kind, PlannerSession

SETUP = (Kind.DDL, Kind.SET, Kind.RESET, Kind.USE)
MAX_ENTRIES = 512


@dataclass(frozen=True)
class Snapshot:
    objects: tuple[CatalogObject, ...]  # tables, views, functions
    settings: tuple[tuple[str, str], ...]
    statements: int  # setup statements the prefix holds


def snapshot(session: PlannerSession, statements: int) -> Snapshot:
    cat = session.catalog
    objects = tuple(o for kind in ("table", "view", "function") for o in cat.objects(kind))
    return Snapshot(objects, tuple(session.settings.items()), statements)


def restore(snap: Snapshot, make: Callable[[Catalog], PlannerSession]) -> PlannerSession:
    session = make(Catalog.in_memory())
    for obj in snap.objects:
        session.catalog.create(obj, or_replace=True)
    session.settings = dict(snap.settings)
    return session


class PrefixCache:
    def __init__(self) -> None:
        self.entries: dict[str, Snapshot] = {}

    def get(self, prefix: str) -> Snapshot | None:
        return self.entries.get(prefix)

    def longest(self, text: str) -> str:
        """The longest kept prefix that ``text`` starts with ("" if none)."""
        best = ""
        for key in self.entries:
            if len(key) > len(best) and text.startswith(key):
                best = key
        return best

    def put(self, prefix: str, snap: Snapshot) -> None:
        if len(self.entries) >= MAX_ENTRIES:
            self.entries.pop(next(iter(self.entries)))
        self.entries[prefix] = snap
