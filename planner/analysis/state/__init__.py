"""State analysis: what each stateful operator keeps, what releases it and how it grows, as typed
facts (``facts``), decided per operator (``analyzer``) and put into words in one place (``text``)."""

from planner.analysis.state.analyzer import StateAnalyzer, analyze_state
from planner.analysis.state.facts import (
    Extra,
    Grouping,
    Growth,
    Never,
    PartRole,
    Release,
    ReleaseKind,
    StateInfo,
    StatePart,
    Stored,
    StoredKind,
    TtlClock,
    Verdict,
)

__all__ = [
    "Extra",
    "Grouping",
    "Growth",
    "Never",
    "PartRole",
    "Release",
    "ReleaseKind",
    "StateAnalyzer",
    "StateInfo",
    "StatePart",
    "Stored",
    "StoredKind",
    "TtlClock",
    "Verdict",
    "analyze_state",
]
