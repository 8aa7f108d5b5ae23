"""More Python user functions, as examples of what annotations and ``@function`` declare
(see docs/udf.md).

    CREATE TEMPORARY FUNCTION price_with_tax AS 'text_udfs.price_with_tax' LANGUAGE PYTHON;
    CREATE TEMPORARY FUNCTION words AS 'text_udfs.words' LANGUAGE PYTHON;
    SELECT w, n FROM docs, LATERAL TABLE(words(body)) AS T(w, n);
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pandas as pd

from sqlengine.udf import function


@function(result="DECIMAL(10, 2)")  # an annotation says DECIMAL(38, 18): the decorator narrows it
def price_with_tax(price: Decimal | None, rate: float) -> Decimal | None:
    return None if price is None else (price * Decimal(1 + rate)).quantize(Decimal("0.01"))


def words(text: str | None) -> Iterator[tuple[str, int]]:
    """A table function: each word of ``text`` and its length (no rows for NULL)."""
    for w in (text or "").split():
        yield w, len(w)


@function(result="BIGINT", vectorized=True)
def str_len(s: pd.Series) -> pd.Series:
    """Vectorized: a pandas Series in, a Series out, once per batch of rows."""
    return s.str.len()
