"""``sqlengine lint``: findings for every statement of .sql files, in text, json, sarif and
github formats, with ``-- noqa`` suppression and ``[tool.sqlengine.lint]`` configuration."""

from planner.lint.config import ConfigError, LintConfig, find_config, load_config
from planner.lint.driver import Linter, LintResult, collect_files, lint_paths
from planner.lint.formats import FORMATS, render

__all__ = [
    "FORMATS",
    "ConfigError",
    "LintConfig",
    "LintResult",
    "Linter",
    "collect_files",
    "find_config",
    "lint_paths",
    "load_config",
    "render",
]
