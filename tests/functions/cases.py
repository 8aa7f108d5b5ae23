"""The function suite's cases, read from cases/<group>.txt: one a line, the function it is about
and an expression over table.sql's columns. Shared by make_expected.py (run with PyFlink's
interpreter: standard library only) and the tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


# how a value PyFlink cannot collect is read, on both sides: a TIMESTAMP_LTZ as its wall time in
# the session's zone (UTC unless the group sets one), a DOUBLE that may be infinite as its text
LTZ_RENDER = "CAST({} AS TIMESTAMP(3))"
TEXT_RENDER = "CAST({} AS STRING)"


@dataclass(frozen=True)
class Case:
    group: str
    function: str
    expr: str


def groups() -> list[str]:
    return sorted(p.stem for p in (HERE / "cases").glob("*.txt"))


def zone(group: str) -> str:
    """The group's 'table.local-time-zone': its file's ``@zone`` line, else UTC."""
    for line in (HERE / "cases" / f"{group}.txt").read_text().splitlines():
        if line.startswith("@zone "):
            return line.split(None, 1)[1].strip()
    return "UTC"


def read(group: str) -> list[Case]:
    out = []
    for line in (HERE / "cases" / f"{group}.txt").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith(("#", "@")):
            function, expr = line.split(None, 1)
            out.append(Case(group, function, expr.strip()))
    return out


def not_compared() -> dict[str, str]:
    """Function name -> why the suite does not compare it."""
    out = {}
    for line in (HERE / "not_compared.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, why = line.split(None, 1)
            out[name] = why.strip()
    return out


def query(cases: list[Case]) -> str:
    """One SELECT of every case's expression over each input row, the row's id first."""
    items = ",\n  ".join(f"{c.expr} AS c{i}" for i, c in enumerate(cases))
    return f"SELECT id,\n  {items}\nFROM t"
