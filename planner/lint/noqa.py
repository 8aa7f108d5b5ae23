"""``-- noqa`` suppressions: ``-- noqa`` silences every finding, ``-- noqa: SE101, SE102`` those
codes, on the line of the finding or on the first line of its statement."""

from __future__ import annotations

import re

from planner.diagnostics import Diagnostic
from planner.source import SourceText, Span

_NOQA = re.compile(r"--\s*noqa(?::\s*(?P<codes>[A-Za-z]+\d+(?:\s*,\s*[A-Za-z]+\d+)*))?", re.I)

ALL = frozenset({"*"})


def suppressions(source: SourceText) -> dict[int, frozenset[str]]:
    """line -> codes suppressed there (``{"*"}`` for all)."""
    out: dict[int, frozenset[str]] = {}
    if "noqa" not in source.text.lower():
        return out
    for i, line in enumerate(source.text.splitlines(), start=1):
        m = _NOQA.search(line)
        if m is None:
            continue
        codes = m.group("codes")
        out[i] = ALL if not codes else frozenset(c.strip().upper() for c in codes.split(","))
    return out


def suppressed(d: Diagnostic, table: dict[int, frozenset[str]], statement: Span | None) -> bool:
    if not table:
        return False
    lines = {d.line}
    if statement is not None and d.source is not None:
        lines.add(d.source.position(statement.start).line)
    for line in lines:
        codes = table.get(line)
        if codes is not None and (codes is ALL or d.code in codes):
            return True
    return False
