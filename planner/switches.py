"""Settings that switch a behaviour of sqlengine's own on or off ('sqlengine.changelog.jvm',
'sqlengine.bounded.batch'): on unless set to false, off, 0 or no."""

from __future__ import annotations

OFF = ("false", "off", "0", "no")


def switch_on(settings: dict[str, str], key: str) -> bool:
    return settings.get(key, "true").strip().lower() not in OFF
