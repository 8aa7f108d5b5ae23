"""'table.local-time-zone': the zone Flink reads a TIMESTAMP_LTZ in when it meets a wall time
(CAST to and from TIMESTAMP, STRING, DATE and TIME, DATE_FORMAT, EXTRACT, FLOOR/CEIL,
FROM_UNIXTIME, UNIX_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, printing a result). sqlengine's
default is UTC, as its Spark session is (a Flink cluster's 'default' is the JVM's zone).

Flink takes a zone its Java ``TimeZone`` and ``ZoneId`` read alike: a TZDB region ('Asia/Kolkata',
'US/Eastern', 'UTC'), or a fixed offset written 'GMT+08:00' / 'GMT-3'; never a three-letter
abbreviation ('CST', 'EST'), 'UTC+8', '+08:00' or 'Z'. The same verdicts here (checked on Flink 2.3)."""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
import zoneinfo
from pathlib import Path

SETTING = "table.local-time-zone"
UTC = "UTC"

# Java's ZoneId.SHORT_IDS: TimeZone reads these as other zones (or offsets), so Flink refuses them
_SHORT_IDS = frozenset(
    ["ACT", "AET", "AGT", "ART", "AST", "BET", "BST", "CAT", "CNT", "CST", "CTT", "EAT", "ECT", "IET", "IST", "JST", "MIT", "NET", "NST", "PLT", "PNT", "PRT", "PST", "SST", "VST", "EST", "MST", "HST"]
)
# 'GMT' and a ZoneOffset Java's custom TimeZone ids read too: +h, +hh, +hh:mm, +hhmm
_GMT_OFFSET = re.compile(r"GMT([+-])(\d{1,2}|\d{2}:?\d{2})")

INVALID = (
    "Invalid time zone '{zone}'. The value should be a Time Zone Database (TZDB) ID such as 'America/Los_Angeles' "
    "to include daylight saving time; fixed offsets are written 'GMT-03:00' or 'GMT+03:00'; or use 'UTC'"
)


def local_time_zone(settings: dict[str, str]) -> str:
    """The session's zone as Spark's functions take it ('UTC' unless set); an invalid value,
    which SET refuses, reads as UTC."""
    raw = (settings.get(SETTING) or "").strip()
    if not raw:
        return UTC
    return normalized(raw) or UTC


def normalized(zone: str) -> str | None:
    """The zone as Spark and Java read it ('GMT+8' -> 'GMT+08:00'), or None when Flink refuses it."""
    if zone.lower() == "default":
        return _machine_zone()
    offset = _fixed_offset_ms(zone)
    if offset is not None:
        hours, minutes = divmod(abs(offset) // 60_000, 60)
        return f"GMT{'-' if offset < 0 else '+'}{hours:02d}:{minutes:02d}"
    if _GMT_OFFSET.fullmatch(zone):
        return None  # beyond ±18:00
    if zone in _SHORT_IDS or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+\-/]*", zone):
        return None
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
    return zone


def _fixed_offset_ms(zone: str) -> int | None:
    """The offset of a 'GMT±h[h][[:]mm]' zone in ms, or None (another zone, or beyond ±18:00)."""
    m = _GMT_OFFSET.fullmatch(zone)
    if m is None:
        return None
    digits = m.group(2).replace(":", "")
    hours, minutes = (int(digits), 0) if len(digits) <= 2 else (int(digits[:2]), int(digits[2:]))
    if hours > 18 or minutes > 59 or (hours == 18 and minutes):
        return None
    return (1 if m.group(1) == "+" else -1) * (hours * 3600 + minutes * 60) * 1000


def _machine_zone() -> str:
    """Flink's 'default': the zone of the machine (TZ, or what /etc/localtime links to), else UTC."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and normalized(tz) not in (None, "default"):
        return tz
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        return UTC
    name = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
    return name if name and name.lower() != "default" and normalized(name) else UTC


@functools.lru_cache(maxsize=64)
def offsets_ms(zone: str) -> frozenset[int]:
    """The UTC offsets, in ms, the zone has had since 2000 (sampled daily to 2040)."""
    return _offsets_between(zone, dt.datetime(2000, 1, 1, tzinfo=dt.UTC), 40 * 366)


def _offsets_between(zone: str, start: dt.datetime, days: int) -> frozenset[int]:
    fixed = _fixed_offset_ms(zone)
    if fixed is not None or zone == UTC:
        return frozenset({fixed or 0})
    info = zoneinfo.ZoneInfo(zone)
    out = set()
    for day in range(days):
        offset = (start + dt.timedelta(days=day)).astimezone(info).utcoffset()
        out.add(int(offset.total_seconds() * 1000) if offset is not None else 0)
    return frozenset(out)


def fixed_offset_ms(zone: str) -> int | None:
    """The zone's one offset since 2000 (UTC, 'GMT+05:30', 'Asia/Kolkata', 'Asia/Shanghai'), or
    None when it has had several (daylight saving time, a changed offset). Flink assigns a window
    on a TIMESTAMP_LTZ on the zone's wall clock: with one offset that is a window on the instants
    moved by it (times before 2000 in a zone whose offset changed then, as Shanghai's in 1986-91,
    are read with today's offset); with several, a wall hour may hold two instant hours (the
    autumn's repeated hour: one window, as Flink counts it) or none, and the windows are assigned
    on the wall clock itself (sqlengine.translate.wall_windows)."""
    offsets = offsets_ms(zone)
    return next(iter(offsets)) if len(offsets) == 1 else None


@functools.lru_cache(maxsize=64)
def observes_dst(zone: str) -> bool:
    """Whether the zone's current rules have daylight saving time (Java's
    ``TimeZone.useDaylightTime``, read over the coming year): Flink fires a window whose last wall
    time is repeated at that time's second instant only then."""
    today = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return len(_offsets_between(zone, today, 400)) > 1


def tzinfo(zone: str) -> dt.tzinfo:
    fixed = _fixed_offset_ms(zone)
    if fixed is not None:
        return dt.timezone(dt.timedelta(milliseconds=fixed))
    return dt.UTC if zone == UTC else zoneinfo.ZoneInfo(zone)


_EPOCH = dt.datetime(1970, 1, 1)


def wall_ms(instant_ms: int, zone: str) -> int:
    """The zone's wall time at an instant, as ms since 1970-01-01 00:00 (Flink's shifted time)."""
    when = dt.datetime.fromtimestamp(instant_ms / 1000, tzinfo(zone)).replace(tzinfo=None)
    return (when - _EPOCH) // dt.timedelta(milliseconds=1)


def instant_ms(wall: int, zone: str, later: bool = False) -> int:
    """The instant of a wall time in the zone, in epoch ms. As Java's ``LocalDateTime.atZone``:
    a wall time the autumn repeats is its first instant, one in the spring's gap is moved
    forward by the gap. ``later``: a repeated wall time's second instant (Flink fires a window
    whose last wall instant is repeated at the second, so it holds both hours' rows)."""
    naive = _EPOCH + dt.timedelta(milliseconds=wall)
    info = tzinfo(zone)
    # Python's fold=0 is Java's choice in both cases (the offset before the transition)
    first = _epoch_ms(naive.replace(tzinfo=info, fold=0))
    return max(first, _epoch_ms(naive.replace(tzinfo=info, fold=1))) if later else first


def _epoch_ms(when: dt.datetime) -> int:
    return (when - _EPOCH.replace(tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)
