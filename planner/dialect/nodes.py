"""Syntax-tree nodes for Flink constructs that sqlglot has no node for.

Each is a plain sqlglot ``Expression``; the Flink generator prints them (``<key>_sql``) and the
binder reads them. Standard constructs keep sqlglot's own nodes (Create, Schema, ColumnDef,
ComputedColumnConstraint, WatermarkColumnConstraint, PrimaryKey, Window, MatchRecognize, ...).
"""

from __future__ import annotations

from typing import ClassVar

from sqlglot import exp


class TableArgument(exp.Expression):
    """``TABLE t [PARTITION BY a, b] [ORDER BY ...]`` as a table-function argument."""

    arg_types = {"this": True, "partition_by": False, "order": False}


class Descriptor(exp.Expression):
    """``DESCRIPTOR(col, ...)``: names the time column of a window TVF."""

    arg_types = {"expressions": True}


class TableFunction(exp.Expression):
    """``TABLE(<call>)`` in FROM: a table-valued function such as a window TVF."""

    arg_types = {"this": True}


class IntervalUnit(exp.Expression):
    """A unit with its precision in an INTERVAL type or literal: ``DAY(2)``, ``SECOND(3)``
    (``INTERVAL DAY(2) TO SECOND(3)``). A unit without a precision stays a plain ``exp.Var``."""

    arg_types = {"this": True, "precision": True}


class MetadataColumnConstraint(exp.Expression, exp.ColumnConstraintKind):
    """``METADATA [FROM 'key'] [VIRTUAL]`` on a column definition."""

    arg_types = {"this": False, "virtual": False}


class WithOptions(exp.Property):
    """``WITH ('k' = 'v', ...)``: connector options of a table (values are string literals)."""

    arg_types = {"expressions": True}


class LikeClause(exp.Property):
    """``LIKE source [(INCLUDING ALL | EXCLUDING OPTIONS | OVERWRITING WATERMARKS ...)]``."""

    arg_types = {"this": True, "expressions": False}


class LikeOption(exp.Expression):
    """One ``INCLUDING|EXCLUDING|OVERWRITING  ALL|CONSTRAINTS|GENERATED|OPTIONS|...`` item."""

    arg_types = {"this": True, "kind": True}


class CreateFunction(exp.Expression):
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'cls' [LANGUAGE l] [USING JAR ..]``."""

    arg_types = {
        "this": True,
        "class_name": True,
        "language": False,
        "temporary": False,
        "system": False,
        "exists": False,
        "jars": False,
    }


class StatementSet(exp.Expression):
    """``EXECUTE STATEMENT SET BEGIN insert; ... END`` (or the client's ``BEGIN STATEMENT SET;``)."""

    arg_types = {"expressions": True, "client_form": False}


class Explain(exp.Expression):
    """``EXPLAIN [PLAN FOR | detail, ...] <statement>``."""

    arg_types = {"this": True, "details": False, "plan_for": False}


class ShowStatement(exp.Expression):
    """``SHOW TABLES|VIEWS|FUNCTIONS|JOBS|CATALOGS|DATABASES|MODULES`` or ``SHOW CREATE TABLE|VIEW x``,
    ``SHOW COLUMNS FROM x``, ``SHOW STATE 'job'`` (ours); optional ``LIKE 'pattern'``."""

    arg_types = {"this": True, "target": False, "like": False, "not_like": False, "partition": False}


class DescribeStatement(exp.Expression):
    """``DESCRIBE|DESC [EXTENDED] name`` or ``DESCRIBE JOB 'id'``."""

    arg_types = {"this": True, "kind": False, "extended": False}


class SetOption(exp.Expression):
    """``SET`` (list all) or ``SET 'key' = 'value'``; keys may also be unquoted dotted names."""

    arg_types = {"this": False, "value": False}


class ResetOption(exp.Expression):
    """``RESET`` (all) or ``RESET 'key'``."""

    arg_types = {"this": False}


class StopJob(exp.Expression):
    """``STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]``."""

    arg_types = {"this": True, "savepoint": False, "drain": False}


class UseStatement(exp.Expression):
    """``USE [CATALOG] name`` or ``USE MODULES a, b``."""

    arg_types = {"this": False, "kind": False, "expressions": False}


class ClientCommand(exp.Expression):
    """``HELP``, ``QUIT``/``EXIT``, ``CLEAR``: commands of the shell itself."""

    arg_types = {"this": True}


class AlterTable(exp.Expression):
    """Flink ``ALTER TABLE|VIEW|CATALOG`` actions.

    action is one of RENAME (new name in ``expression``), RENAME COLUMN, SET / RESET (options),
    ADD / MODIFY (``expressions``: column defs, watermark, primary key, a DistributedBy, or
    PartitionSpecs), DROP (``expressions``: columns or PartitionSpecs, or ``target`` WATERMARK /
    PRIMARY KEY / DISTRIBUTION), AS (view query in ``expression``), COMMENT.
    """

    arg_types = {
        "this": True,
        "kind": True,
        "action": True,
        "expressions": False,
        "expression": False,
        "target": False,
        "exists": False,
    }


class DistributedBy(exp.Property):
    """``DISTRIBUTED BY [HASH|RANGE] (cols) [INTO n BUCKETS]`` / ``DISTRIBUTED INTO n BUCKETS``."""

    arg_types = {"kind": False, "expressions": False, "buckets": False}


class PartitionSpec(exp.Expression):
    """``PARTITION (k = v, ...) [WITH (options)]`` in ALTER TABLE ADD/DROP PARTITION."""

    arg_types = {"expressions": True, "options": False}


class ReplaceOnlyProperty(exp.Property):
    """Marks ``REPLACE TABLE t AS ...`` (the table must exist), apart from CREATE OR REPLACE."""

    arg_types: ClassVar[dict[str, bool]] = {}


class CreateCatalog(exp.Expression):
    """``CREATE CATALOG c [COMMENT ..] WITH (..)`` / ``CREATE DATABASE [IF NOT EXISTS] d ...``."""

    arg_types = {"this": True, "kind": True, "exists": False, "comment": False, "options": False}


class DropCatalog(exp.Expression):
    """``DROP CATALOG|DATABASE [IF EXISTS] name [RESTRICT|CASCADE]``."""

    arg_types = {"this": True, "kind": True, "exists": False, "cascade": False}


class DropFunction(exp.Expression):
    """``DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name``."""

    arg_types = {"this": True, "temporary": False, "system": False, "exists": False}


FLINK_NODES = (
    TableArgument,
    Descriptor,
    TableFunction,
    IntervalUnit,
    MetadataColumnConstraint,
    WithOptions,
    LikeClause,
    LikeOption,
    CreateFunction,
    StatementSet,
    Explain,
    ShowStatement,
    DescribeStatement,
    SetOption,
    ResetOption,
    StopJob,
    UseStatement,
    ClientCommand,
    AlterTable,
    DropFunction,
    DistributedBy,
    PartitionSpec,
    ReplaceOnlyProperty,
    CreateCatalog,
    DropCatalog,
)
