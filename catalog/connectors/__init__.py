"""Every connector's spec by name (``CONNECTORS``), and the spec of a table (``spec_of``)."""

from __future__ import annotations

from catalog.connectors.base import CONNECTOR, ConnectorSpec, Options, Rate
from catalog.connectors.datagen import Datagen
from catalog.connectors.filesystem import Filesystem
from catalog.connectors.kafka import Kafka, UpsertKafka
from catalog.connectors.nexmark import Nexmark
from catalog.connectors.sinks import Blackhole, Print
from catalog.model import TableDef

CONNECTORS: dict[str, ConnectorSpec] = {
    c.name: c for c in (Filesystem(), Datagen(), Nexmark(), Kafka(), UpsertKafka(), Print(), Blackhole())
}


def spec_of(table: TableDef) -> ConnectorSpec | None:
    """The spec of the table's connector; None for an unknown one (validation says so)."""
    return CONNECTORS.get((table.connector or "").lower())


__all__ = ["CONNECTOR", "CONNECTORS", "ConnectorSpec", "Options", "Rate", "spec_of"]
