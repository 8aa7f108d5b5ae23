"""The function status table of docs/dialect.md, generated from the function suite's data
(expected/, known_differences.json, not_compared.txt) and the planner's refused functions:

    python -m tests.functions.report            # print the summary counts
    python -m tests.functions.report --write    # and rewrite the table in docs/dialect.md

test_report.py checks that the table in the docs is the one this writes."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from tests.functions.suite import expected, known_differences, status

DOC = Path(__file__).resolve().parents[2] / "docs" / "dialect.md"
START, END = "<!-- function-status: start (python -m tests.functions.report --write) -->", "<!-- function-status: end -->"
ORDER = ("same as Flink", "differs", "refused", "not compared", "not covered yet")


def summary(table: dict[str, tuple[str, str]]) -> str:
    counts = Counter(s for s, _ in table.values())
    parts = ", ".join(f"{counts[k]} {k}" for k in ORDER)
    return f"Of the {len(table)} accepted built-in functions: {parts}."


def section() -> str:
    table = status()
    lines = [START, "", summary(table), "", "| function | status | detail |", "|---|---|---|"]
    for name, (state, detail) in table.items():
        lines.append(f"| `{name}` | {state} | {detail.replace('|', '&#124;')} |")
    known = known_differences()
    operators = [e for e in expected() if not e.function[0].isalpha()]
    if operators:
        lines += ["", "Operators, compared likewise: " + ", ".join(sorted({f"`{e.function}`" for e in operators})) + "."]
        lines += [f"- `{e.expr}` differs: {known[e.key]}" for e in operators if e.key in known]
    return "\n".join([*lines, "", END])


def with_section(doc: str) -> str:
    head, rest = doc.split(START, 1)
    return head + section() + rest.split(END, 1)[1]


def main(argv: list[str]) -> None:
    print(summary(status()))
    for key, why in known_differences().items():
        print(f"  differs: {key}: {why}")
    if "--write" in argv:
        DOC.write_text(with_section(DOC.read_text()))
        print(f"wrote {DOC}")


if __name__ == "__main__":
    main(sys.argv[1:])
