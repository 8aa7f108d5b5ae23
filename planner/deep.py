"""Deeply nested SQL plans as Flink plans it: a 1,000-term ``1 + 1 + ...`` chain, a long OR list,
60 nested CASEs or 120 nested subqueries. Parsing, binding and printing such a statement recurse
once per level, past Python's recursion limit (1,000) and, for some C-level calls, near the end of
the main thread's 8 MB stack. Rather than make every tree walk iterative, the work that overflows
is run once more in a thread with a large stack and a high recursion limit; ordinary statements
never pay for it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

DEEP_STACK_BYTES = 1024 * 1024 * 1024  # reserved address space; pages are touched only as used
DEEP_RECURSION_LIMIT = 400_000
_lock = threading.Lock()  # the recursion limit is one per interpreter


def deep(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args)``; if it overflows the recursion limit, once more on a deep stack. A
    RecursionError from the second run means the input is deeper than any real query."""
    try:
        return fn(*args, **kwargs)
    except RecursionError:
        pass
    return on_deep_stack(fn, *args, **kwargs)


def on_deep_stack(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    result: list[R] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn(*args, **kwargs))
        except BaseException as err:  # re-raised in the caller's thread
            failure.append(err)

    with _lock:
        limit = sys.getrecursionlimit()
        size = threading.stack_size(DEEP_STACK_BYTES)
        try:
            sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
            worker = threading.Thread(target=target, name="sqlengine-deep")
            worker.start()
            worker.join()
        finally:
            threading.stack_size(size)
            sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return result[0]
