"""What a table's options say about its data, without reading it: whether the source is bounded
(finite) and how many distinct values a column can take. State analysis uses these."""

from __future__ import annotations

from catalog.model import TableDef

# Columns of the Nexmark generator with a fixed, small set of values (the benchmark's generator
# draws them from fixed lists or ranges); every id column grows without bound.
NEXMARK_DOMAINS = {
    "event_type": 3,
    "auction.category": 5,
    "person.state": 6,
    "person.city": 10,
    "bid.channel": 10_004,  # 4 hot channels + 10,000 others
}


def is_bounded_source(options: dict[str, str]) -> bool:
    connector = (options.get("connector") or options.get("connector.type") or "").lower()
    if connector == "filesystem":
        return "source.monitor-interval" not in options
    if connector == "datagen":
        return "number-of-rows" in options
    if connector == "nexmark":
        value = options.get("events.num", "")
        return value.isdigit() and int(value) > 0
    return False


def column_domain(table: TableDef, path: str) -> int | None:
    """Number of distinct values of a column when the options fix it, else None."""
    options = table.options
    connector = (table.connector or "").lower()
    if connector == "nexmark":
        return NEXMARK_DOMAINS.get(path)
    if connector == "datagen":
        col = table.column(path)
        kind = options.get(f"fields.{path}.kind", "random")
        if col is None or kind != "random" or col.type is None:
            return None
        if col.type.upper() == "BOOLEAN":
            return 2
        lo, hi = options.get(f"fields.{path}.min"), options.get(f"fields.{path}.max")
        if lo is not None and hi is not None and col.type.upper() in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
            try:
                return max(int(hi) - int(lo) + 1, 1)
            except ValueError:
                return None
    return None


def equality_selectivity(table: TableDef, column: str, value: str) -> float | None:
    """Share of rows with ``column = value`` when the source fixes it (Nexmark's event mix)."""
    if (table.connector or "").lower() == "nexmark" and column == "event_type":
        def weight(key: str, default: float) -> float:
            try:
                return float(table.options.get(key, default))
            except ValueError:  # e.g. an unresolved ${VARIABLE}
                return default

        weights = [weight("person.proportion", 1), weight("auction.proportion", 3), weight("bid.proportion", 46)]
        try:
            return weights[int(value)] / sum(weights)
        except (ValueError, IndexError, ZeroDivisionError):
            return None
    return None
