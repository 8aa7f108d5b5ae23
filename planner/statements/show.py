"""What the SHOW statements list: every function name SHOW FUNCTIONS answers (Flink's built-ins
with the aggregates, ranking and legacy window functions the binder knows), and SQL
``[NOT] LIKE | ILIKE`` patterns over names."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner import functions
from planner.binder.names import AGG_NAMES, LEGACY_WINDOW_FUNCS, LEGACY_WINDOW_PROPS, RANK_NAMES

# SHOW FUNCTIONS lists these with the user functions; the shell highlights and completes them
BUILTIN_FUNCTIONS: tuple[str, ...] = tuple(
    sorted(functions.BUILTIN_FUNCTIONS | AGG_NAMES | RANK_NAMES | LEGACY_WINDOW_FUNCS | LEGACY_WINDOW_PROPS)
)


def like_filter(pattern: str | None, *, negate: bool = False, ignore_case: bool = False) -> Callable[[str], bool]:
    """Whether a name matches ``[NOT] LIKE | ILIKE pattern``: ``%`` any run of characters, ``_``
    one character, anything else itself (``*``, ``?`` and ``[`` too). LIKE is case-sensitive, as
    in Flink; ILIKE is not. No pattern keeps every name."""
    if pattern is None:
        return lambda name: True
    regex = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern)
    compiled = re.compile(regex, re.DOTALL | (re.IGNORECASE if ignore_case else 0))
    return lambda name: (compiled.fullmatch(name) is not None) != negate
