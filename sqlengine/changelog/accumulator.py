"""One aggregate call's accumulator, as every changelog aggregation calls it: the built-in
functions' in ``sqlengine.changelog.aggregate``, a Python aggregate function's in
``sqlengine.changelog.user_aggregate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Accumulator:
    """One aggregate call's accumulate/retract/value over a per-group slot."""

    def new(self) -> Any:
        raise NotImplementedError

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        """Add (``sign`` 1) or take back (-1) one row's arguments; the slot's new value."""
        raise NotImplementedError

    def value(self, acc: Any) -> Any:
        raise NotImplementedError

    def merge(self, acc: Any, other: Any) -> Any:
        """Two slots as one (event-time sessions that a row bridges); the merged slot."""
        raise NotImplementedError(f"{type(self).__name__} cannot merge")
