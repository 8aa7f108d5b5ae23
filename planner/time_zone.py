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
import math
import os
import re
import zoneinfo
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.logical.specs import WindowSpec

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
def _offsets_ms(zone: str) -> frozenset[int]:
    """The UTC offsets the zone has had since 2000 (sampled every 10 days to 2040), in ms."""
    fixed = _fixed_offset_ms(zone)
    if fixed is not None:
        return frozenset({fixed})
    info = zoneinfo.ZoneInfo(zone)
    start = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    out = set()
    for day in range(0, 40 * 366, 10):
        offset = (start + dt.timedelta(days=day)).astimezone(info).utcoffset()
        out.add(int(offset.total_seconds() * 1000) if offset is not None else 0)
    return frozenset(out)


def window_offset_ms(zone: str, grain_ms: int) -> int | None:
    """The zone's offset for windows whose sizes and slides are multiples of ``grain_ms``: Flink
    aligns such a window to the zone's wall clock, which is Spark's window moved by the offset.
    None when the zone's offsets (since 2000; daylight saving time) move the windows' edges
    differently, as they do a day in New York; a window of an hour is the same in any of its
    offsets there."""
    offsets = _offsets_ms(zone)
    first = min(offsets)
    if grain_ms <= 0 or any((o - first) % grain_ms for o in offsets):
        return None
    return first


def window_grain_ms(*lengths: int | None) -> int:
    """The grain a window's edges fall on: the greatest common divisor of its size, slide and step."""
    return math.gcd(*(n for n in lengths if n))


def window_shift_ms(zone: str, window: WindowSpec) -> int | None:
    """How far a TUMBLE, HOP or CUMULATE window on a TIMESTAMP_LTZ moves in ``zone`` to follow its
    wall clock (the checker refuses a window for which this is None; the translator moves it)."""
    return window_offset_ms(zone, window_grain_ms(window.size_ms, window.slide_ms, window.step_ms))
