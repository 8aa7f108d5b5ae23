"""Connectors by name: ``get_connector('filesystem')``.

Each connector implements ``sqlengine.connectors.base.Connector``; the options each accepts are
described, as data, in ``catalog.options.CONNECTORS``.
"""

from __future__ import annotations

import difflib
import importlib

from sqlengine.connectors.base import Connector, SinkRequest, SourceRequest, SourceResult
from sqlengine.connectors.errors import ConnectorError

# name -> "module:Class", imported on first use so that listing names loads nothing heavy
_REGISTRY = {
    "filesystem": "sqlengine.connectors.filesystem:Filesystem",
    "datagen": "sqlengine.connectors.datagen:Datagen",
    "nexmark": "sqlengine.connectors.nexmark:Nexmark",
    "kafka": "sqlengine.connectors.kafka:Kafka",
    "upsert-kafka": "sqlengine.connectors.kafka:UpsertKafka",
    "print": "sqlengine.connectors.print_sink:Print",
    "blackhole": "sqlengine.connectors.blackhole:Blackhole",
}


def connector_names() -> list[str]:
    return sorted(_REGISTRY)


def get_connector(name: str | None) -> Connector:
    """The connector called ``name``; a ConnectorError with a did-you-mean if there is none."""
    target = _REGISTRY.get(name or "")
    if target is None:
        close = difflib.get_close_matches(name or "", _REGISTRY, n=1, cutoff=0.5)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        known = ", ".join(connector_names())
        raise ConnectorError(
            f"Unknown connector '{name}'.{hint} Known connectors: {known}.", option="connector"
        )
    module, cls = target.split(":")
    factory: type[Connector] = getattr(importlib.import_module(module), cls)
    return factory()


__all__ = [
    "Connector",
    "ConnectorError",
    "SinkRequest",
    "SourceRequest",
    "SourceResult",
    "connector_names",
    "get_connector",
]
