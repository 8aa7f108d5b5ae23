"""The datagen connector (Flink's options): random values or sequences for every column,
computed as Spark expressions of the row number (see ``generated``).

Unbounded, rows come at 'rows-per-second' (Spark's rate source). With 'number-of-rows', or a
sequence field with an end, the source is bounded: run it with Trigger.AvailableNow. Random
values depend only on ('seed', row number, field), so bounded output is reproducible; random
timestamps are the exception: they lie before the wall-clock time the row was generated
('max-past'), as in Flink. A timestamp sequence ('start', 'step') is reproducible.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from catalog.connectors import CONNECTORS
from sqlengine.connectors.base import Connector, SourceRequest, SourceResult
from sqlengine.connectors.generated import (
    ALNUM,
    NOW,
    ROW,
    Draws,
    letter_pool,
    pool_slice,
    row_numbers,
)
from sqlengine.connectors.options import TableOptions
from sqlengine.spark_connect import default_parallelism
from sqlengine.types import UnsupportedType, spark_type

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession
    from pyspark.sql.types import (
        ArrayType,
        DataType,
        DayTimeIntervalType,
        DecimalType,
        MapType,
        YearMonthIntervalType,
    )

_INT_RANGES = {"byte": 8, "short": 16, "integer": 32, "long": 64}
_FLOAT_MAX = {"float": 3.4028234663852886e38, "double": 1.7976931348623157e308}
_DEFAULT_INTERVAL_RANGE = {"day-time": (0, 86_400), "year-month": (0, 120)}  # seconds, months

# the number type of a field's 'min'/'max' bounds
_Num = TypeVar("_Num", int, float, decimal.Decimal)


class Datagen(Connector):
    name = "datagen"

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        from pyspark.sql import functions as F

        table = request.table
        opts = TableOptions(table)
        opts.validate()
        for col in table.columns:
            if col.kind == "metadata":
                raise opts.error(f"datagen offers no metadata; `{col.name}` cannot be read.")
        seed = opts.int("seed") or 0
        builder = _Builder(opts, Draws(F.col(ROW), seed), seed)
        physical = [c for c in table.columns if c.kind == "physical"]
        columns = []
        for col in physical:
            try:
                dtype = spark_type(col.type or "")
            except UnsupportedType as err:
                raise opts.error(str(err)) from None
            builder.max_length[col.name] = _declared_length(col.type or "")
            columns.append(builder.value(col.name, dtype, nullable=col.nullable).alias(col.name))
        total = CONNECTORS["datagen"].rows(table)  # number-of-rows, or where a sequence ends
        if total is None and not request.streaming:
            raise opts.error(
                "the source is unbounded; batch mode needs 'number-of-rows' (or a sequence).",
                "number-of-rows",
            )
        partitions = opts.int("scan.parallelism") or default_parallelism(spark)
        rows = row_numbers(
            spark,
            streaming=request.streaming,
            total=total,
            partitions=partitions,
            rows_per_second=opts.int("rows-per-second"),
        )
        return SourceResult(df=rows.select(*columns), bounded=total is not None)


def _declared_length(flink_type: str) -> int | None:
    """n of CHAR(n), VARCHAR(n), BINARY(n), VARBINARY(n): generated values are not longer."""
    from sqlglot import exp

    from planner.dialect import parse_type

    dtype = parse_type(flink_type)
    kinds = (exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR, exp.DataType.Type.BINARY,
             exp.DataType.Type.VARBINARY)
    if dtype.this in kinds and dtype.expressions:
        return int(dtype.expressions[0].this.name)
    return None


class _Builder:
    """Expressions per field path (``col`` or ``col.nested``), reading 'fields.<path>.*'."""

    def __init__(self, opts: TableOptions, draws: Draws, seed: int):
        self.opts, self.draws, self.seed = opts, draws, seed
        self.max_length: dict[str, int | None] = {}  # top-level column -> declared length
        self._pool = letter_pool(seed, 1024, ALNUM)

    def _key(self, path: str, prop: str) -> str:
        return f"fields.{path}.{prop}"

    def value(
        self, path: str, dtype: DataType, nullable: bool = True, draws: Draws | None = None
    ) -> Column:
        from pyspark.sql import functions as F

        draws = draws or self.draws
        kind = self.opts.string(self._key(path, "kind")) or "random"
        if kind == "sequence":
            expr = self._sequence(path, dtype)
        else:
            expr = self._random(path, dtype, draws)
        rate = self.opts.float(self._key(path, "null-rate")) or 0.0
        if rate > 0 and nullable:
            expr = F.when(draws.unit(f"{path}#null") < F.lit(rate), F.lit(None)).otherwise(expr)
        return expr.cast(dtype)

    # -- sequences -------------------------------------------------------------------------------
    def _sequence(self, path: str, dtype: DataType) -> Column:
        from pyspark.sql import functions as F

        name = dtype.typeName()
        start_key, end_key = self._key(path, "start"), self._key(path, "end")
        start_text, end_text = self.opts.string(start_key), self.opts.string(end_key)
        if name in ("timestamp", "timestamp_ntz"):
            first = self._timestamp(start_text, start_key)
            step_ms = round((self.opts.seconds(self._key(path, "step")) or 1.0) * 1000)
            if end_text is not None:
                self._timestamp(end_text, end_key)  # validated; its row count is the spec's
            literal = "TIMESTAMP_NTZ" if name == "timestamp_ntz" else "TIMESTAMP_LTZ"
            base = F.expr(f"{literal} '{first.isoformat(sep=' ')}'")
            return base + F.col(ROW) * F.expr(f"INTERVAL '{step_ms / 1000}' SECOND")
        if name not in ("byte", "short", "integer", "long", "float", "double", "decimal", "string"):
            raise self.opts.error(f"a sequence cannot generate {dtype.simpleString()}.", start_key)
        start, end = self._integer(start_text, start_key), self._integer(end_text, end_key)
        if end < start:
            raise self.opts.error(f"the sequence ends ({end}) before it starts ({start}).", end_key)
        return F.lit(start) + F.col(ROW)

    def _integer(self, text: str | None, key: str) -> int:
        if text is None:
            raise self.opts.error("a sequence field needs a start and an end.", key)
        try:
            return int(text.strip())
        except ValueError:
            raise self.opts.error(f"'{text}' is not a whole number.", key) from None

    def _timestamp(self, text: str | None, key: str) -> dt.datetime:
        if text is None:
            raise self.opts.error("a timestamp sequence needs a start.", key)
        try:
            return dt.datetime.fromisoformat(text.strip())
        except ValueError:
            raise self.opts.error(
                f"'{text}' is not a timestamp (e.g. '2024-01-01 00:00:00').", key
            ) from None

    # -- random values ---------------------------------------------------------------------------
    def _bounds(
        self, path: str, lo: _Num, hi: _Num, cast: Callable[[float], _Num]
    ) -> tuple[_Num, _Num]:
        lo_v = self.opts.float(self._key(path, "min"))
        hi_v = self.opts.float(self._key(path, "max"))
        lo2 = cast(lo_v) if lo_v is not None else lo
        hi2 = cast(hi_v) if hi_v is not None else hi
        if hi2 < lo2:
            raise self.opts.error(f"max ({hi2}) is below min ({lo2}).", self._key(path, "max"))
        return lo2, hi2

    def _random(self, path: str, dtype: DataType, draws: Draws) -> Column:
        from pyspark.sql import functions as F
        from pyspark.sql.types import (
            ArrayType,
            DayTimeIntervalType,
            DecimalType,
            MapType,
            StructType,
            YearMonthIntervalType,
        )

        name = dtype.typeName()
        if name == "boolean":
            return draws.below(path, 2) == 1
        if name in _INT_RANGES:
            bits = _INT_RANGES[name]
            lo, hi = self._bounds(path, -(1 << (bits - 1)), (1 << (bits - 1)) - 1, int)
            if hi - lo + 1 >= 1 << 63:  # the whole long range: the raw bits are uniform
                return draws.bits(path)
            return F.lit(lo) + draws.below(path, hi - lo + 1)
        if name in _FLOAT_MAX:
            low, high = self._bounds(path, -_FLOAT_MAX[name], _FLOAT_MAX[name], float)
            u = draws.unit(path)
            return F.lit(low) * (F.lit(1.0) - u) + F.lit(high) * u
        if isinstance(dtype, DecimalType):  # typeName() 'decimal'
            return self._decimal(path, dtype, draws)
        if name in ("string", "binary"):
            return self._string(path, draws, binary=name == "binary")
        if name in ("timestamp", "timestamp_ntz", "date"):
            past_ms = int((self.opts.seconds(self._key(path, "max-past")) or 0) * 1000)
            now = F.col(NOW)
            if name == "timestamp_ntz":  # the wall clock in the session time zone
                now = now.cast("timestamp_ntz")
            if past_ms <= 0:
                return now
            return now - draws.below(path, past_ms + 1) * F.expr("INTERVAL '0.001' SECOND")
        if name == "time":
            return F.time_from_millis(draws.below(path, 86_400_000))
        if isinstance(dtype, (DayTimeIntervalType, YearMonthIntervalType)):
            return self._interval(path, dtype, draws)
        if isinstance(dtype, ArrayType):  # typeName() 'array'
            return self._array(path, dtype, draws)
        if isinstance(dtype, MapType):  # typeName() 'map'
            return self._map(path, dtype, draws)
        if isinstance(dtype, StructType):  # typeName() 'struct'
            return F.struct(
                *[
                    self.value(f"{path}.{f.name}", f.dataType, f.nullable, draws).alias(f.name)
                    for f in dtype.fields
                ]
            )
        raise self.opts.error(f"datagen cannot generate {dtype.simpleString()} (field `{path}`).")

    def _decimal(self, path: str, dtype: DecimalType, draws: Draws) -> Column:
        from pyspark.sql import functions as F

        p, s = dtype.precision, dtype.scale
        top = decimal.Decimal(10) ** (p - s) - decimal.Decimal(1).scaleb(-s)
        lo, hi = self._bounds(path, -top, top, decimal.Decimal)
        lo_u, hi_u = int(lo.scaleb(s)), int(hi.scaleb(s))  # unscaled: whole numbers
        if hi_u - lo_u + 1 < 1 << 62:
            unscaled = F.lit(lo_u) + draws.below(path, hi_u - lo_u + 1)
            return unscaled.cast(f"decimal({min(p + 1, 38)},0)") / F.lit(10**s)
        u = draws.unit(path)  # too wide for a long: a double is close enough
        value = F.lit(float(lo)) * (F.lit(1.0) - u) + F.lit(float(hi)) * u
        return F.least(F.greatest(value, F.lit(float(lo))), F.lit(float(hi))).try_cast(dtype)

    def _length(self, path: str) -> int:
        length = self.opts.int(self._key(path, "length"))
        declared = self.max_length.get(path)
        if length is None:
            length = declared if declared is not None else 100
        return max(0, min(length, declared) if declared is not None else length)

    def _string(self, path: str, draws: Draws, binary: bool) -> Column:
        from pyspark.sql import functions as F

        length = self._length(path)
        if self.opts.bool(self._key(path, "var-len")) and length > 0:
            size: Column = F.lit(1) + draws.below(f"{path}#len", length)
        else:
            size = F.lit(length)
        if length > len(self._pool) // 2:
            self._pool = letter_pool(self.seed, 2 * length, ALNUM)
        # 16 hex digits from the row's hash make values distinct; the pool fills the rest
        head = F.lower(F.lpad(F.hex(draws.bits(path)), 16, "0"))
        tail = pool_slice(draws, f"{path}#tail", self._pool, max(length - 16, 0))
        text = F.substr(F.concat(head, tail), F.lit(1), size.cast("int"))
        return text.cast("binary") if binary else text

    def _interval(
        self, path: str, dtype: DayTimeIntervalType | YearMonthIntervalType, draws: Draws
    ) -> Column:
        from pyspark.sql import functions as F
        from pyspark.sql.types import YearMonthIntervalType

        year_month = isinstance(dtype, YearMonthIntervalType)
        family = "year-month" if year_month else "day-time"
        lo, hi = self._bounds(path, *_DEFAULT_INTERVAL_RANGE[family], int)
        unit = F.expr("INTERVAL '1' MONTH" if year_month else "INTERVAL '1' SECOND")
        return (F.lit(lo) + draws.below(path, hi - lo + 1)) * unit

    def _array(self, path: str, dtype: ArrayType, draws: Draws) -> Column:
        from pyspark.sql import functions as F

        n = self._length(path)
        if n == 0:
            return F.array().cast(dtype)
        element = dtype.elementType
        return F.transform(
            F.sequence(F.lit(0), F.lit(n - 1)),
            lambda i: self.value(f"{path}.element", element, True, draws.child(i)),
        )

    def _map(self, path: str, dtype: MapType, draws: Draws) -> Column:
        from pyspark.sql import functions as F

        n = self._length(path)
        if n == 0:
            return F.create_map().cast(dtype)
        keys = F.array_distinct(
            F.transform(
                F.sequence(F.lit(0), F.lit(n - 1)),
                lambda i: self.value(f"{path}.key", dtype.keyType, False, draws.child(i)),
            )
        )
        multiset = dtype.valueType.typeName() == "integer" and not dtype.valueContainsNull
        return F.map_from_arrays(
            keys,
            F.transform(
                keys,
                # coalesce with a literal: values are non-null, as MULTISET's map type says
                lambda _k, i: F.coalesce(
                    (F.lit(1) + draws.child(i).below(f"{path}#count", 3)).cast("int"), F.lit(1)
                )
                if multiset
                else self.value(f"{path}.value", dtype.valueType, True, draws.child(i, F.lit(1))),
            ),
        )
