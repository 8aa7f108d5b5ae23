"""Output formats of ``sqlengine lint``: text (``path:line:col: CODE message``), json (a list of
findings), sarif (SARIF 2.1.0 for code scanning) and github (workflow command annotations)."""

from __future__ import annotations

import json
from collections.abc import Callable

from planner.diagnostics import Diagnostic
from planner.lint.driver import LintResult
from planner.lint.sarif import to_sarif


def render_text(result: LintResult) -> str:
    return "".join(f"{d}\n" for d in result.diagnostics)


def render_json(result: LintResult) -> str:
    return json.dumps([d.to_dict() for d in result.diagnostics], indent=2, ensure_ascii=False) + "\n"


def render_sarif(result: LintResult) -> str:
    return json.dumps(to_sarif(result), indent=2, ensure_ascii=False) + "\n"


def escape_data(s: str) -> str:
    """GitHub workflow command data: % CR LF are escaped."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    """GitHub workflow command property values: also : and , are escaped."""
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def github_line(d: Diagnostic) -> str:
    props = ",".join(
        f"{k}={escape_property(str(v))}"
        for k, v in (
            ("file", d.path),
            ("line", d.line),
            ("col", d.column),
            ("endLine", d.end_line),
            ("endColumn", d.end_column),
            ("title", d.code),
        )
    )
    body = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return f"::{GITHUB_LEVEL[d.severity.value]} {props}::{escape_data(body)}"


def render_github(result: LintResult) -> str:
    return "".join(github_line(d) + "\n" for d in result.diagnostics)


FORMATS: dict[str, Callable[[LintResult], str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}


def render(result: LintResult, fmt: str) -> str:
    return FORMATS[fmt](result)
