"""Lint configuration: ``[tool.sqlengine.lint]`` in pyproject.toml, found by walking up from the
linted path (or given with ``--config``), with command-line options on top.

    [tool.sqlengine.lint]
    select = ["SE1", "E"]            # code prefixes to report (default: all)
    ignore = ["SE109"]
    fail-on = "warning"              # error | warning | info | none
    define = { NEXMARK_TABLE = "datagen" }
    init = ["ddl/tables.sql"]        # DDL run before every file (relative to the config file)
    horizon-days = 30

    [tool.sqlengine.lint.severity]
    SE101 = "error"

    [tool.sqlengine.lint.stats.bid]
    "stats.rows-per-second" = "1000"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from planner.diagnostics import Severity

FAIL_ON = ("error", "warning", "info", "none")


class ConfigError(Exception):
    """An invalid configuration or option: lint exits 2."""


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ()  # code prefixes; empty: everything
    ignore: tuple[str, ...] = ()
    severity: dict[str, Severity] = field(default_factory=dict)
    fail_on: str = "warning"
    define: dict[str, str] = field(default_factory=dict)
    stats: dict[str, dict[str, str]] = field(default_factory=dict)
    horizon_days: int = 30
    init: tuple[Path, ...] = ()
    source: Path | None = None  # the pyproject.toml it came from
    rewrites: bool = True  # compute rewrites (json and sarif show them; text and github do not)

    def wants(self, code: str) -> bool:
        if self.select and not any(code.startswith(p) for p in self.select):
            return False
        return not any(code.startswith(p) for p in self.ignore)

    def severity_of(self, code: str, default: Severity) -> Severity:
        return self.severity.get(code, default)

    def fails(self, severity: Severity) -> bool:
        if self.fail_on == "none":
            return False
        return severity.rank >= Severity(self.fail_on).rank

    def merged(self, **options: Any) -> LintConfig:
        """Command-line options over the file: lists extend, values replace (None: keep)."""
        changes: dict[str, Any] = {}
        for key, value in options.items():
            if value is None or value == () or value == {}:
                continue
            if key == "define":
                changes[key] = {**self.define, **value}
            elif key == "init":
                changes[key] = self.init + tuple(value)
            elif key == "fail_on":
                changes[key] = _fail_on(value)
            else:
                changes[key] = value
        return replace(self, **changes)


def _fail_on(value: str) -> str:
    v = str(value).lower()
    if v not in FAIL_ON:
        raise ConfigError(f"fail-on takes one of {', '.join(FAIL_ON)}; got '{value}'")
    return v


def _strings(value: object, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[tool.sqlengine.lint] {key} takes a list of strings")
    return tuple(v.strip().upper() for v in value if v.strip())


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.sqlengine.lint] table, from ``start`` upwards."""
    here = start.resolve()
    if here.is_file() or not here.exists():
        here = here.parent
    for d in (here, *here.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text())
            except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
                continue
            if isinstance(data.get("tool", {}).get("sqlengine", {}).get("lint"), dict):
                return candidate
    return None


def load_config(path: Path) -> LintConfig:
    try:
        data = tomllib.loads(path.read_text())
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: invalid TOML: {err}") from None
    table = data.get("tool", {}).get("sqlengine", {}).get("lint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.sqlengine.lint] must be a table")
    known = {"select", "ignore", "severity", "fail-on", "define", "stats", "horizon-days", "init"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.sqlengine.lint] key(s): {', '.join(unknown)}")
    severity = {}
    for code, level in (table.get("severity") or {}).items():
        try:
            severity[code.upper()] = Severity(str(level).lower())
        except ValueError:
            raise ConfigError(f"{path}: severity of {code} must be error, warning or info; got '{level}'") from None
    stats = {}
    for tname, options in (table.get("stats") or {}).items():
        if not isinstance(options, dict):
            raise ConfigError(f"{path}: [tool.sqlengine.lint.stats.{tname}] must be a table of options")
        stats[tname] = {str(k): str(v) for k, v in options.items()}
    try:
        horizon = int(table.get("horizon-days", 30))
    except (TypeError, ValueError):
        raise ConfigError(f"{path}: horizon-days must be a number of days") from None
    define = table.get("define") or {}
    if not isinstance(define, dict):
        raise ConfigError(f"{path}: define must be a table of NAME = \"value\"")
    init = table.get("init") or []
    if isinstance(init, str):
        init = [init]
    if not isinstance(init, list) or not all(isinstance(p, str) for p in init):
        raise ConfigError(f"{path}: init takes a list of DDL files")
    return LintConfig(
        select=_strings(table.get("select", []), "select"),
        ignore=_strings(table.get("ignore", []), "ignore"),
        severity=severity,
        fail_on=_fail_on(table.get("fail-on", "warning")),
        define={str(k): str(v) for k, v in define.items()},
        stats=stats,
        horizon_days=horizon,
        init=tuple(path.parent / p for p in init),
        source=path,
    )
