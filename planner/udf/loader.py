"""Finding a Python function named by ``CREATE FUNCTION ... AS 'module.function' LANGUAGE
PYTHON`` and reading its SQL signature from its annotations (and ``@function``), without Spark:
lint, EXPLAIN and the binder know a call's result type from this alone.

The module is imported with the search path a Flink user would expect: the directory of the .sql
file being run or linted, the current directory, and the files and directories of ``SET
'python.files' = 'a.py,dir,deps.zip'`` (a file stands for its directory). A module whose file
changed since it was imported is imported again (the shell's edit-and-rerun loop)."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from planner.udf.decorator import Declared, declared_of
from planner.udf.types import NotASqlType, is_iterator, row_type, sql_type

PYTHON_FILES = "python.files"


class UdfError(Exception):
    """Why a function cannot be used: one line, and a hint."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class Signature:
    """A Python function as SQL sees it; types are Flink SQL text (None: any type, as given)."""

    target: str  # 'module.function'
    params: tuple[str | None, ...]
    result: str
    required: int  # parameters without a default
    varargs: bool
    table: bool  # a table function: the result is the ROW of each generated row
    deterministic: bool
    vectorized: bool
    module_file: str | None  # the module's file, shipped to Spark's Python workers
    aggregate: bool = False  # a class with PyFlink's AggregateFunction methods (planner.udf.aggregate)
    retracts: bool = False  # an aggregate function with a ``retract`` method

    def arity(self) -> str:
        if self.varargs:
            return f"at least {self.required}"
        if self.required == len(self.params):
            return str(self.required)
        return f"{self.required} to {len(self.params)}"

    def accepts(self, count: int) -> bool:
        return count >= self.required and (self.varargs or count <= len(self.params))

    def param_type(self, i: int) -> str | None:
        if i < len(self.params):
            return self.params[i]
        return self.params[-1] if self.varargs and self.params else None


def absolute_files(value: str, script: str | None) -> str:
    """'python.files' with each relative path made absolute: relative to the .sql file that sets
    it (the current directory in the shell)."""
    base = Path(script).resolve().parent if script is not None else Path.cwd()
    items = [i.strip() for i in value.split(",") if i.strip()]
    return ",".join(str((base / Path(i).expanduser()).resolve()) for i in items)


def search_path(settings: dict[str, str], script: str | None) -> tuple[str, ...]:
    """Where modules are looked for: python.files first (absolute since SET), then the script's
    directory and the current directory."""
    out: list[str] = []
    for item in (settings.get(PYTHON_FILES) or "").split(","):
        item = item.strip()
        if not item:
            continue
        p = Path(item).expanduser().resolve()
        out.append(str(p.parent if p.suffix == ".py" else p))
    if script is not None:
        out.append(str(Path(script).resolve().parent))
    out.append(str(Path.cwd()))
    return tuple(dict.fromkeys(out))


_MTIMES: dict[str, float] = {}  # module name -> its file's mtime when imported


def _import(module_name: str, paths: Sequence[str]) -> ModuleType:
    """Import ``module_name`` from ``paths`` first (in their order), leaving ``sys.path`` as it
    was. A module of that name imported earlier from another file (another script's ``udfs.py``)
    is imported again from the one ``paths`` find; one whose file changed is reloaded."""
    ordered = list(dict.fromkeys(paths))
    saved = list(sys.path)
    sys.path[:0] = [p for p in ordered if p not in saved]
    importlib.invalidate_caches()
    try:
        module = sys.modules.get(module_name)
        loaded = getattr(module, "__file__", None)
        if module is not None and _origin(module_name, ordered) not in (None, loaded and os.path.realpath(loaded)):
            for name in [n for n in sys.modules if n == module_name or n.startswith(module_name + ".")]:
                del sys.modules[name]
            module = None
        if module is not None:
            f = getattr(module, "__file__", None)
            if f and os.path.exists(f) and os.path.getmtime(f) != _MTIMES.get(module_name):
                module = importlib.reload(module)
        else:
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        raise UdfError(
            f"cannot import Python module '{module_name}': {err}",
            "put it beside the .sql file or in the current directory, or SET 'python.files' = 'path/to/module.py'",
        ) from None
    except SyntaxError as err:
        raise UdfError(f"Python module '{module_name}' has a syntax error: {err.msg} ({err.filename}:{err.lineno})") from None
    except Exception as err:  # anything the module raises while it is imported
        raise UdfError(f"importing Python module '{module_name}' failed: {type(err).__name__}: {err}") from None
    finally:
        sys.path[:] = saved
    f = getattr(module, "__file__", None)
    if f and os.path.exists(f):
        _MTIMES[module_name] = os.path.getmtime(f)
    return module


