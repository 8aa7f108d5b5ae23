"""``sqlengine fmt``: one canonical layout for Flink SQL files.

Keywords upper case, one clause per line, one column or option per line with the ``=`` of
``WITH`` options aligned, a blank line between statements; comments are kept. Formatting is
idempotent: ``format(format(x)) == format(x)``. It never changes meaning: a file with any error
is not formatted at all, and the formatted text must parse back to the same statements, or the
file is left as it is and the statement that would change is reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.deep import deep
from planner.errors import SqlError, SqlErrors
from planner.statements.script import Statement, parse_script


def _trailing(stmt: Statement) -> tuple[list[str], list[str]]:
    """Comments after a statement's `;`: those on the same line, and those on lines below."""
    same: list[str] = []
    below: list[str] = []
    semi = stmt.terminator
    text = stmt.source.text
    pos = semi.end + 1 if semi is not None else stmt.span.end
    for comment in stmt.trailing_comments:
        found = text.find(comment, pos)
        gap = text[pos:found] if found >= 0 else "\n"
        (below if "\n" in gap else same).append(comment)
        if found >= 0:
            pos = found + len(comment)
    return same, below


def _comment(text: str) -> str:
    if "\n" in text:
        return f"/*{text}*/"
    return f"--{text.rstrip()}" if text.startswith(" ") else f"-- {text.strip()}"


def format_sql(text: str, path: str | None = None) -> str:
    """The formatted text; raises SqlErrors when the text does not parse."""
    script = parse_script(text, path)
    if script.errors:
        raise SqlErrors(list(script.errors))
    chunks = []
    for stmt in script.statements:
        sql = deep(stmt.sql, pretty=True) + ";"
        same, below = _trailing(stmt)
        if same:
            sql += " " + " ".join(_comment(c) for c in same)
        if below:
            sql += "\n" + "\n".join(_comment(c) for c in below)
        chunks.append(sql)
    formatted = "\n\n".join(chunks) + ("\n" if chunks else "")
    _same_meaning(script.statements, formatted, path)
    return formatted


def _same_meaning(before: Sequence[Statement], formatted: str, path: str | None) -> None:
    """The formatted text parses back to the same trees, statement by statement; else the
    first statement that would change is an error (a defect of the printer: the file is kept)."""
    after = parse_script(formatted, path)
    trees = [s.tree for s in after.statements]
    for i, stmt in enumerate(before):
        if after.errors or i >= len(trees) or trees[i] != stmt.tree:
            raise SqlErrors([SqlError(
                "fmt would change what this statement means, so the file is left as it is (a defect of sqlengine's printer)",
                stmt.source, stmt.span, code="E999",
            )])
