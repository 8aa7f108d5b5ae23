"""Row kinds as rows carry them between changelog operators: one small integer per row, Flink's
RowKind byte values (``planner.logical.changelog.RowKind.code``)."""

from __future__ import annotations

INSERT = 0  # +I
UPDATE_BEFORE = 1  # -U
UPDATE_AFTER = 2  # +U
DELETE = 3  # -D

# +1 for a row that is in the table after the change (+I, +U), -1 for one taken back (-U, -D)
SIGN = (1, -1, 1, -1)


def adds(kind: int) -> bool:
    return kind in (INSERT, UPDATE_AFTER)