def _origin(module_name: str, paths: Sequence[str]) -> str | None:
    """The file ``paths`` hold for a module (its source found, nothing run), or None."""
    found = source_file(module_name, paths)
    return str(found) if found is not None else None


def source_file(module_name: str, paths: Sequence[str]) -> Path | None:
    """Where the module ``a.b`` is in the first of ``paths`` that has it: ``a/b.py`` or
    ``a/b/__init__.py`` (found by looking, not by importing: nothing of it runs)."""
    parts = module_name.split(".")
    for base in paths:
        for candidate in (Path(base, *parts[:-1], parts[-1] + ".py"), Path(base, *parts, "__init__.py")):
            if candidate.is_file():
                return candidate.resolve()
    return None


def load(target: str, paths: Sequence[str]) -> Callable[..., Any]:
    """The Python function ``target`` ('package.module.function')."""
    module_name, _, attr = target.rpartition(".")
    if not module_name or not attr:
        raise UdfError(f"'{target}' names no Python function: write 'module.function'")
    fn = getattr(_import(module_name, paths), attr, None)
    if fn is None:
        raise UdfError(f"Python module '{module_name}' has no function `{attr}`")
    if not callable(fn):
        raise UdfError(f"'{target}' is not a function (it is a {type(fn).__name__})")
    return typing.cast(Callable[..., Any], fn)


def signature(target: str, fn: Callable[..., Any]) -> Signature:
    """The SQL signature of ``fn``, from its annotations and ``@function``."""
    declared = declared_of(fn) or Declared()
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError) as err:
        raise UdfError(f"cannot read the signature of '{target}': {err}") from None
    hints: dict[str, Any] | None
    try:
        hints = typing.get_type_hints(fn)
        unreadable = ""
    except Exception as err:
        hints, unreadable = None, f"{type(err).__name__}: {err}"
    positional = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    module = sys.modules.get(getattr(fn, "__module__", "") or "")
    return build(
        target, declared, Params(
            tuple(p.name for p in positional),
            sum(1 for p in positional if p.kind != p.VAR_POSITIONAL and p.default is p.empty),
            any(p.kind == p.VAR_POSITIONAL for p in positional),
        ),
        hints, unreadable, inspect.isgeneratorfunction(fn), getattr(module, "__file__", None),
    )


@dataclass(frozen=True)
class Params:
    names: tuple[str, ...]  # the positional parameters (and *args)
    required: int  # without a default
    varargs: bool


def build(
    target: str, declared: Declared, params_of: Params, hints: dict[str, Any] | None, unreadable: str,
    generator: bool, module_file: str | None,
) -> Signature:
    """A signature from what was read of a function (by importing it, or from its source):
    ``hints`` its evaluated annotations (None: they could not be read, ``unreadable`` says why)."""
    where = f"'{target}'"
    hint = "annotate its parameters and result (def f(s: str) -> int), or declare them with @function from sqlengine.udf"
    if hints is None:
        if declared.result is None or (declared.params is None and not declared.vectorized):
            raise UdfError(f"cannot read the annotations of {where}: {unreadable}", hint)
        hints = {}  # the decorator says all there is to know
    names = params_of.names
    if declared.params is not None:
        if len(declared.params) != len(names):
            raise UdfError(f"{where} declares {len(declared.params)} parameter types for {len(names)} parameters")
        params: tuple[str | None, ...] = declared.params
    elif declared.vectorized:
        params = tuple(None for _ in names)  # pandas Series: the types are the arguments'
    else:
        missing = [n for n in names if n not in hints]
        if missing:
            raise UdfError(f"{where} has no type annotation for parameter `{missing[0]}`", hint)
        params = tuple(_sql(where, hints[n], hint, sql_type) for n in names)
    table = declared.table if declared.table is not None else (generator or _iterator(hints.get("return")))
    if declared.result is not None:
        result = declared.result
        if table and not result.upper().startswith("ROW"):
            result = f"ROW<f0 {result}>"
    elif "return" not in hints:
        raise UdfError(f"{where} has no return type annotation", hint)
    else:
        result = _sql(where, hints["return"], hint, row_type if table else sql_type)
    return Signature(
        target=target,
        params=params,
        result=result,
        required=params_of.required,
        varargs=params_of.varargs,
        table=table,
        deterministic=declared.deterministic,
        vectorized=declared.vectorized,
        module_file=module_file,
    )


def _sql(where: str, annotation: Any, hint: str, mapping: Callable[[Any], str]) -> str:
    try:
        return mapping(annotation)
    except NotASqlType as err:
        raise UdfError(f"{where}: {err}", hint) from None
    except Exception:  # an annotation that is no type at all (a list, an unhashable value)
        raise UdfError(f"{where}: the annotation `{annotation!r}` is not a type", hint) from None


def _iterator(annotation: Any) -> bool:
    try:
        return is_iterator(annotation)
    except Exception:
        return False
