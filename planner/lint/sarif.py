"""SARIF 2.1.0: one run of the ``sqlengine`` tool, its rules (the SE codes and the E codes of
invalid SQL) with help, and one result per finding with its region (1-based lines and columns,
end column exclusive)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from planner.diagnostics import Diagnostic
from planner.lint.driver import LintResult
from planner.rules import RULES

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}

ERROR_RULES = (
    ("E001", "syntax-error", "The statement does not parse"),
    ("E002", "unknown-name", "Unknown table, view, column or function"),
    ("E003", "invalid-statement", "Invalid statement (a bad definition, a DDL conflict)"),
    ("E004", "undefined-variable", "Undefined ${VARIABLE}: define it with --define NAME=value"),
    ("E999", "internal-parser-error", "The parser failed on this statement (an internal error)"),
)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sqlengine")
    except Exception:  # not installed (running from a checkout)
        return "0.1.0"


def _rules() -> list[dict[str, Any]]:
    out = []
    for r in RULES:
        doc = f"docs/rules/{r.code}.md"
        out.append(
            {
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": f"{r.summary}. Category: {r.category.value}."},
                "help": {"text": f"{r.summary}. See {doc}.", "markdown": f"{r.summary}. See [{r.code}]({doc})."},
                "defaultConfiguration": {"level": LEVEL[r.severity.value]},
                "properties": {"category": r.category.value, "tags": [r.category.value]},
            }
        )
    for code, name, summary in ERROR_RULES:
        out.append(
            {
                "id": code,
                "name": name,
                "shortDescription": {"text": summary},
                "help": {"text": summary},
                "defaultConfiguration": {"level": "error"},
                "properties": {"category": "syntax" if code in ("E001", "E999") else "binding"},
            }
        )
    return out


def _uri(path: str) -> str:
    p = Path(path)
    return p.resolve().as_uri() if p.is_absolute() else p.as_posix()


def _result(d: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": LEVEL[d.severity.value],
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(d.path)},
                    "region": {
                        "startLine": d.line,
                        "startColumn": d.column,
                        "endLine": d.end_line,
                        "endColumn": d.end_column,
                    },
                }
            }
        ],
        "properties": {"category": d.category.value},
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.hint:
        result["properties"]["hint"] = d.hint
    if d.rewrite:
        result["properties"]["rewrite"] = d.rewrite
    return result


def to_sarif(result: LintResult) -> dict[str, Any]:
    rules = _rules()
    index = {r["id"]: i for i, r in enumerate(rules)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sqlengine",
                        "informationUri": "https://github.com/sqlengine/sqlengine",
                        "version": _version(),
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index) for d in result.diagnostics],
            }
        ],
    }
