"""Window table functions (TUMBLE/HOP/CUMULATE/SESSION over TABLE t) and the legacy group-window
functions of GROUP BY (TUMBLE(ts, INTERVAL ..)) as WindowSpecs."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.intervals import interval_ms
from planner.dialect import nodes
from planner.logical import typing as T
from planner.logical.fields import Field, WindowRole, WindowTag
from planner.logical.specs import WindowKind, WindowSpec
from planner.problems import BindError

# positional parameter names after DATA and TIMECOL, per window kind (Flink's signatures)
TVF_PARAMS = {
    WindowKind.TUMBLE: ("SIZE", "OFFSET"),
    WindowKind.HOP: ("SLIDE", "SIZE", "OFFSET"),
    WindowKind.CUMULATE: ("STEP", "SIZE", "OFFSET"),
    WindowKind.SESSION: ("GAP",),
}


def window_kind(name: str) -> WindowKind | None:
    try:
        return WindowKind(name.upper())
    except ValueError:
        return None


def tvf_arguments(call: exp.Expr) -> tuple[WindowKind, dict[str, exp.Expr]]:
    """The named arguments (DATA, TIMECOL, SIZE, ...) of a window TVF call."""
    name = call.name if isinstance(call, exp.Anonymous) else type(call).__name__
    kind = window_kind(name)
    if kind is None:
        raise BindError(
            f"Unknown table function `{name}`; window table functions are TUMBLE, HOP, CUMULATE and SESSION",
            call,
        )
    raw = list(call.expressions) if isinstance(call, exp.Anonymous) else []
    args: dict[str, exp.Expr] = {}
    positional = ["DATA", "TIMECOL", *TVF_PARAMS[kind]]
    for i, a in enumerate(raw):
        if isinstance(a, exp.Kwarg):
            args[a.this.name.upper()] = a.expression
        elif i < len(positional):
            args[positional[i]] = a
        else:
            raise BindError(f"Too many arguments for {kind.value}", a)
    for required in ("DATA", "TIMECOL", *[p for p in TVF_PARAMS[kind] if p != "OFFSET"]):
        if required not in args:
            raise BindError(f"{kind.value} needs a {required} argument", call)
    if not isinstance(args["DATA"], nodes.TableArgument):
        raise BindError("The first argument of a window function is TABLE name", args["DATA"])
    if not isinstance(args["TIMECOL"], nodes.Descriptor):
        raise BindError("The time column is given as DESCRIPTOR(column)", args["TIMECOL"])
    return kind, args


def spec_from_tvf(window_id: int, kind: WindowKind, args: dict[str, exp.Expr], time_field: str, partition: tuple[str, ...]) -> WindowSpec:
    ms = {k: interval_ms(v) for k, v in args.items() if k in ("SIZE", "SLIDE", "STEP", "GAP", "OFFSET")}
    spec = WindowSpec(
        id=window_id,
        kind=kind,
        time_field=time_field,
        size_ms=ms.get("SIZE"),
        slide_ms=ms.get("SLIDE"),
        step_ms=ms.get("STEP"),
        gap_ms=ms.get("GAP"),
        offset_ms=ms.get("OFFSET", 0),
        partition_keys=partition,
    )
    validate(spec, args.get("SIZE") or args.get("GAP"))
    return spec


def validate(spec: WindowSpec, node: exp.Expr | None) -> None:
    for name, value in (("size", spec.size_ms), ("slide", spec.slide_ms), ("step", spec.step_ms), ("gap", spec.gap_ms)):
        if value is not None and value <= 0:
            raise BindError(f"The window {name} must be positive", node)
    if spec.kind == WindowKind.HOP and spec.size_ms and spec.slide_ms and spec.size_ms % spec.slide_ms:
        raise BindError("A HOP window's size must be a whole multiple of its slide", node)
    if spec.kind == WindowKind.CUMULATE and spec.size_ms and spec.step_ms and spec.size_ms % spec.step_ms:
        raise BindError("A CUMULATE window's max size must be a whole multiple of its step", node)


def window_fields(spec: WindowSpec, time: Field) -> list[Field]:
    """window_start, window_end, window_time of a window on ``time``: the bounds are wall times (a
    TIMESTAMP(3), on processing time too, as Flink 2.3 types them), window_time has the time's type."""
    ts_type = T.TIMESTAMP_LTZ3 if T.is_type(time.type, exp.DType.TIMESTAMPLTZ) else T.TIMESTAMP3
    return [
        Field("window_start", T.TIMESTAMP3, None, False, WindowTag(spec.id, WindowRole.START)),
        Field("window_end", T.TIMESTAMP3, None, False, WindowTag(spec.id, WindowRole.END)),
        Field("window_time", ts_type, time.time, False, WindowTag(spec.id, WindowRole.TIME)),
    ]


def legacy_window(window_id: int, call: exp.Anonymous, time_field: str) -> WindowSpec:
    """GROUP BY TUMBLE(ts, size) | HOP(ts, slide, size) | SESSION(ts, gap)."""
    kind = window_kind(call.name)
    assert kind is not None
    args = list(call.expressions)[1:]
    expected = {WindowKind.TUMBLE: 1, WindowKind.HOP: 2, WindowKind.SESSION: 1}[kind]
    if len(args) not in (expected, expected + 1):
        raise BindError(f"{kind.value}(time, ...) takes {expected + 1} arguments here", call)
    ms = [interval_ms(a) for a in args]
    if kind == WindowKind.TUMBLE:
        spec = WindowSpec(window_id, kind, time_field, size_ms=ms[0], offset_ms=ms[1] if len(ms) > 1 else 0)
    elif kind == WindowKind.HOP:
        spec = WindowSpec(window_id, kind, time_field, slide_ms=ms[0], size_ms=ms[1])
    else:
        spec = WindowSpec(window_id, kind, time_field, gap_ms=ms[0])
    validate(spec, call)
    return spec
