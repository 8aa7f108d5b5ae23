"""When a window closes when its bounds are a zone's wall times (a window on a TIMESTAMP_LTZ in
'table.local-time-zone', assigned on the zone's wall clock as Flink assigns it): at the instant of
its last wall instant, the second one when the autumn repeats that wall time, so the window holds
the rows of both hours (Flink fires it there: checked with PyFlink 2.3; as Flink, only in a zone
whose current rules have daylight saving time)."""

from __future__ import annotations

import functools

from planner.time_zone import instant_ms, observes_dst


def last_instant(end: int, zone: str | None) -> int:
    """The last instant (epoch ms) of a window ending at ``end`` (a wall time in ``zone``, or
    an instant when None)."""
    return _later(end - 1, zone) if zone else end - 1


def closes(end: int, zone: str | None, event_time: bool) -> int:
    """When the window ending at ``end`` closes: the watermark at its last instant (event time),
    the wall clock at its end (processing time)."""
    return last_instant(end, zone) + (0 if event_time else 1)


def window_time(end: int, zone: str | None) -> int:
    """An event-time window's window_time: its last wall instant's (first) instant."""
    return instant_ms(end - 1, zone) if zone else end - 1


@functools.lru_cache(maxsize=4096)
def _later(wall: int, zone: str) -> int:
    return instant_ms(wall, zone, later=observes_dst(zone))
