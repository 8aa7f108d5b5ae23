"""The function suite's data, as the tests and the report read it: Flink's expected values
(expected/), the known differences, and each accepted function's status. No Spark here."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from planner.analysis.check.functions import REFUSED
from planner.functions import BUILTIN_FUNCTIONS
from tests.functions.cases import HERE, groups, not_compared

KNOWN = HERE / "known_differences.json"


@dataclass(frozen=True)
class Expected:
    group: str
    function: str
    expr: str  # as the case file writes it
    rendered: str  # as both sides evaluate it (LTZ and infinite doubles read as text: cases.py)
    values: list[Any] | None  # per input row, by id; None when Flink fails
    error: str | None
    stage: str | None  # "plan" or "run", where Flink failed

    @property
    def key(self) -> str:
        return f"{self.group}: {self.expr}"


def expected() -> list[Expected]:
    out = []
    for g in groups():
        path = HERE / "expected" / f"{g}.json"
        if not path.exists():  # test_the_suite_is_whole fails then
            continue
        for c in json.loads(path.read_text())["cases"]:
            out.append(Expected(g, c["function"], c["expr"], c.get("rendered", c["expr"]),
                                c.get("values"), c.get("error"), c.get("stage")))
    return out


def known_differences() -> dict[str, str]:
    """Case key -> how sqlengine's result differs from Flink's (this list may only shrink)."""
    return json.loads(KNOWN.read_text())


def same(want: Any, got: Any) -> bool:
    """Equal as rendered (conformance/values.py's ``plain``); doubles within a relative 1e-9."""
    if isinstance(want, float) and isinstance(got, float):
        return want == got or math.isclose(want, got, rel_tol=1e-9)
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(same(w, g) for w, g in zip(want, got, strict=True))
    return bool(want == got) and type(want) is type(got)


def status() -> dict[str, tuple[str, str]]:
    """Each accepted built-in's status and detail: 'same as Flink', 'differs', 'refused',
    'not compared' or 'not covered yet'."""
    known = known_differences()
    cases: dict[str, list[Expected]] = {}
    for e in expected():
        cases.setdefault(e.function.upper(), []).append(e)
    skipped = not_compared()
    out: dict[str, tuple[str, str]] = {}
    for name in sorted(BUILTIN_FUNCTIONS):
        mine = cases.get(name, [])
        differs = [f"`{e.expr}`: {known[e.key]}" for e in mine if e.key in known]
        if name in REFUSED:
            out[name] = ("refused", REFUSED[name])
        elif differs:
            out[name] = ("differs", "; ".join(differs))
        elif mine:
            out[name] = ("same as Flink", f"{len(mine)} case" + ("s" if len(mine) > 1 else ""))
        elif name in skipped:
            out[name] = ("not compared", skipped[name])
        else:
            out[name] = ("not covered yet", "")
    return out
