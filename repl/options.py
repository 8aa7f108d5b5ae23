"""``NAME=value`` options, read one way by every command: ``-D``/``--define`` (``sqlengine``, ``run``,
``submit``, ``lint``, ``explain``), ``--conf`` and ``--set``.

The name is trimmed and may not be empty. A ``-D`` value is SQL text and is kept as written
(``-D REGION="'EU'"`` is the string literal ``'EU'``), a ``--conf`` value is Spark's and is kept
too. A ``--set`` value is what ``SET`` would take, so ``--set "'table.exec.state.ttl'='1 h'"``, as
the statement writes it, means ``--set table.exec.state.ttl=1 h``: each side is trimmed and loses
one pair of matching quotes (a quote doubled inside them is one, as in SQL). No pyspark here:
``lint`` and ``explain`` import it.
"""

from __future__ import annotations


def pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    """``{name: value}`` of ``values`` given to ``flag``; ValueError names the first bad one."""
    out: dict[str, str] = {}
    for given in values or []:
        name, sep, value = given.partition("=")
        name = name.strip()
        if flag == "--set":
            name, value = _unquoted(name), _unquoted(value.strip())
        if not sep or not name:
            raise ValueError(f"{flag} takes NAME=value; got '{given}'")
        out[name] = value
    return out


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        q = text[0]
        return text[1:-1].replace(q + q, q)  # a quote inside is doubled, as in SQL: 'it''s'
    return text
